package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/sessionstate"
)

// jsonLen is what json.Marshal makes of a string, for any string.
func TestJSONLenIsWhatMarshalMakes(t *testing.T) {
	pieces := []string{"a", "─", "\"", "\\", "<", ">", "&", "\n", "\t", "\r", "\b", "\f", "\x00", "\x1b", "\x7f",
		"\u2028", "\u2029", "é", "😀", "\xff", "\xe2\x94", "\u009b", " "}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var b strings.Builder
		for range r.IntN(20) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		enc, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := jsonLen(s); got != len(enc) {
			t.Fatalf("jsonLen(%q) = %d, json.Marshal makes %d bytes (%s)", s, got, len(enc), enc)
		}
	}
	lines := []string{"a<b", "", "─"}
	enc, _ := json.Marshal(lines)
	if got := linesJSONLen(lines); got != len(enc) {
		t.Errorf("linesJSONLen = %d, want %d", got, len(enc))
	}
	if got := linesJSONLen(nil); got != 2 {
		t.Errorf("linesJSONLen(nil) = %d, want 2 ([])", got)
	}
}

// A history too large for an answer is refused before it is sent, saying
// how many of its last lines would fit; that many are then read. (Here the
// limit is lowered to 64 KiB; the real one is 64 MiB.)
func TestReadPaneTooLargeSaysWhatFits(t *testing.T) {
	t.Parallel()
	_, c := startServer(t, func(cfg *Config) { cfg.tune.maxResult = 64 << 10 })
	newPane(t, c, "sh", "-c", `i=0; while [ $i -lt 2000 ]; do echo "line $i <──────────────────────────────>"; i=$((i+1)); done; echo all-printed; exec sleep 600`)
	waitLine(t, c, 1, `^all-printed$`)
	err := c.Call(t.Context(), "read_pane", proto.ReadPaneParams{Pane: 1, All: true}, nil)
	var pe *proto.Error
	if !errors.As(err, &pe) || pe.Code != proto.CodeAnswerTooLarge {
		t.Fatalf("read_pane --all over the limit: %v, want answer_too_large", err)
	}
	var fit int
	_, after, _ := strings.Cut(pe.Message, "ask for the last ")
	if _, serr := fmt.Sscanf(after, "%d lines", &fit); serr != nil || fit < 100 || fit >= 2000 {
		t.Fatalf("the refusal should say how many last lines fit: %q", pe.Message)
	}
	if !strings.Contains(pe.Message, "read_pane: pane 1's history of ") || !strings.Contains(pe.Message, fmt.Sprintf("(scrollback %d, read-pane --scrollback %d)", fit, fit)) {
		t.Errorf("refusal: %q", pe.Message)
	}
	var r proto.ReadPaneResult
	if err := c.Call(t.Context(), "read_pane", proto.ReadPaneParams{Pane: 1, Scrollback: fit}, &r); err != nil {
		t.Fatalf("read_pane of the %d lines said to fit: %v", fit, err)
	}
	if len(r.History) != fit {
		t.Errorf("%d history lines, want %d", len(r.History), fit)
	}
	if err := c.Call(t.Context(), "read_pane", proto.ReadPaneParams{Pane: 1, Scrollback: fit + 1}, nil); !errors.As(err, &pe) || pe.Code != proto.CodeAnswerTooLarge {
		t.Errorf("read_pane of one line more than fits: %v, want answer_too_large", err)
	}
}

