package term

import (
	"strings"
	"unicode/utf8"

	"github.com/hinshun/vt10x"
)

// vt10x glyph mode bits (state.go:13-21 of the pinned version).
const (
	vtReverse   = 1 << 0
	vtUnderline = 1 << 1
	vtBold      = 1 << 2
	vtGfx       = 1 << 3 // the DEC line-drawing character set is selected (pen only)
	vtItalic    = 1 << 4
	vtBlink     = 1 << 5
)

// readGlyphsLocked copies row y out of vt10x, or out of the model of the
// screen while there is one.
func (t *Terminal) readGlyphsLocked(y int) ([]vt10x.Glyph, bool) {
	g := t.glyphBuf[:0]
	if m := t.model; m != nil {
		s := m.slot(y)
		g = append(g, m.ring[s]...)
		t.glyphBuf = g
		return g, true
	}
	if f := t.frozen; f != nil {
		g = f.rows[y].glyphs(g)
		t.glyphBuf = g
		return g, true
	}
	ok := t.guardLocked(func() {
		for x := 0; x < t.cols; x++ {
			g = append(g, t.vt.Cell(x, y))
		}
	})
	t.glyphBuf = g
	return g, ok && len(g) == t.cols
}

// rowCellsLocked converts row y to cells appended to dst: clusters decoded,
// wide characters paired with their continuation, and a half of a wide
// character left behind by an overwrite shown as a blank, as tmux clears it.
func (t *Terminal) rowCellsLocked(y int, dst []Cell) ([]Cell, bool, bool) {
	g, ok := t.readGlyphsLocked(y)
	if !ok {
		return dst, false, false
	}
	n := len(g)
	for x := 0; x < n; x++ {
		gl := g[x]
		c := Cell{Rune: gl.Char, Width: 1}
		fg, bg := gl.FG, gl.BG
		if gl.Mode&vtReverse != 0 {
			// vt10x swapped them when writing; the Cell keeps the pen's colours.
			fg, bg = bg, fg
		}
		c.FG, c.BG = convColor(fg), convColor(bg)
		if gl.Mode != 0 {
			c.Attr = convAttr(gl.Mode)
		}
		switch ch := gl.Char; {
		case ch >= 0x20 && ch < 0x300:
			// Narrow and never interned: the common case.
		case ch == 0 || ch == contRune:
			c.Rune = ' ' // blank, or an orphaned continuation (a paired one is consumed below)
		default:
			c.Rune, c.Comb = t.clusters.split(ch)
			if runeWidth(c.Rune) == 2 {
				if x+1 < n && g[x+1].Char == contRune {
					c.Width = 2
					dst = append(dst, c)
					next := c
					next.Rune, next.Comb, next.Width = 0, "", 0
					dst = append(dst, next)
					x++
					continue
				}
				c.Rune, c.Comb = ' ', ""
			}
		}
		dst = append(dst, c)
	}
	wrapped := n > 0 && g[n-1].Mode&vtAttrWrap != 0
	return dst, wrapped, true
}

func convColor(c vt10x.Color) Color {
	switch {
	case c >= vt10x.DefaultFG:
		return ColorDefault
	case c < 256:
		return Indexed(uint8(c))
	default:
		return RGB(uint8(c>>16), uint8(c>>8), uint8(c))
	}
}

func convAttr(m int16) Attr {
	var a Attr
	if m&vtBold != 0 {
		a |= AttrBold
	}
	if m&vtItalic != 0 {
		a |= AttrItalic
	}
	if m&vtUnderline != 0 {
		a |= AttrUnderline
	}
	if m&vtBlink != 0 {
		a |= AttrBlink
	}
	if m&vtReverse != 0 {
		a |= AttrReverse
	}
	return a
}

// blankGlyph reports whether a vt10x cell shows nothing: a space or nothing
// on the default background, with no attribute that would show on a space
// (the foreground colour of a space is invisible, and tmux's erase keeps
// only the background).
func blankGlyph(g vt10x.Glyph) bool {
	return (g.Char == 0 || g.Char == ' ') && g.BG >= vt10x.DefaultFG &&
		g.Mode&(vtReverse|vtUnderline) == 0
}

// Snapshot returns a copy of the screen: cells, cursor, title and modes.
func (t *Terminal) Snapshot() *Screen {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.flushLocked()
	s := &Screen{Cols: t.cols, Rows: t.rows, Title: t.title}
	all := make([]Cell, 0, t.cols*t.rows)
	s.Cells = make([][]Cell, t.rows)
	for y := 0; y < t.rows; y++ {
		start := len(all)
		var ok bool
		all, _, ok = t.rowCellsLocked(y, all)
		for !ok && len(all)-start < t.cols {
			all = append(all, Cell{Rune: ' ', Width: 1})
		}
		s.Cells[y] = all[start : start+t.cols : start+t.cols]
	}
	s.Cursor = t.cursorLocked()
	s.Modes = t.modesLocked()
	return s
}

// Lines returns the screen rows as text: trailing spaces trimmed, a wide
// character once, combining marks kept.
func (t *Terminal) Lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.flushLocked()
	return t.linesLocked()
}

// linesLocked is Lines with t.mu held and the scanner's output flushed.
func (t *Terminal) linesLocked() []string {
	out := make([]string, t.rows)
	for y := 0; y < t.rows; y++ {
		cells, _, _ := t.rowCellsLocked(y, t.scratch[:0])
		t.scratch = cells
		out[y] = cellsText(cells, &t.textBuf)
	}
	return out
}

// cellsText renders cells as text with trailing spaces trimmed, using buf as
// scratch space.
func cellsText(cells []Cell, buf *[]byte) string {
	b := (*buf)[:0]
	for _, c := range cells {
		if c.Width == 0 {
			continue
		}
		r := c.Rune
		if r == 0 {
			r = ' '
		}
		b = utf8.AppendRune(b, r)
		b = append(b, c.Comb...)
	}
	*buf = b
	return strings.TrimRight(string(b), " ")
}
