package ui

import (
	"github.com/gdamore/tcell/v2"
	"github.com/mattn/go-runewidth"

	"github.com/melmux/melmux/pane/term"
)

// widths measures text we draw ourselves (titles, status line). It is fixed
// rather than read from the environment so that every client measures the
// same way the pane emulator does (ambiguous characters are narrow).
var widths = &runewidth.Condition{EastAsianWidth: false}

// asciiStr holds one-rune strings for ASCII so drawing plain text does not
// allocate a string per cell.
var asciiStr = func() (t [128]string) {
	for i := range t {
		t[i] = string(rune(i))
	}
	return t
}()

// Draw paints the scene on s and calls s.Show. It never fails: anything that
// does not fit is clipped.
func Draw(s tcell.Screen, sc *Scene) {
	var p Painter
	p.Draw(s, sc)
}

// Painter draws the frames of one screen, one after another, and remembers
// what each pane's content was drawn from. A pane whose screen is the very
// snapshot drawn last frame, in the same place, is not drawn again: the
// screen's buffer still holds it (nothing else writes there: clearGaps only
// blanks what no pane covers, and a frame with an overlay over the panes,
// or after one, draws everything). The server hands a quiet pane's last
// snapshot on (it takes a new one only when the pane printed), so a frame
// draws the panes that changed, the echo of a key the typed pane alone.
// The zero value is ready; a Painter belongs to one screen.
type Painter struct {
	w, h    int               // the screen's size at the last frame
	overlay bool              // the last frame drew over the panes
	drawn   map[int]paneDrawn // by pane id: what its content was drawn from
	next    map[int]paneDrawn // the frame being drawn's, swapped with drawn after it
}

// paneDrawn is everything drawContent draws from, for a pane outside copy
// mode: an equal one draws the same cells.
type paneDrawn struct {
	screen  *term.Screen
	content Rect
	clipped Rect
	exit    string // the exit marker, "" while the program runs
}

// Draw draws the scene onto s, as the function Draw does.
func (pt *Painter) Draw(s tcell.Screen, sc *Scene) {
	st := sc.StatusStyle.OrDefault()
	cols, rows := sc.Cols, sc.Rows
	w, h := s.Size()
	if cols <= 0 || cols > w || rows <= 0 || rows > h {
		cols, rows = w, h
	}
	bounds := Rect{0, 0, cols, rows - 1}
	overlay := sc.Help || sc.Agents != nil || sc.PaneNumbers || sc.Chooser != nil || rows > 1 && sc.Prompt != nil && len(sc.Prompt.Choices) > 0
	keep := pt.drawn != nil && w == pt.w && h == pt.h && !overlay && !pt.overlay
	if pt.next == nil {
		pt.next = make(map[int]paneDrawn, len(sc.Panes))
	}
	drawn := pt.next
	clear(drawn)
	// Every cell is written each frame (tcell sends only what changed), but
	// not twice: panes and separators draw their own blanks and only the
	// gaps between them, and any screen area beyond the scene, are cleared.
	clearGaps(s, sc, bounds, w, h)
	for i := range sc.Panes {
		p := &sc.Panes[i]
		drawTitle(s, p, st, bounds)
		if p.Copy != nil || p.Screen == nil {
			drawContent(s, p, bounds, nil)
			continue
		}
		d := paneDrawn{screen: p.Screen, content: p.Content, clipped: clip(p.Content, bounds)}
		if p.Exited {
			d.exit = exitText(p)
		}
		if old, ok := pt.drawn[p.ID]; !keep || !ok || old != d {
			// The rows of the snapshot drawn last that are still the same
			// are on the screen already: an echo draws its one row.
			var prev [][]term.Cell
			if keep && ok && old.screen != nil && old.content == d.content && old.clipped == d.clipped && old.exit == "" && d.exit == "" {
				prev = old.screen.Cells
			}
			drawContent(s, p, bounds, prev)
		}
		drawn[p.ID] = d
	}
	pt.w, pt.h, pt.overlay = w, h, overlay
	pt.drawn, pt.next = drawn, pt.drawn
	drawSeparators(s, sc, st, bounds)
	if rows > 0 {
		drawStatus(s, sc, st, cols, rows-1)
	}
	if sc.Agents != nil {
		drawAgents(s, sc, st, cols, rows-1)
	}
	drawTmuxOverlays(s, sc, st, cols, rows-1)
	if rows > 1 && sc.Prompt != nil && len(sc.Prompt.Choices) > 0 {
		drawChoices(s, sc.Prompt, st, cols, rows-2)
	}
	if sc.Help {
		drawHelp(s, sc, st, cols, rows-1)
	}
	placeCursor(s, sc, cols, rows)
	s.Show()
}

