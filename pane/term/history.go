package term

import (
	"strings"
	"unicode/utf8"
)

// histLine is one line of scrollback, stored compactly: the text of its cells
// (a wide character once, its continuation implied; combining marks after
// their base) and run-length styles instead of one 32-byte Cell per column.
type histLine struct {
	text    string
	runs    []styleRun // nil when every cell has default style
	cols    uint16     // screen width when the line was saved
	wrapped bool       // the line continued on the next one (auto-wrap)
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
}

func (h *history) push(l histLine) {
	if h.limit <= 0 {
		return
	}
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
	h.start, h.n = 0, 0
}

func (l *histLine) textTrimmed() string {
	return strings.TrimRight(l.text, " ")
}

// cells expands the line to at least width cells.
func (l *histLine) cells(width int) []Cell {
	width = max(width, int(l.cols))
	out := make([]Cell, 0, width)
	s := l.text
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		s = s[n:]
		w := runeWidth(r)
		if w == 0 && len(out) > 0 {
			last := len(out) - 1
			if out[last].Width == 0 && last > 0 {
				last--
			}
			out[last].Comb += string(r)
			continue
		}
		if w == 2 {
			out = append(out, Cell{Rune: r, Width: 2}, Cell{Width: 0})
			continue
		}
		out = append(out, Cell{Rune: r, Width: 1})
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

// captureRowsLocked saves screen rows y0..y0+n-1 to history. vt10x must be
// in sync (flushed).
func (t *Terminal) captureRowsLocked(y0, n int) {
	if t.h.limit <= 0 {
		return
	}
	t.flushLocked()
	n = min(n, t.rows-y0)
	for y := y0; y < y0+n; y++ {
		cells, wrapped, ok := t.rowCellsLocked(y, t.scratch[:0])
		if !ok {
			return
		}
		t.scratch = cells
		t.h.push(t.encodeLineLocked(cells, wrapped))
	}
}

// encodeLineLocked builds the compact form of a row of cells, dropping
// trailing blank cells in default style.
func (t *Terminal) encodeLineLocked(cells []Cell, wrapped bool) histLine {
	end := len(cells)
	for end > 0 && blankCell(cells[end-1]) {
		end--
	}
	buf := t.textBuf[:0]
	var runs []styleRun
	allDefault := true
	for i := 0; i < end; i++ {
		c := cells[i]
		if c.Width > 0 {
			r := c.Rune
			if r == 0 {
				r = ' '
			}
			buf = utf8.AppendRune(buf, r)
			buf = append(buf, c.Comb...)
		}
		if c.Attr != 0 || c.FG != ColorDefault || c.BG != ColorDefault {
			allDefault = false
		}
	}
	if !allDefault {
		for i := 0; i < end; i++ {
			c := cells[i]
			if k := len(runs) - 1; k >= 0 && runs[k].attr == c.Attr && runs[k].fg == c.FG && runs[k].bg == c.BG && runs[k].n < 0xffff {
				runs[k].n++
				continue
			}
			runs = append(runs, styleRun{n: 1, attr: c.Attr, fg: c.FG, bg: c.BG})
		}
	}
	t.textBuf = buf
	return histLine{text: string(buf), runs: runs, cols: uint16(len(cells)), wrapped: wrapped}
}

func blankCell(c Cell) bool {
	return (c.Rune == 0 || c.Rune == ' ') && c.Comb == "" && c.Width == 1 &&
		c.Attr == 0 && c.FG == ColorDefault && c.BG == ColorDefault
}
