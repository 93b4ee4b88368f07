package server

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/sessionstate"
	"github.com/melmux/melmux/internal/ui"
	"github.com/melmux/melmux/pane/term"
)

// shownText is a pane's screen as one string.
func shownText(t *testing.T, s *Server, pane int) string {
	t.Helper()
	e, err := s.lookup(pane)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(e.p.Term().Lines(), "\n")
}

func TestRestoreRebuildsTheSession(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "t.json")
	dirs := []string{t.TempDir(), t.TempDir(), t.TempDir()}
	a, ac := startServer(t, withState(file))
	call(t, ac, "new", proto.NewParams{Cwd: dirs[0]}, nil)
	call(t, ac, "open_pane", proto.OpenPaneParams{Layout: "right", Command: "sleep 600", Cwd: dirs[1], NoWait: true}, nil)
	call(t, ac, "open_pane", proto.OpenPaneParams{Layout: "tab", Argv: []string{"sleep", "601"}, Cwd: dirs[2], Title: "logs", NoWait: true}, nil)
	// A moved split and a focus that is not the last pane's.
	if err := a.uiCommand(nil, ui.Command{Name: "resize", Pane: 1, Args: []string{"right", "7"}}); err != nil {
		t.Fatal(err)
	}
	a.mu.Lock()
	a.refocusLocked(func() { _ = a.layout.Focus(2) })
	a.mu.Unlock()
	call(t, ac, "send_keys", proto.SendKeysParams{Pane: 1, Text: "echo marker-$((6*7))\n", NoWait: true}, nil)
	waitState(t, a, "the marker and pane 2 focused", func(st *sessionstate.State) bool {
		return len(st.Panes) == 3 && slices.Contains(st.Panes[0].Screen, "marker-42") && strings.HasPrefix(st.Layout, "active=0")
	})
	var before []proto.PaneInfo
	call(t, ac, "list_panes", nil, &before)
	a.mu.Lock()
	dump := a.layout.Dump()
	a.mu.Unlock()
	a.Shutdown("signal terminated")

	// The directory of pane 3 is gone by the time of the restore.
	os.Remove(dirs[2])
	b, bc := startServer(t, withState(file))
	var res proto.RestoreResult
	call(t, bc, "restore", proto.RestoreParams{}, &res)
	b.mu.Lock()
	got := b.layout.Dump()
	b.mu.Unlock()
	if got != dump {
		t.Errorf("restored layout\n%s\nwant\n%s", got, dump)
	}
	var after []proto.PaneInfo
	call(t, bc, "list_panes", nil, &after)
	if len(after) != 3 {
		t.Fatalf("restored panes: %+v", after)
	}
	home, _ := os.UserHomeDir()
	for i, p := range after {
		w := before[i]
		wantCwd := w.Cwd
		if i == 2 {
			wantCwd = home
		}
		if p.ID != w.ID || p.Tab != w.Tab || p.Command != w.Command || p.Cols != w.Cols || p.Rows != w.Rows || p.Title != w.Title {
			t.Errorf("pane %d restored as %+v, was %+v", w.ID, p, w)
		}
		if e, _ := b.lookup(p.ID); e.cwd != wantCwd {
			t.Errorf("pane %d started in %s, want %s", p.ID, e.cwd, wantCwd)
		}
	}
	if n := res.Panes[2].Note; !strings.Contains(n, "its directory "+dirs[2]+" is gone; started in "+home) {
		t.Errorf("pane 3's note: %q", n)
	}
	// The last screen is shown above the new prompt, in the reminder's
	// grey, and the shell prompts under it.
	scr := shownText(t, b, 1)
	if !strings.Contains(scr, "── pane 1 as it was at ") || !strings.Contains(scr, "marker-42") || !strings.Contains(scr, "restored: /bin/sh, started again") {
		t.Errorf("pane 1 lacks its reminder:\n%s", scr)
	}
	e, _ := b.lookup(1)
	cell := e.p.Term().Snapshot().Cells[0][0]
	if cell.FG != term.Indexed(244) {
		t.Errorf("the reminder is drawn in %v, want colour 244 (dim grey)", cell.FG)
	}
	// New panes take ids after the restored ones.
	var op proto.OpenPaneResult
	call(t, bc, "open_pane", proto.OpenPaneParams{Layout: "tab", Command: "sleep 602", NoWait: true}, &op)
	if op.ID != 4 {
		t.Errorf("a pane opened after the restore got id %d, want 4", op.ID)
	}
	// A second restore into a running session is refused.
	err := bc.Call(t.Context(), "restore", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "already has panes") {
		t.Errorf("restore into a live session: %v", err)
	}
}

