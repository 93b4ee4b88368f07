package ui

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/melmux/melmux/pane/term"
)

// Frames drawn over earlier ones show what the same frame drawn on a fresh
// screen shows: a Painter skips a pane whose snapshot it drew last frame in
// the same place, and sends tcell only the cells that differ from its
// buffer (changedSpan, putCell); nothing of an earlier frame may stay
// behind — not a wide rune's half, a combining mark, a style, an overlay,
// another layout's pane. Random frames mix ASCII runs, wide runes,
// combining marks, controls, colours, three layouts, copy-mode marks,
// exited panes, the help overlay and the prompt's choices; a pane keeps its
// last snapshot (the same pointer, as the server passes a quiet pane's)
// half the time.
func TestDrawOverEqualsFresh(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	words := []string{"ls", "日本", "é", "e\u0301", "👍", "x", "  ", "\x7f", "\u0085", "abc def", "中文字", "ok"}
	styles := []term.Cell{{}, {FG: term.Indexed(2)}, {FG: term.Indexed(1), Attr: term.AttrBold},
		{BG: term.RGB(10, 20, 30)}, {Attr: term.AttrReverse}, {FG: term.Indexed(2)}}
	randomScreen := func(w, h int) *term.Screen {
		sc := screenOf(w, h)
		for y := range sc.Cells {
			x := 0
			for x < w && rng.Intn(8) > 0 {
				x = putText(sc.Cells[y], x, words[rng.Intn(len(words))], styles[rng.Intn(len(styles))])
			}
		}
		return sc
	}
	over := newSim(t, W, H)
	var painter Painter
	last := map[int]*term.Screen{} // by pane id: the snapshot of the frame before
	for frame := range 400 {
		var sc *Scene
		switch rng.Intn(3) {
		case 0:
			sc = scene(nil, pane(1, Rect{0, 0, W, H - 1}, true, "bash"))
		case 1:
			sc = scene(nil, pane(1, Rect{0, 0, 20, H - 1}, false, "bash"), pane(2, Rect{21, 0, 19, H - 1}, true, "vim"))
			sc.Separators = []Rect{{20, 0, 1, H - 1}}
		default:
			sc = scene(nil, pane(1, Rect{0, 0, W, 5}, true, "bash"), pane(2, Rect{0, 5, W, 6}, false, "htop"))
		}
		for i := range sc.Panes {
			p := &sc.Panes[i]
			if old := last[p.ID]; old != nil && old.Cols == p.Content.W && old.Rows == p.Content.H && rng.Intn(2) == 0 {
				p.Screen = old
			} else {
				p.Screen = randomScreen(p.Content.W, p.Content.H)
			}
			last[p.ID] = p.Screen
			p.Exited = rng.Intn(6) == 0
		}
		if rng.Intn(5) == 0 {
			p := &sc.Panes[0]
			p.Copy = &CopyView{Rows: p.Screen.Cells, Position: "[3/40]"}
		}
		sc.Help = rng.Intn(8) == 0
		if rng.Intn(8) == 0 {
			sc.Prompt = &PromptView{Label: ":", Text: "kill", Choices: []string{"kill-pane", "kill-server"}, Choice: -1}
		}
		if rng.Intn(12) == 0 {
			// The terminal changes size (the scene keeps its own: the
			// rest of a larger terminal stays blank).
			if w, _ := over.Size(); w == W {
				over.SetSize(W+3, H+1)
			} else {
				over.SetSize(W, H)
			}
		}
		painter.Draw(over, sc)
		fresh := tcell.NewSimulationScreen("UTF-8")
		if err := fresh.Init(); err != nil {
			t.Fatal(err)
		}
		fresh.SetSize(over.Size())
		Draw(fresh, sc)
		if d := differences(fresh, over); d != "" {
			fresh.Fini()
			t.Fatalf("frame %d drawn over the frames before differs from it drawn fresh:\n%s", frame, d)
		}
		fresh.Fini()
	}
}

// text is what a cell shows; one never drawn shows a blank.
func text(c tcell.SimCell) string {
	if len(c.Runes) == 0 {
		return " "
	}
	return string(c.Runes)
}

// differences lists the cells two simulation screens display differently
// after Show: text and style.
func differences(want, got tcell.SimulationScreen) string {
	wc, w, _ := want.GetContents()
	gc, _, _ := got.GetContents()
	var b strings.Builder
	for i := range wc {
		if i%w > 0 && widths.StringWidth(text(wc[i-1])) == 2 && text(wc[i-1]) == text(gc[i-1]) {
			// The cell is the right half of the same wide rune in both;
			// the simulation keeps whatever it showed there before.
			continue
		}
		a, g := wc[i], gc[i]
		if text(a) != text(g) || a.Style != g.Style {
			fmt.Fprintf(&b, "(%d,%d): %q %s, want %q %s\n", i%w, i/w, text(g), describe(g.Style), text(a), describe(a.Style))
		}
	}
	return b.String()
}

// putCounter counts what a frame sends tcell, and reads back from it,
// inside a rectangle.
type putCounter struct {
	tcell.SimulationScreen
	in         Rect
	puts, gets int
}

func (c *putCounter) Get(x, y int) (string, tcell.Style, int) {
	if c.in.Contains(x, y) {
		c.gets++
	}
	return c.SimulationScreen.Get(x, y)
}

func (c *putCounter) Put(x, y int, str string, style tcell.Style) (string, int) {
	if c.in.Contains(x, y) {
		c.puts++
	}
	return c.SimulationScreen.Put(x, y, str, style)
}

func (c *putCounter) PutStrStyled(x, y int, str string, style tcell.Style) {
	if c.in.Contains(x, y) {
		c.puts++
	}
	c.SimulationScreen.PutStrStyled(x, y, str, style)
}

// A pane whose snapshot was drawn last frame in the same place costs the
// next frame nothing, not even a look at the screen's cells; a new snapshot
// of it is drawn where it differs.
func TestPainterSkipsWhatItDrew(t *testing.T) {
	sc := scene(nil, pane(1, Rect{0, 0, 20, H - 1}, false, "bash", "left side", "日本 and more"),
		pane(2, Rect{21, 0, 19, H - 1}, true, "vim", "right side"))
	sc.Separators = []Rect{{20, 0, 1, H - 1}}
	s := &putCounter{SimulationScreen: newSim(t, W, H), in: sc.Panes[0].Content}
	var p Painter
	p.Draw(s, sc)
	if s.puts == 0 {
		t.Fatal("the first frame put nothing of pane 1")
	}
	s.puts, s.gets = 0, 0
	p.Draw(s, sc)
	if s.puts != 0 || s.gets != 0 {
		t.Fatalf("the same snapshot drawn again: %d puts and %d gets in pane 1", s.puts, s.gets)
	}
	next := *sc
	next.Panes = append([]PaneView(nil), sc.Panes...)
	next.Panes[0].Screen = screenOf(sc.Panes[0].Content.W, sc.Panes[0].Content.H, "left side", "changed")
	p.Draw(s, &next)
	if s.puts != 1 {
		t.Fatalf("one changed row of pane 1 took %d puts, want 1", s.puts)
	}
}