// A title is one line of at most proto.MaxTitle bytes wherever it comes
// from: open_pane refuses a longer one, saying so; a longer one a program
// sets (OSC 2) or a state file holds is clipped, with "…".
func TestTitlesAreBounded(t *testing.T) {
	t.Parallel()
	_, c := startServer(t)
	newPane(t, c, "sleep", "600")
	huge := strings.Repeat("t", 120<<10)
	err := c.Call(t.Context(), "open_pane", proto.OpenPaneParams{Layout: "tab", Argv: []string{"sleep", "600"}, Title: huge, NoWait: true}, nil)
	want := fmt.Sprintf("open_pane: title is %d bytes, over the 2048 a title may be (one line, shown in borders and tables)", len(huge))
	var pe *proto.Error
	if !errors.As(err, &pe) || pe.Code != proto.CodeBadParams || pe.Message != want {
		t.Fatalf("open_pane with a 120 KB title: %v, want bad_params %q", err, want)
	}
	most := strings.Repeat("é", proto.MaxTitle/2)
	var op proto.OpenPaneResult
	call(t, c, "open_pane", proto.OpenPaneParams{Layout: "tab", Argv: []string{"sleep", "600"}, Title: most, NoWait: true}, &op)

	// The terminal keeps an OSC string of up to 4 KiB: a program's title of
	// 3000 bytes is kept, and clipped where melmux shows it.
	call(t, c, "open_pane", proto.OpenPaneParams{Layout: "tab", Argv: []string{"sh", "-c", `printf '\033]2;'; i=0; while [ $i -lt 600 ]; do printf 'ab─'; i=$((i+1)); done; printf '\007titled\n'; exec sleep 600`}}, nil)
	waitLine(t, c, 3, `^titled$`)
	var panes []proto.PaneInfo
	call(t, c, "list_panes", nil, &panes)
	titles := map[int]string{}
	for _, p := range panes {
		titles[p.ID] = p.Title
	}
	if titles[op.ID] != most {
		t.Errorf("a title of exactly %d bytes changed: %d bytes", len(most), len(titles[op.ID]))
	}
	program := titles[3]
	if len(program) > proto.MaxTitle || len(program) < proto.MaxTitle-8 || !strings.HasSuffix(program, "…") || !strings.HasPrefix(program, "ab─ab─") || !utf8.ValidString(program) {
		t.Errorf("the program's 3000-byte title shows as %d bytes: %.40q…%q", len(program), program, program[max(0, len(program)-12):])
	}
	var rp proto.ReadPaneResult
	call(t, c, "read_pane", proto.ReadPaneParams{Pane: 3}, &rp)
	if rp.Title != program {
		t.Errorf("read_pane's title is %d bytes, list_panes' %d", len(rp.Title), len(program))
	}
}

// A state file holding a 5 MB title (written before titles were bounded,
// or by hand; one of 50 MB broke list_panes) restores with the title
// clipped and says so.
func TestRestoredTitleIsClipped(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "t.json")
	dir := t.TempDir()
	writeState(t, file, &sessionstate.State{Version: sessionstate.Version, Saved: time.Now(), Cols: 80, Rows: 24,
		Layout: `active=0; tab "" focus=1 1`,
		Panes:  []sessionstate.Pane{{ID: 1, Argv: []string{"sleep", "600"}, Cwd: dir, Title: strings.Repeat("x", 5<<20)}}})
	_, c := startServer(t, withState(file))
	var res proto.RestoreResult
	call(t, c, "restore", nil, &res)
	if want := "its saved title of 5242880 bytes is clipped to the 2048 a title may be"; !strings.Contains(res.Panes[0].Note, want) {
		t.Errorf("restore's note %q, want %q", res.Panes[0].Note, want)
	}
	var panes []proto.PaneInfo
	call(t, c, "list_panes", nil, &panes)
	if len(panes) != 1 || len(panes[0].Title) != proto.MaxTitle || !strings.HasSuffix(panes[0].Title, "x…") {
		t.Fatalf("list_panes after restoring a 5 MB title: %d panes, title of %d bytes", len(panes), len(panes[0].Title))
	}
}

func init() {
	register(&Command{Name: "test_long_error", Run: func(ctx context.Context, s *Server, raw json.RawMessage) (any, error) {
		return nil, errorf(proto.CodeFailed, "%s", strings.Repeat("screen row ", 300_000))
	}})
}

// An error's message over maxErrorMessage (one may carry a screen of
// 2000x1000) is cut, saying so, and the connection goes on.
func TestLongErrorMessageIsCut(t *testing.T) {
	t.Parallel()
	_, c := startServer(t)
	err := c.Call(t.Context(), "test_long_error", nil, nil)
	var pe *proto.Error
	if !errors.As(err, &pe) || len(pe.Message) > maxErrorMessage+64 || !strings.HasSuffix(pe.Message, " … (the rest of this message is cut)") || !strings.HasPrefix(pe.Message, "screen row screen row") {
		t.Fatalf("a 3.3 MB error message came back as %d bytes ending %q", len(pe.Message), pe.Message[max(0, len(pe.Message)-40):])
	}
	var panes []proto.PaneInfo
	call(t, c, "list_panes", nil, &panes)
}
