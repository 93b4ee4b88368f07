package ui

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/gdamore/tcell/v2/terminfo"
)

// A keystroke's echo sends the echoed cell and the cursor, not the panes'
// titles and the status line again: tcell sends a cell whose text was
// changed during the frame even when the frame ends with what the terminal
// shows, and the rule drawn under each title and the blanks under the
// status line did that to every title and status cell, about 200 bytes a
// key against tmux's few.
func TestAnEchoSendsOnlyWhatChanged(t *testing.T) {
	ti, err := terminfo.LookupTerminfo("xterm-256color")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	tty := &discardTty{w: 200, h: 50, stop: make(chan struct{}), keep: &out}
	s, err := tcell.NewTerminfoScreenFromTtyTerminfo(tty, ti)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	defer s.Fini()
	var pt Painter
	sc := fourPanes(0)
	sc.Message = "saved"
	pt.Draw(s, sc)
	if !strings.Contains(out.String(), " 1 agent · busy ") {
		t.Fatalf("the first frame has no title: %q", out.String())
	}
	const typed = "typed"
	for i, r := range typed {
		out.Reset()
		// The server hands a pane that printed a new snapshot.
		c := sc.Panes[0].Content
		next := colourfulScreen(c.W, c.H, 1)
		for j, r := range typed[:i+1] {
			next.Cells[5][j].Rune = r
		}
		next.Cursor.X, next.Cursor.Y = i+1, 5
		sc.Panes[0].Screen = next
		pt.Draw(s, sc)
		got := out.String()
		if !strings.ContainsRune(got, r) {
			t.Fatalf("key %d: the echo %q was not sent: %q", i, r, got)
		}
		for _, old := range []string{"agent", "busy", "[main]", "agents(4)", "saved", "─"} {
			if strings.Contains(got, old) {
				t.Errorf("key %d sent %q again (%d bytes): %q", i, old, len(got), got)
			}
		}
		if len(got) > 80 {
			t.Errorf("key %d: %d bytes for one cell and the cursor: %q", i, len(got), got)
		}
	}
}
