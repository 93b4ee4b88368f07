package term

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/melmux/melmux/bench/streams"
	"github.com/melmux/melmux/internal/tmuxtest"
)

// everydayShapes are the streams of bench/streams that clear a screen with
// content, scroll a region, save and restore the cursor and scroll back:
// the model of the screen takes all of them.
var everydayShapes = []string{"watch", "homeclear", "logclear", "region", "ri"}

// shapeStream is about size bytes of the stream kind, with a PTY's line
// ends.
func shapeStream(t testing.TB, kind string, size int) []byte {
	t.Helper()
	b, err := streams.Generate(kind, size)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestShapesAgreeWithTmux runs each everyday shape through tmux and through
// a Terminal that takes its fast paths (each stream is long enough to start
// a model of the screen), and compares the screen, history and cursor.
func TestShapesAgreeWithTmux(t *testing.T) {
	tmuxtest.Require(t)
	for _, kind := range everydayShapes {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			raw := shapeStream(t, kind, 48<<10)
			file := filepath.Join(t.TempDir(), kind)
			if err := os.WriteFile(file, raw, 0o600); err != nil {
				t.Fatal(err)
			}
			tm := tmuxtest.CaptureStream(t, file, 200, 50)
			term := New(200, 50, Options{Scrollback: 100000})
			term.Write(onlcr(raw))
			tmuxtest.CompareRows(t, "screen", tm.Screen, term.Lines(), nil)
			tmuxtest.CompareRows(t, "history+screen", tm.All, append(term.History(-1), term.Lines()...), nil)
			if c := term.Cursor(); c.X != min(tm.CursorX, 199) || c.Y != tm.CursorY {
				t.Errorf("cursor %d,%d, tmux %d,%d", c.X, c.Y, tm.CursorX, tm.CursorY)
			}
			t.Logf("%s: %d rows of history and screen; the model took %d of %d bytes", kind, len(tm.All), term.fastBytes, len(onlcr(raw)))
		})
	}
}

// TestFastPathTakesShapes checks that the model of the screen, not vt10x,
// lays out the everyday shapes, so that the comparisons with the plain path
// compare two different paths and the shapes go at the fast path's speed.
func TestFastPathTakesShapes(t *testing.T) {
	for _, kind := range everydayShapes {
		in := onlcr(shapeStream(t, kind, 256<<10))
		tm := New(200, 50, Options{})
		for p := in; len(p) > 0; {
			n := min(64<<10, len(p))
			tm.Write(p[:n])
			p = p[n:]
		}
		if tm.fastBytes < uint64(len(in))*95/100 {
			t.Errorf("%s: the model took %d of %d bytes, want at least 95%%", kind, tm.fastBytes, len(in))
		}
		t.Logf("%s: the model took %.1f%% of the input", kind, float64(tm.fastBytes)*100/float64(len(in)))
	}
}
