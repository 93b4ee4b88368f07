package ui

import (
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
	if sc == nil {
		return false
	}
	p := sc.Focused()
	if p == nil || p.Content.W <= 0 || p.Content.H <= 0 {
		return false
	}
	cm := NewCopyMode(textRows(text, p.Content.W), p.Content.W, p.Content.H, 0, 0)
	cm.view = true
	cm.GoTop()
	in.StartCopy(p.ID, cm)
	in.help = false
	return true
}

// textRows lays text out in rows of width cells: lines wrap at the width,
// tabs stop every eight columns, wide runes take two cells (wrapping whole),
// combining marks join the rune before them and other control characters
// are dropped. Past maxViewRows a last row says how many lines were left out.
func textRows(text string, width int) CellRows { return layoutLines(text, width, nil) }

// layoutLines is textRows calling each, when not nil, with every line shown
// and the rows it became (from row first), which each may recolour.
func layoutLines(text string, width int, each func(line string, first int, rows CellRows)) CellRows {
	width = max(width, 2)
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	var rows CellRows
	for i, line := range lines {
		if len(rows) >= maxViewRows-1 {
			note := "… " + strconv.Itoa(len(lines)-i) + " more lines not shown"
			return append(rows[:maxViewRows-1], wrapLine(note, width)[0])
		}
		wrapped := wrapLine(line, width)
		if each != nil {
			each(line, len(rows), wrapped)
		}
		rows = append(rows, wrapped...)
	}
	return rows[:min(len(rows), maxViewRows)]
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
