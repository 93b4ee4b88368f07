package sessionstate

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestReadRefusesWhatItCannotRestore(t *testing.T) {
	dir := t.TempDir()
	if _, err := Read(filepath.Join(dir, "none.json")); !errors.Is(err, ErrNoState) {
		t.Errorf("a missing file: %v, want ErrNoState", err)
	}
	for _, tc := range []struct{ name, data, want string }{
		{"torn", `{"version":1,"panes":[{"id":1,`, "does not decode"},
		{"another version", `{"version":9,"panes":[{"id":1,"argv":["sh"]}]}`, "format version 9 is not the 1"},
		{"no panes", `{"version":1,"panes":[]}`, "lists no panes"},
		{"no program", `{"version":1,"panes":[{"id":1,"argv":[]}]}`, "pane 1 has no program"},
		{"an id twice", `{"version":1,"panes":[{"id":1,"argv":["sh"]},{"id":1,"argv":["sh"]}]}`, "pane id 1 is listed twice"},
		{"a bad id", `{"version":1,"panes":[{"id":0,"argv":["sh"]}]}`, "has id 0; ids are positive"},
	} {
		p := filepath.Join(dir, tc.name+".json")
		os.WriteFile(p, []byte(tc.data), 0o600)
		_, err := Read(p)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrInvalid saying %q", tc.name, err, tc.want)
		}
	}
}

func TestPathFollowsXDGStateHome(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/var/tmp/st")
	if p, _ := Path("work"); p != "/var/tmp/st/melmux/sessions/work.json" {
		t.Errorf("Path = %s", p)
	}
	t.Setenv("XDG_STATE_HOME", "relative")
	t.Setenv("HOME", "/home/u")
	if p, _ := Path("work"); p != "/home/u/.local/state/melmux/sessions/work.json" {
		t.Errorf("with a relative XDG_STATE_HOME, Path = %s (the spec says to ignore it)", p)
	}
}

func TestTrimScreenKeepsTheBottom(t *testing.T) {
	if got := TrimScreen([]string{"$ ls  ", "a b", "", "  "}); strings.Join(got, "|") != "$ ls|a b" {
		t.Errorf("trailing blanks: %q", got)
	}
	var many []string
	for i := 0; i < 3*MaxScreenLines; i++ {
		many = append(many, strings.Repeat("y", 300))
	}
	many[len(many)-1] = "last"
	got := TrimScreen(many)
	size := 0
	for _, l := range got {
		size += len(l) + 1
	}
	if len(got) > MaxScreenLines || size > MaxScreenBytes || got[len(got)-1] != "last" {
		t.Errorf("kept %d lines, %d bytes, ending %q", len(got), size, got[len(got)-1])
	}
}

func TestSummary(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	st := &State{Saved: now.Add(-3 * time.Minute), Layout: `active=0; tab "" focus=1 right(0.5 1 2); tab "" focus=3 3`,
		Panes: []Pane{{ID: 1}, {ID: 2}, {ID: 3}}}
	if got := st.Summary(now); got != "3 panes in 2 tabs, saved 3m0s ago" {
		t.Errorf("Summary = %q", got)
	}
}
