package ui

import (
	"bytes"
	"strings"
	"testing"

	"github.com/melmux/melmux/pane/term"
)

// A keystroke's echo sends the echoed cell and the cursor, not the panes'
// titles and the status line again: tcell sends a cell whose text was
// changed during the frame even when the frame ends with what the terminal
// shows, and the rule drawn under each title and the blanks under the
// status line did that to every title and status cell, about 200 bytes a
// key against tmux's few.
func TestAnEchoSendsOnlyWhatChanged(t *testing.T) {
	var out bytes.Buffer
	s, _ := terminfoScreen(t, 200, 50, &out)
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

// A pane's rows left as the last frame drew them are what a full drawing
// would put there, frame after frame: a row that changed, one that did not,
// the whole screen scrolled, a wide rune over two cells, the pane moved.
func TestFramesDrawingChangedRowsMatchAFullDrawing(t *testing.T) {
	const cols, rows = 100, 30
	painted := newSim(t, cols, rows)
	var pt Painter
	base := func(lines ...string) *term.Screen { return screenOf(48, 28, lines...) }
	left := Rect{0, 0, 49, 29}
	right := Rect{50, 0, 50, 29}
	scene := func(a *term.Screen, at Rect) *Scene {
		return &Scene{Cols: cols, Rows: rows, Session: "main",
			Tabs: []TabView{{Index: 0, Name: "t", Panes: 2, Active: true}},
			Panes: []PaneView{
				{ID: 1, Frame: at, Content: Rect{at.X, at.Y + 1, 48, 28}, Command: "sh", Focused: true, Screen: a},
				{ID: 2, Frame: Rect{at.X ^ 50, 0, 49, 29}, Content: Rect{at.X ^ 50, 1, 48, 28}, Command: "cat", Screen: base("other")},
			}}
	}
	frames := []*Scene{
		scene(base("$ ls", "a b c"), left),
		scene(base("$ ls", "a b c", "$ e"), left),
		scene(base("$ ls", "a b c", "$ ec"), left),
		scene(base("a b c", "$ ec", "x"), left),
		scene(base("a b c", "$ 日本", "x"), left),
		scene(base("a b c", "$ 日本", "x"), right),
		scene(base("a b", "$ 日本", "x"), right),
	}
	for i, sc := range frames {
		pt.Draw(painted, sc)
		full := newSim(t, cols, rows)
		Draw(full, sc)
		for y := 0; y < rows; y++ {
			for x := 0; x < cols; x++ {
				gs, gst, gw := painted.Get(x, y)
				ws, wst, ww := full.Get(x, y)
				if gs != ws || gst != wst || gw != ww {
					t.Fatalf("frame %d, cell %d,%d: %q %v %d, a full drawing has %q %v %d", i, x, y, gs, gst, gw, ws, wst, ww)
				}
			}
		}
	}
}
