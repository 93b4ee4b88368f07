package term

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hinshun/vt10x"
)

// histLine is one line of scrollback, stored compactly: the text of its cells
// (a wide character once, its continuation implied; combining marks after
// their base) and run-length styles instead of one 32-byte Cell per column.
type histLine struct {
	text string
	runs []styleRun // nil when every cell has default style
	// starts holds the byte offset in text where each cell (a wide one
	// counted once) begins, only for a line that the widths of its runes
	// would split wrongly: one with a cell holding characters joined by a
	// zero width joiner (👨‍👩‍👧 is one cell, not three). nil otherwise.
	starts  []uint16
	cols    uint16 // screen width when the line was saved
	wrapped bool   // the line continued on the next one (auto-wrap)
}

// styleRun gives n consecutive cells (continuations counted) one style.
type styleRun struct {
	n      uint16
	attr   Attr
	fg, bg Color
}

// history is a ring of at most limit lines; limit 0 keeps none.
type history struct {
	limit    int
	lines    []histLine
	start, n int
	total    uint64 // lines ever pushed: only grows, even as the ring wraps or is cleared
	// scrolled counts the newest lines that scrolled into history (a line
	// feed, SU, a shrink), as tmux's hscrolled: those a grow pulls back. A
	// clear that scrolls the screen into history sets it to 0.
	scrolled int
}

func (h *history) push(l histLine) {
	if h.limit <= 0 {
		return
	}
	h.total++
	h.scrolled = min(h.scrolled+1, h.limit)
	if h.n < h.limit {
		if h.n < len(h.lines) {
			h.lines[(h.start+h.n)%len(h.lines)] = l
		} else {
			h.lines = append(h.lines, l)
		}
		h.n++
		return
	}
	h.lines[h.start] = l
	h.start = (h.start + 1) % len(h.lines)
}

// at returns line i, 0 being the oldest.
func (h *history) at(i int) *histLine {
	return &h.lines[(h.start+i)%len(h.lines)]
}

func (h *history) clear() {
	h.lines = nil
	h.start, h.n, h.scrolled = 0, 0, 0
}

// pop removes the newest n lines (n <= h.n) and returns them, oldest first.
func (h *history) pop(n int) []histLine {
	out := make([]histLine, n)
	for i := range n {
		l := h.at(h.n - n + i)
		out[i] = *l
		*l = histLine{} // the ring keeps no text it no longer holds
	}
	h.n -= n
	h.scrolled = max(h.scrolled-n, 0)
	return out
}

func (l *histLine) textTrimmed() string {
	return strings.TrimRight(l.text, " ")
}

// cells expands the line to at least width cells.
func (l *histLine) cells(width int) []Cell {
	width = max(width, int(l.cols))
	out := make([]Cell, 0, width)
	if l.starts != nil {
		for i, from := range l.starts {
			to := len(l.text)
			if i+1 < len(l.starts) {
				to = int(l.starts[i+1])
			}
			out = appendCluster(out, l.text[from:to])
		}
	} else {
		s := l.text
		for len(s) > 0 {
			r, n := utf8.DecodeRuneInString(s)
			s = s[n:]
			if runeWidth(r) == 0 && len(out) > 0 {
				last := len(out) - 1
				if out[last].Width == 0 && last > 0 {
					last--
				}
				out[last].Comb += string(r)
				continue
			}
			out = appendCluster(out, string(r))
		}
	}
	for len(out) < width {
		out = append(out, Cell{Rune: ' ', Width: 1})
	}
	x := 0
	for _, run := range l.runs {
		for i := 0; i < int(run.n) && x < len(out); i++ {
			out[x].Attr, out[x].FG, out[x].BG = run.attr, run.fg, run.bg
			x++
		}
	}
	return out
}

// appendCluster appends the cell (and continuation) of one cell's text: a
// base character and what joined it.
func appendCluster(out []Cell, s string) []Cell {
	r, n := utf8.DecodeRuneInString(s)
	if runeWidth(r) == 2 {
		return append(out, Cell{Rune: r, Comb: s[n:], Width: 2}, Cell{Width: 0})
	}
	return append(out, Cell{Rune: r, Comb: s[n:], Width: 1})
}

// joinsWide reports whether comb, the marks of one cell, holds a character
// that has a width of its own (one a zero width joiner brought in).
func joinsWide(comb string) bool {
	for _, r := range comb {
		if runeWidth(r) > 0 {
			return true
		}
	}
	return false
}

