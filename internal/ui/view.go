package ui

import (
	"sort"
	"strconv"
	"strings"

	"github.com/melmux/melmux/pane/term"
)

// maxViewRows bounds the rows an output view holds (a verb printing a
// pane's whole history), as a pane's scrollback is bounded.
const maxViewRows = 10000

// ShowOutput shows text, the output of a line run from the ":" prompt, in
// the focused pane of sc as tmux's view mode does: copy mode over the text
// wrapped to the pane's width, from its top. The arrows scroll it, PgUp and
// PgDn page, q or Escape leaves, and copy mode's search and selection work
// on it. It replaces this client's copy mode, if any. It reports whether
// there was a pane to show it in.
func (in *Input) ShowOutput(text string, sc *Scene) bool {
	return in.showView(func(width int) (CellRows, []int, *diffNav) {
		rows, starts := layoutLines(text, width, nil)
		return rows, starts, nil
	}, sc)
}

// viewLayout lays out the text of a view (ShowOutput's, ShowDiff's) at a
// width: its rows, the first row of each line of the text shown, and the
// diff's files and hunks for a diff. A view keeps it to lay its text out
// again when its pane's width changes (see CopyMode.relayout).
type viewLayout func(width int) (rows CellRows, starts []int, nav *diffNav)

// viewText is a view's text as it is laid out now.
type viewText struct {
	layout viewLayout
	starts []int // the first row of each line of the text, at the view's width
}

// showView opens a view of the text layout lays out over the focused pane
// of sc, from its top, replacing this client's copy mode. It reports
// whether there was a pane to show it in.
func (in *Input) showView(layout viewLayout, sc *Scene) bool {
	if sc == nil {
		return false
	}
	p := sc.Focused()
	if p == nil || p.Content.W <= 0 || p.Content.H <= 0 {
		return false
	}
	rows, starts, nav := layout(p.Content.W)
	cm := NewCopyMode(rows, p.Content.W, p.Content.H, 0, 0)
	cm.view, cm.diff, cm.text = true, nav, &viewText{layout: layout, starts: starts}
	cm.GoTop()
	in.StartCopy(p.ID, cm)
	in.help = false
	return true
}

// textPlace is a place in a view's text that a new width keeps: a line of
// the text and a cell of that line.
type textPlace struct{ line, cell int }

// placeOf is where row p.Y, column p.X of a view is in its text.
func (c *CopyMode) placeOf(p Point) textPlace {
	starts := c.text.starts
	line := sort.SearchInts(starts, p.Y+1) - 1
	if line < 0 {
		return textPlace{}
	}
	cell := p.X
	for y := starts[line]; y < p.Y && y < c.lines(); y++ {
		cell += len(c.src.Line(y))
	}
	return textPlace{line, cell}
}

// pointOf is the row and column of a view where its text's place t is.
func (c *CopyMode) pointOf(t textPlace) Point {
	starts := c.text.starts
	if t.line >= len(starts) {
		return Point{0, max(c.lines()-1, 0)} // a line no longer shown: past the row limit
	}
	end := c.lines()
	if t.line+1 < len(starts) {
		end = starts[t.line+1]
	}
	y, cell := starts[t.line], t.cell
	for y+1 < end && cell >= len(c.src.Line(y)) {
		cell -= len(c.src.Line(y))
		y++
	}
	return Point{cell, y}
}

// relayout lays a view's text out again at width w, keeping its top row,
// its cursor and its selection's anchor on the same places of the text.
func (c *CopyMode) relayout(w int) {
	top, cur, anchor := c.placeOf(Point{0, c.top}), c.placeOf(c.cur), c.placeOf(c.anchor)
	rows, starts, nav := c.text.layout(w)
	c.src, c.text.starts, c.diff = rows, starts, nav
	c.top, c.cur, c.anchor = c.pointOf(top).Y, c.pointOf(cur), c.pointOf(anchor)
}

// textRows lays text out in rows of width cells: lines wrap at the width,
// tabs stop every eight columns, wide runes take two cells (wrapping whole),
// combining marks join the rune before them and other control characters
// are dropped. Past maxViewRows a last row says how many lines were left out.
func textRows(text string, width int) CellRows {
	rows, _ := layoutLines(text, width, nil)
	return rows
}

// layoutLines is textRows calling each, when not nil, with every line shown
// and the rows it became (from row first), which each may recolour. starts
// is the first row of each line shown.
func layoutLines(text string, width int, each func(line string, first int, rows CellRows)) (rows CellRows, starts []int) {
	width = max(width, 2)
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for i, line := range lines {
		if len(rows) >= maxViewRows-1 {
			note := "… " + strconv.Itoa(len(lines)-i) + " more lines not shown"
			return append(rows[:maxViewRows-1], wrapLine(note, width)[0]), starts
		}
		wrapped := wrapLine(line, width)
		if each != nil {
			each(line, len(rows), wrapped)
		}
		starts = append(starts, len(rows))
		rows = append(rows, wrapped...)
	}
	return rows[:min(len(rows), maxViewRows)], starts
}

// wrapLine lays out one line of text (see textRows); it is at least one row.
func wrapLine(line string, width int) CellRows {
	var rows CellRows
	row := make([]term.Cell, 0, min(len(line), width))
	put := func(c term.Cell) {
		if len(row)+int(c.Width) > width {
			rows = append(rows, row)
			row = make([]term.Cell, 0, width)
		}
		row = append(row, c)
		if c.Width == 2 {
			row = append(row, term.Cell{}) // the continuation
		}
	}
	for _, r := range line {
		switch w := widths.RuneWidth(r); {
		case r == '\t':
			for n := 8 - len(row)%8; n > 0 && len(row) < width; n-- {
				put(term.Cell{Rune: ' ', Width: 1})
			}
		case r < ' ' || r == 0x7f || r >= 0x80 && r < 0xa0:
		case w == 0:
			base := len(row) - 1
			if base > 0 && row[base].Width == 0 {
				base-- // the mark goes on the wide rune, not its continuation
			}
			if base >= 0 {
				row[base].Comb += string(r)
			}
		default:
			put(term.Cell{Rune: r, Width: uint8(min(w, 2))})
		}
	}
	return append(rows, row)
}
