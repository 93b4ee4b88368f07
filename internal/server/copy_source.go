package server

import (
	"github.com/melmux/melmux/internal/ui"
	"github.com/melmux/melmux/pane/term"
)

// copyLines is what one client's copy mode moves over in a pane: a view of
// its history, whose lines are unpacked as copy mode first reads them and
// kept for the next read, then its screen. Entering copy mode so costs two
// small slices a history line, not a Cell a column. It is used by the
// client's loop alone, as its copy mode is.
type copyLines struct {
	hist   *term.HistoryView
	rows   [][]term.Cell // hist's lines unpacked so far, by index
	screen [][]term.Cell
}

func (c *copyLines) Len() int { return c.hist.Len() + len(c.screen) }

func (c *copyLines) Line(i int) []term.Cell {
	if i >= len(c.rows) {
		return c.screen[i-len(c.rows)]
	}
	if c.rows[i] == nil {
		c.rows[i] = c.hist.Line(i)
	}
	return c.rows[i]
}

// copySource is what copy mode moves over in t: its history then its
// screen, as they are now.
func copySource(t *term.Terminal) (ui.LineSource, *term.Screen) {
	snap := t.Snapshot()
	hist := t.HistoryView()
	return &copyLines{hist: hist, rows: make([][]term.Cell, hist.Len()), screen: snap.Cells}, snap
}