// cellStarts returns the offsets where the cells of text begin when its
// runes' widths split it, which is right up to the first joined cluster.
func cellStarts(text []byte, dst []uint16) []uint16 {
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRune(text[i:])
		if runeWidth(r) > 0 || i == 0 {
			dst = append(dst, uint16(i))
		}
		i += n
	}
	return dst
}

// captureRowsLocked saves screen rows y0..y0+n-1 to history.
func (t *Terminal) captureRowsLocked(y0, n int) {
	if t.h.limit <= 0 {
		return
	}
	t.flushLocked()
	n = min(n, t.rows-y0)
	for y := y0; y < y0+n; y++ {
		g, ok := t.readGlyphsLocked(y)
		if !ok {
			return
		}
		t.h.push(t.encodeGlyphsLocked(g, len(g)))
	}
}

// encodeGlyphsLocked builds the compact form of a row of cols cells
// straight from vt10x glyphs, g being the first of them (the rest are blank
// as vt10x leaves them): trailing blank default cells are dropped, styles
// become runs, and only rows with a non-default style allocate runs. It runs
// once per scrolled line, so it avoids building Cells.
func (t *Terminal) encodeGlyphsLocked(g []vt10x.Glyph, cols int) histLine {
	n := len(g)
	end := n
	for end > 0 && blankGlyph(g[end-1]) {
		end--
	}
	buf := t.textBuf[:0]
	runs := t.runBuf[:0]
	var starts []uint16 // once a joined cluster was met: where each cell begins
	styled := false
	for x := 0; x < end; x++ {
		if gl := g[x]; gl.Mode&(vtReverse|vtUnderline|vtBold|vtItalic|vtBlink) != 0 || gl.FG < vt10x.DefaultFG || gl.BG < vt10x.DefaultFG {
			styled = true
			break
		}
	}
	var last vt10x.Glyph // the raw style of the last cell added to a run
	for x := 0; x < end; x++ {
		gl := g[x]
		cells := 1
		if starts != nil {
			starts = append(starts, uint16(len(buf)))
		}
		switch ch := gl.Char; {
		case ch >= 0x20 && ch < 0x80:
			buf = append(buf, byte(ch))
		case ch >= 0x80 && ch < 0x300:
			buf = utf8.AppendRune(buf, ch)
		case ch == 0 || ch == contRune:
			buf = append(buf, ' ')
		default:
			base, comb := t.clusters.split(ch)
			if runeWidth(base) == 2 {
				if x+1 < n && g[x+1].Char == contRune {
					cells = 2
				} else {
					base, comb = ' ', ""
				}
			}
			if starts == nil && joinsWide(comb) {
				starts = append(cellStarts(buf, t.startBuf[:0]), uint16(len(buf)))
			}
			buf = utf8.AppendRune(buf, base)
			buf = append(buf, comb...)
		}
		if styled {
			k := len(runs) - 1
			if k >= 0 && gl.Mode == last.Mode && gl.FG == last.FG && gl.BG == last.BG && runs[k].n < 0xfff0 {
				// The same raw style as the cell before: the same run
				// (a shortcut for the comparison below).
				runs[k].n += uint16(cells)
				x += cells - 1
				continue
			}
			last = gl
			fg, bg := gl.FG, gl.BG
			if gl.Mode&vtReverse != 0 {
				fg, bg = bg, fg
			}
			r := styleRun{n: uint16(cells), attr: convAttr(gl.Mode), fg: convColor(fg), bg: convColor(bg)}
			if k >= 0 && runs[k].attr == r.attr && runs[k].fg == r.fg && runs[k].bg == r.bg && runs[k].n < 0xfff0 {
				runs[k].n += r.n
			} else {
				runs = append(runs, r)
			}
		}
		x += cells - 1
	}
	t.textBuf, t.runBuf = buf, runs
	var kept []styleRun
	if len(runs) > 0 {
		kept = append([]styleRun(nil), runs...)
	}
	var keptStarts []uint16
	if starts != nil {
		keptStarts = append([]uint16(nil), starts...)
		t.startBuf = starts
	}
	return histLine{text: string(buf), runs: kept, starts: keptStarts, cols: uint16(cols), wrapped: n == cols && n > 0 && g[n-1].Mode&vtAttrWrap != 0}
}