// writeState writes a state file by hand.
func writeState(t *testing.T, file string, st *sessionstate.State) {
	t.Helper()
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	if err := sessionstate.Write(file, b); err != nil {
		t.Fatal(err)
	}
}

func TestRestoreRunsTheShellForAProgramThatIsGone(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "t.json")
	dir := t.TempDir()
	writeState(t, file, &sessionstate.State{Version: sessionstate.Version, Saved: time.Now(), Cols: 80, Rows: 24,
		Layout: `active=0; tab "" focus=5 right(0.3 5 7)`,
		Panes: []sessionstate.Pane{
			{ID: 5, Argv: []string{"/nonexistent/editor", "x"}, Cwd: dir, Screen: []string{"old \x1b[6n text"}},
			{ID: 7, Argv: []string{"sleep", "600"}, Cwd: dir},
		}})
	s, c := startServer(t, withState(file))
	var res proto.RestoreResult
	call(t, c, "restore", proto.RestoreParams{Cols: 100, Rows: 30}, &res)
	if res.Panes[0].Command != "/bin/sh" || !strings.Contains(res.Panes[0].Note, "/nonexistent/editor x could not start") {
		t.Errorf("pane 5: %+v", res.Panes[0])
	}
	if res.Panes[1].Command != "sleep 600" || res.Panes[1].Note != "" {
		t.Errorf("pane 7: %+v", res.Panes[1])
	}
	scr := shownText(t, s, 5)
	if !strings.Contains(scr, "old [6n text") || !strings.Contains(scr, "the shell runs instead") {
		t.Errorf("pane 5 should show its old screen, control characters dropped, and why a shell runs:\n%s", scr)
	}
	s.mu.Lock()
	cols := s.cols
	s.mu.Unlock()
	if cols != 100 {
		t.Errorf("the size asked for was not taken: %d cols", cols)
	}
}

func TestRestoreRefusesWhatItCannotRebuild(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "t.json")
	_, c := startServer(t, withState(file))
	err := c.Call(t.Context(), "restore", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "no saved state") {
		t.Errorf("no state file: %v", err)
	}
	writeState(t, file, &sessionstate.State{Version: sessionstate.Version, Layout: `active=0; tab "" focus=1 right(0.5 1 9)`,
		Panes: []sessionstate.Pane{{ID: 1, Argv: []string{"sleep", "1"}}}})
	err = c.Call(t.Context(), "restore", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "inconsistent: its layout holds panes [1 9], its list 1 panes") {
		t.Errorf("a layout naming a pane the list lacks: %v", err)
	}
	writeState(t, file, &sessionstate.State{Version: sessionstate.Version, Layout: `active=0; tab "" focus=1 right(1.5 1 2)`,
		Panes: []sessionstate.Pane{{ID: 1, Argv: []string{"sleep", "1"}}, {ID: 2, Argv: []string{"sleep", "1"}}}})
	err = c.Call(t.Context(), "restore", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "a split ratio strictly between 0 and 1") {
		t.Errorf("a bad layout: %v", err)
	}
	_, plain := startServer(t)
	err = plain.Call(t.Context(), "restore", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "keeps no state file") {
		t.Errorf("a server without a state file: %v", err)
	}
}