// clearGaps blanks every cell of the w x h screen that no title bar, pane
// content or separator covers, apart from the status row.
func clearGaps(s tcell.Screen, sc *Scene, b Rect, w, h int) {
	var spans [][2]int
	for y := 0; y < h; y++ {
		spans = spans[:0]
		if y == b.Y+b.H {
			spans = append(spans, [2]int{0, b.W}) // the status line draws itself
		}
		if y < b.Y+b.H {
			for i := range sc.Panes {
				// What drawTitle and drawContent write: the title row and
				// the content, not the whole frame, which might be larger.
				f := sc.Panes[i].Frame
				title := Rect{f.X, f.Y, f.W, min(f.H, 1)}
				for _, r := range [2]Rect{clip(title, b), clip(sc.Panes[i].Content, b)} {
					if y >= r.Y && y < r.Y+r.H {
						spans = append(spans, [2]int{r.X, r.X + r.W})
					}
				}
			}
			for _, sep := range sc.Separators {
				if r := clip(sep, b); y >= r.Y && y < r.Y+r.H {
					spans = append(spans, [2]int{r.X, r.X + r.W})
				}
			}
		}
		for x := 0; x < w; {
			next := w
			covered := false
			for _, sp := range spans {
				if x >= sp[0] && x < sp[1] {
					x, covered = sp[1], true
					break
				}
				if sp[0] > x && sp[0] < next {
					next = sp[0]
				}
			}
			if covered {
				continue
			}
			for ; x < next; x++ {
				s.Put(x, y, " ", tcell.StyleDefault)
			}
		}
	}
}

// clip intersects r with b.
func clip(r, b Rect) Rect {
	x0, y0 := max(r.X, b.X), max(r.Y, b.Y)
	x1, y1 := min(r.X+r.W, b.X+b.W), min(r.Y+r.H, b.Y+b.H)
	if x1 <= x0 || y1 <= y0 {
		return Rect{}
	}
	return Rect{x0, y0, x1 - x0, y1 - y0}
}

// putStr draws str from x on row y, stopping before maxX, and returns where it
// stopped. Wide runes that would straddle maxX are not drawn.
func putStr(s tcell.Screen, x, y, maxX int, str string, style tcell.Style) int {
	for _, r := range str {
		w := widths.RuneWidth(r)
		if w == 0 {
			continue // a lone combining mark or control: nothing to place
		}
		if x+w > maxX {
			break
		}
		if r < 128 {
			s.Put(x, y, asciiStr[r], style)
		} else {
			putCell(s, x, y, glyph(r), style)
		}
		x += w
	}
	return x
}

// boxGlyphs are the frames' and separators' runes as strings, drawn on
// every frame: tcell's SetContent would allocate two values a cell.
var boxGlyphs = map[rune]string{'─': "─", '│': "│", '┌': "┌", '┐': "┐", '└': "└", '┘': "┘",
	'├': "├", '┤': "┤", '┬': "┬", '┴': "┴", '┼': "┼"}

// glyph is the rune as a string, without allocating for a frame's runes.
func glyph(r rune) string {
	if g, ok := boxGlyphs[r]; ok {
		return g
	}
	return string(r)
}

// putCell puts one grapheme unless the screen holds it there in style.
func putCell(s tcell.Screen, x, y int, g string, style tcell.Style) {
	if str, st, _ := s.Get(x, y); str == g && st == style {
		return
	}
	s.Put(x, y, g, style)
}

var cursorStyles = [...]tcell.CursorStyle{
	term.CursorDefault:        tcell.CursorStyleDefault,
	term.CursorBlockBlink:     tcell.CursorStyleBlinkingBlock,
	term.CursorBlock:          tcell.CursorStyleSteadyBlock,
	term.CursorUnderlineBlink: tcell.CursorStyleBlinkingUnderline,
	term.CursorUnderline:      tcell.CursorStyleSteadyUnderline,
	term.CursorBarBlink:       tcell.CursorStyleBlinkingBar,
	term.CursorBar:            tcell.CursorStyleSteadyBar,
}

// placeCursor puts the terminal cursor where the person is typing: the
// prompt, the copy-mode cursor, or the focused pane's own cursor.
func placeCursor(s tcell.Screen, sc *Scene, cols, rows int) {
	if sc.Prompt != nil && rows > 0 {
		_, x := promptLayout(sc.Prompt, cols)
		s.SetCursorStyle(tcell.CursorStyleDefault)
		s.ShowCursor(min(x, cols-1), rows-1)
		return
	}
	p := sc.Focused()
	if sc.Help || sc.Agents != nil || sc.Chooser != nil || p == nil {
		s.HideCursor()
		return
	}
	var x, y int
	shape := tcell.CursorStyleDefault
	switch {
	case p.Copy != nil:
		x, y = p.Copy.CursorX, p.Copy.CursorY
	case p.Screen != nil && p.Screen.Cursor.Visible && !p.Screen.Modes.CursorHidden && !p.Exited:
		x, y = p.Screen.Cursor.X, p.Screen.Cursor.Y
		if int(p.Screen.Cursor.Shape) < len(cursorStyles) {
			shape = cursorStyles[p.Screen.Cursor.Shape]
		}
	default:
		s.HideCursor()
		return
	}
	if x < 0 || y < 0 || x >= p.Content.W || y >= p.Content.H || p.Content.Y+y >= rows-1 || p.Content.X+x >= cols {
		s.HideCursor()
		return
	}
	s.SetCursorStyle(shape)
	s.ShowCursor(p.Content.X+x, p.Content.Y+y)
}