// encodePlainLocked is encodeGlyphsLocked for a row whose cells all hold
// printable ASCII in vt10x's default pen (or are blank): its text alone.
func (t *Terminal) encodePlainLocked(g []vt10x.Glyph, cols int) histLine {
	wrapped := len(g) == cols && cols > 0 && g[cols-1].Mode&vtAttrWrap != 0
	for len(g) > 0 && g[len(g)-1].Char == ' ' {
		g = g[:len(g)-1]
	}
	buf := t.textBuf[:0]
	for i := range g {
		buf = append(buf, byte(g[i].Char))
	}
	t.textBuf = buf
	return histLine{text: string(buf), cols: uint16(cols), wrapped: wrapped}
}

// pullHistoryLocked brings the newest n lines of history back to the top of
// the primary screen after it grew by at least n rows, as tmux does: the
// screen moves down n rows (into the blank rows the grow added), the lines
// are drawn above it, and the cursor moves down with the text. The pen must
// be the default one (the caller sets the program's again); gfx says the
// program has the line-drawing character set selected, which is put back.
// The program's saved cursor is left alone. A pulled line keeps its wrap to
// the next pulled line (autowrap on), not to the first row below them.
func (t *Terminal) pullHistoryLocked(n int, gfx bool) {
	t.syncCursorLocked()
	lines := t.h.pop(n)
	if gfx {
		t.out = append(t.out, "\x1b(B"...)
	}
	t.out = appendCSI1(t.out, n, 'T')
	joined := false // the previous line wraps onto this one
	for i := range lines {
		if !joined {
			t.out = appendCUP(t.out, i, 0)
		}
		joined = lines[i].wrapped && i+1 < n && t.vmode&vt10x.ModeWrap != 0
		t.appendHistLineLocked(&lines[i], joined)
	}
	t.out = append(t.out, "\x1b[0m"...)
	if gfx {
		t.out = append(t.out, "\x1b(0"...)
	}
	t.out = appendCUP(t.out, t.cy+n, t.cx)
	t.curValid = false
}

// appendHistLineLocked queues the cells of l for vt10x at the cursor, the
// start of a row, each with its style; trailing blanks are left out unless
// the line wraps (the next write must wrap). It appends to t.out itself,
// since interning a cluster may flush t.out.
func (t *Terminal) appendHistLineLocked(l *histLine, wraps bool) {
	cells := l.cells(t.cols)[:t.cols]
	end := len(cells)
	for !wraps && end > 0 && cells[end-1] == (Cell{Rune: ' ', Width: 1}) {
		end--
	}
	var style vt10x.Glyph
	for x := 0; x < end; x++ {
		c := &cells[x]
		if c.Width == 0 {
			continue // written with its wide cell
		}
		if g := c.glyphStyle(); x == 0 || g != style {
			style = g
			t.out = appendSGRForGlyph(t.out, g, false)
		}
		code := c.Rune
		switch {
		case c.Width == 2 && x+1 >= t.cols:
			code = ' ' // a wide character the narrower screen cuts
		case code == 0:
			code = ' '
		case c.Comb != "":
			if cl, ok := t.clusters.intern(string(c.Rune) + c.Comb); ok {
				code = cl
			}
		default:
			code = t.clusters.code(code)
		}
		t.out = utf8.AppendRune(t.out, code)
		if c.Width == 2 && code != ' ' {
			t.out = utf8.AppendRune(t.out, contRune)
		}
	}
}

// glyphStyle is the vt10x pen that writes a cell with c's style.
func (c *Cell) glyphStyle() vt10x.Glyph {
	g := vt10x.Glyph{FG: vtColor(c.FG, vt10x.DefaultFG), BG: vtColor(c.BG, vt10x.DefaultBG)}
	for _, m := range [...]struct {
		a   Attr
		bit int16
	}{{AttrBold, vtBold}, {AttrItalic, vtItalic}, {AttrUnderline, vtUnderline}, {AttrBlink, vtBlink}, {AttrReverse, vtReverse}} {
		if c.Attr&m.a != 0 {
			g.Mode |= m.bit
		}
	}
	return g
}

// vtColor is convColor backwards; def is vt10x's default of the kind.
func vtColor(c Color, def vt10x.Color) vt10x.Color {
	if i, ok := c.Index(); ok {
		return vt10x.Color(i)
	}
	if r, g, b, ok := c.RGB(); ok {
		return vt10x.Color(r)<<16 | vt10x.Color(g)<<8 | vt10x.Color(b)
	}
	return def
}

// appendCUP appends a cursor move to row y, column x (0-based).
func appendCUP(b []byte, y, x int) []byte {
	b = append(b, 0x1b, '[')
	b = strconv.AppendInt(b, int64(y+1), 10)
	b = append(b, ';')
	b = strconv.AppendInt(b, int64(x+1), 10)
	return append(b, 'H')
}
