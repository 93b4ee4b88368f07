package term

// HistoryView is the history as it was when Terminal.HistoryView was
// called, read only: later output, a resize or a clear leave it as it was.
// It copies the lines' 24-byte slots, not their text: a line's data is
// never written again once saved (the history's blocks only grow, and a
// dropped block lives on while a view holds its lines), so the view shares
// it, and a line's cells are unpacked when asked for, so that entering copy
// mode does not unpack every line of a long history (docs/architecture.md,
// "Attached clients").
type HistoryView struct {
	lines []histLine
	cols  int // the screen's width when the view was taken
}

// HistoryView returns a read-only view of the history now, oldest line
// first.
func (t *Terminal) HistoryView() *HistoryView {
	t.mu.Lock()
	defer t.mu.Unlock()
	v := &HistoryView{lines: make([]histLine, t.h.n), cols: t.cols}
	for i := range v.lines {
		v.lines[i] = *t.h.at(i)
	}
	return v
}

// Len returns the number of lines in the view.
func (v *HistoryView) Len() int { return len(v.lines) }

// Line returns line i (0 is the oldest), as HistoryCells does: as many
// cells as the screen had columns when the line was saved, or the width
// when the view was taken if that is larger. Each call unpacks it anew.
func (v *HistoryView) Line(i int) []Cell { return v.lines[i].cells(v.cols) }
