package term

import (
	"strconv"

	"github.com/hinshun/vt10x"
)

// The model's edits of whole rows and of the screen: clears (with tmux's
// scroll-on-clear), scroll regions and what scrolls them, insert and delete
// of lines and characters, and the saved cursor, each as the scanner and
// vt10x do it (csi.go, state.go and parse.go of the pinned version), so that
// a clear of a screen with content or a log in a scroll region costs a few
// row operations rather than vt10x's cell-by-cell work.
//
// materializeLocked writes a model back by drawing its rows top to bottom
// with the whole screen as scroll region, marking a row wrapped by writing
// on past its end, and the bottom row, which a wrap would scroll, with the
// rows above it as scroll region (canMarkBottom: not on a screen of one row
// or column). That cannot leave a mark short of a row's end, nor keep a
// mark on the row of a pending wrap (making the wrap pending again rewrites
// the row's last cell); vt10x gets both from edits (DCH moves a mark left,
// a scroll under a pending wrap brings a marked row to the cursor). The walk
// declines exactly those edits, and the scanner takes them with vt10x.

// penBlank is what vt10x's clear leaves in a cell: the pen as it is, with a
// space.
func (w *fastWalk) penBlank() vt10x.Glyph {
	g := w.pen
	g.Char = ' '
	return g
}

// clearCells sets cells x0..x1 of ring slot s to g, as vt10x's clear.
func (m *screenModel) clearCells(s, x0, x1 int, g vt10x.Glyph, cols int) {
	row := m.ring[s]
	for x := x0; x <= x1; x++ {
		row[x] = g
	}
	if g != blankVTGlyph {
		m.info[s].used = max(m.info[s].used, x1+1)
		m.info[s].fancy = true
		m.clean = false
	}
}

// clearRow sets every cell of ring slot s to g.
func (m *screenModel) clearRow(s int, g vt10x.Glyph, cols int) {
	if g == blankVTGlyph {
		row := m.ring[s]
		for x := range row[:m.info[s].used] {
			row[x] = g
		}
		m.info[s] = rowInfo{}
		return
	}
	m.clearCells(s, 0, cols-1, g, cols)
}

// swapRows exchanges screen rows a and b.
func (m *screenModel) swapRows(a, b int) {
	sa, sb := m.slot(a), m.slot(b)
	m.ring[sa], m.ring[sb] = m.ring[sb], m.ring[sa]
	m.info[sa], m.info[sb] = m.info[sb], m.info[sa]
}

// canMarkBottom reports whether materializeLocked can mark the bottom row
// of a screen of cols x rows wrapped: it wraps from that row with the row
// below the scroll region, which needs a row above it, and makes column 0
// again afterwards, which must not be the marked column.
func canMarkBottom(cols, rows int) bool {
	return cols >= 2 && rows >= 2
}

// wrapped reports whether screen row y is marked wrapped.
func (w *fastWalk) wrapped(y int) bool {
	return w.m.ring[w.m.slot(y)][w.cols-1].Mode&vtAttrWrap != 0
}

// scrollUp is vt10x's scrollUp: rows orig+n..bottom of the scroll region
// move up n rows, and the n rows at its bottom are cleared to g. Saving
// what leaves is the caller's.
func (w *fastWalk) scrollUp(orig, n int, g vt10x.Glyph) {
	m, bottom := w.m, w.t.bottom
	n = min(max(n, 0), bottom-orig+1)
	for y := orig; y < orig+n; y++ {
		m.clearRow(m.slot(y), g, w.cols)
	}
	if orig == 0 && bottom == w.rows-1 {
		m.top = (m.top + n) % w.rows // the cleared rows come round to the bottom
	} else {
		for y := orig; y <= bottom-n; y++ {
			m.swapRows(y, y+n)
		}
	}
	w.row()
}

// scrollDown is vt10x's scrollDown: rows orig..bottom-n move down n rows,
// and the n rows at orig are cleared to g.
func (w *fastWalk) scrollDown(orig, n int, g vt10x.Glyph) {
	m, bottom := w.m, w.t.bottom
	n = min(max(n, 0), bottom-orig+1)
	for y := bottom - n + 1; y <= bottom; y++ {
		m.clearRow(m.slot(y), g, w.cols)
	}
	if orig == 0 && bottom == w.rows-1 {
		m.top = (m.top - n + w.rows) % w.rows
	} else {
		for y := bottom; y >= orig+n; y-- {
			m.swapRows(y, y-n)
		}
	}
	w.row()
}

// canScroll reports whether materializeLocked could write the model back
// after a scroll of the region's rows orig..bottom by n (down or up): no
// row marked wrapped comes to the screen's bottom row, nor to the cursor's
// row while a wrap is pending.
func (w *fastWalk) canScroll(orig, n int, down bool) bool {
	bottom := w.t.bottom
	n = min(max(n, 0), bottom-orig+1)
	// from is the row that lands on row y, -1 for a cleared one.
	from := func(y int) int {
		if y < orig || y > bottom {
			return y
		}
		if down {
			if y-n >= orig {
				return y - n
			}
			return -1
		}
		if y+n <= bottom {
			return y + n
		}
		return -1
	}
	if down && bottom == w.rows-1 && !canMarkBottom(w.cols, w.rows) {
		if y := from(w.rows - 1); y >= 0 && w.wrapped(y) {
			return false
		}
	}
	if w.wrapNext {
		if y := from(w.y); y >= 0 && y != w.y && w.wrapped(y) {
			return false
		}
	}
	return true
}

// parse runs the parameters of the CSI seq through the scanner's parser
// without its dispatch, which would act on vt10x, and reports whether the
// scanner would dispatch it further: false for an overflowing parameter
// (dropped) and for sub-parameters (dispatched, nothing done: lastPrint is
// reset as the dispatch resets it).
func (w *fastWalk) parse(seq []byte) bool {
	t := w.t
	s := &t.sc
	s.csiStart()
	for _, b := range seq[2 : len(seq)-1] {
		t.csiByteLocked(b)
	}
	s.state = stGround
	if s.cur >= 0 || s.nparams > 0 {
		s.pushParam()
	}
	if s.overflow {
		return false
	}
	for i := 1; i < s.nparams; i++ {
		if s.colon[i] {
			t.lastPrint = 0
			return false
		}
	}
	return true
}

// privateModes applies DECSET or DECRST as privateModesLocked does, for
// the modes that leave the screen, the cursor and the pen alone: the
// scanner's own (bracketed paste, synchronized output), vt10x's (cursor
// keys, reverse video, mouse, focus, cursor visibility: written into
// vt10x at once, whose modes the model does not hold), and entering or
// leaving the screen one is on (the scanner drops those); auto-wrap, which
// the walk follows (fastWalk.nowrap) and materializeLocked puts back after
// drawing with it on. A switch of screens, origin mode and ?1048 are
// declined; a model of the
// alternate screen is not written back for its leave (altLeave), and one
// starts right after its entry (altEntered): a program's whole stay there
// can then go around vt10x.
func (w *fastWalk) privateModes(seq []byte, set bool) bool {
	t := w.t
	s := &t.sc
	if !w.parse(seq) {
		return true
	}
	for i := 0; i < s.nparams; i++ {
		switch s.params[i] {
		case 47, 1047, 1049:
			if set != w.alt {
				// A switch: the scanner takes it. Leaving clears the
				// alternate screen, so the model's rows need not reach
				// vt10x first.
				t.altLeave = w.alt
				return false
			}
		case 6, 1048:
			return false
		}
	}
	for i := 0; i < s.nparams; i++ {
		switch m := s.params[i]; m {
		case 2004:
			t.bracketed = set
		case 2026:
			t.syncOutput = set
		case 1, 5, 7, 9, 25, 1000, 1002, 1003, 1004, 1006:
			if m == 7 {
				// Auto-wrap: the walk follows it (nowrap), and
				// materializeLocked draws with it on.
				w.nowrap = !set
				if set {
					t.vmode |= vt10x.ModeWrap
				} else {
					t.vmode &^= vt10x.ModeWrap
				}
			}
			b := append(t.modeBuf[:0], "\x1b[?"...)
			b = strconv.AppendInt(b, int64(m), 10)
			if set {
				b = append(b, 'h')
			} else {
				b = append(b, 'l')
			}
			t.modeBuf = b
			t.peekLocked(func() { _, _ = t.vt.Write(b) })
			w.blank = false
		}
	}
	t.lastPrint = 0
	return true
}

// ansiModes applies SM or RM as ansiModesLocked does, for what leaves the
// walk's state alone: insert mode reset (the walk runs without it) and
// the modes the scanner ignores. Insert mode set and LNM are declined.
func (w *fastWalk) ansiModes(seq []byte, set bool) bool {
	t := w.t
	s := &t.sc
	if !w.parse(seq) {
		return true
	}
	for i := 0; i < s.nparams; i++ {
		if m := s.params[i]; m == 4 && set || m == 20 {
			return false
		}
	}
	t.lastPrint = 0
	return true
}

// osc runs an OSC string through the scanner's own dispatch: a title, a
// signal (signals.go) or nothing, none of which touches vt10x.
func (w *fastWalk) osc(seq []byte) {
	t := w.t
	s := &t.sc
	end := len(seq) - 1 // BEL
	if seq[end] == '\\' {
		end-- // ESC \
	}
	s.osc = append(s.osc[:0], seq[2:end]...)
	s.oscOverflow = false
	t.oscDispatchLocked()
}

// edit applies a CSI that edits the screen, moves its rows or saves the
// cursor (ED, IL, DL, ICH, DCH, SU, SD, DECSTBM, SCOSC, SCORC) to the model,
// as the scanner's dispatch and vt10x do; false declines it, having changed
// nothing.
func (w *fastWalk) edit(seq []byte, final byte) bool {
	t := w.t
	s := &t.sc
	if !w.parse(seq) {
		return true
	}
	count := func(limit int) int { return min(max(s.param(0, 1), 1), limit) }
	top, bottom := t.top, t.bottom
	switch final {
	case 'J':
		if !w.eraseDisplay(s.param(0, 0)) {
			return false
		}
	case 'L', 'M':
		n := count(w.rows)
		if w.y >= top && w.y <= bottom {
			// vt10x scrolls the rows from the cursor's to the region's
			// bottom, with the pen; no line goes to history.
			if !w.canScroll(w.y, n, final == 'L') {
				return false
			}
			if final == 'L' {
				w.scrollDown(w.y, n, w.penBlank())
			} else {
				w.scrollUp(w.y, n, w.penBlank())
			}
		}
		w.blank = false
	case 'S', 'T':
		n := count(w.rows)
		if !w.canScroll(top, n, final == 'T') {
			return false
		}
		if final == 'S' {
			w.saveRows(top, min(n, bottom-top+1))
			w.scrollUp(top, n, w.penBlank())
		} else {
			w.scrollDown(top, n, w.penBlank())
		}
		w.blank = false
	case '@':
		w.insertBlanks(count(w.cols))
		w.blank = false
	case 'P':
		if w.wrapped(w.y) {
			return false // the mark would move left of the row's end
		}
		w.deleteChars(count(w.cols))
		w.blank = false
	case 'r':
		// An empty or inverted region is ignored, as by the scanner;
		// vt10x homes the cursor after setting one.
		top := min(max(s.param(0, 1), 1), w.rows) - 1
		bottom := s.param(1, w.rows)
		if bottom == 0 {
			bottom = w.rows
		}
		bottom = min(bottom, w.rows) - 1
		if top < bottom {
			t.top, t.bottom = top, bottom
			w.m.rtop, w.m.rbottom = top, bottom
			w.moveTo(0, 0)
			w.blank = false
		}
	case 's', 'u':
		if s.nparams == 0 && !w.saveRestore(final == 's') {
			return false
		}
	}
	t.lastPrint = 0
	return true
}

// esc applies a two-byte escape (IND, NEL, RI, DECSC, DECRC) to the model as
// the scanner and vt10x do; false declines it, having changed nothing.
func (w *fastWalk) esc(b byte) bool {
	t := w.t
	switch b {
	case 'D': // IND: a line feed that scrolls with the pen
		if w.y == t.bottom {
			if !w.canScroll(t.top, 1, false) {
				return false
			}
			w.saveRows(t.top, 1)
			w.scrollUp(t.top, 1, w.penBlank())
		} else {
			w.moveTo(w.x, w.y+1)
		}
	case 'E': // NEL
		w.x = 0
		w.lineFeed()
	case 'M': // RI
		if w.y == t.top {
			if !w.canScroll(t.top, 1, true) {
				return false
			}
			w.scrollDown(t.top, 1, w.penBlank())
		} else {
			w.moveTo(w.x, w.y-1)
		}
	case '7', '8':
		if !w.saveRestore(b == '7') {
			return false
		}
	case '=', '>':
		// DECKPAM, DECKPNM: vt10x's keypad mode, written into it at once
		// as privateModes writes the others.
		b := append(t.modeBuf[:0], 0x1b, b)
		t.modeBuf = b
		t.peekLocked(func() { _, _ = t.vt.Write(b) })
	case '(':
		// ESC ( B selects US-ASCII, which the model's pen always has.
	}
	w.blank = false
	t.lastPrint = 0
	return true
}

// saveRestore is vt10x's saveCursor or restoreCursor; a restore of a cursor
// saved before the model is declined.
func (w *fastWalk) saveRestore(save bool) bool {
	m := w.m
	if save {
		m.saved, m.hasSaved = savedCursor{x: w.x, y: w.y, pen: w.pen}, true
		w.blank = false
		return true
	}
	if !m.hasSaved {
		return false
	}
	w.moveTo(m.saved.x, m.saved.y)
	w.setPen(m.saved.pen)
	w.blank = false
	return true
}

// eraseDisplay is the scanner's ED n on the model (eraseDisplayLocked):
// clearing the whole screen (2, or 0 from home) first scrolls its used rows
// into history (scroll-on-clear); 3 clears history.
func (w *fastWalk) eraseDisplay(n int) bool {
	m := w.m
	g := w.penBlank()
	switch n {
	case 0:
		home := w.x == 0 && w.y == 0
		if home {
			w.scrollOnClear()
		}
		m.clearCells(m.slot(w.y), w.x, w.cols-1, g, w.cols)
		for y := w.y + 1; y < w.rows; y++ {
			m.clearRow(m.slot(y), g, w.cols)
		}
		w.blank = home
		if home {
			m.clean = g == blankVTGlyph
		}
	case 1:
		for y := 0; y < w.y; y++ {
			// vt10x leaves row 0 alone with the cursor on row 1; the
			// scanner clears it with EL 2 around a cursor up and down,
			// which ends a pending wrap.
			m.clearRow(m.slot(y), g, w.cols)
		}
		m.clearCells(m.slot(w.y), 0, w.x, g, w.cols)
		if w.y == 1 {
			w.wrapNext = false
		}
		w.blank = false
	case 2:
		w.scrollOnClear()
		if !m.clean || g != blankVTGlyph {
			for y := 0; y < w.rows; y++ {
				m.clearRow(m.slot(y), g, w.cols)
			}
		}
		m.clean = g == blankVTGlyph
		w.blank = true
	case 3:
		w.t.h.clear()
	}
	return true
}

// scrollOnClear saves the rows of the screen up to the last one showing
// anything to history, as scrollOnClearLocked does (nothing right after a
// clear).
func (w *fastWalk) scrollOnClear() {
	t, m := w.t, w.m
	if t.h.limit == 0 || w.alt || w.blank || m.clean {
		return
	}
	last := -1
	for y := w.rows - 1; y >= 0 && last < 0; y-- {
		s := m.slot(y)
		for _, g := range m.ring[s][:m.info[s].used] {
			if !blankGlyph(g) {
				last = y
				break
			}
		}
	}
	if last >= 0 {
		w.saveRows(0, last+1)
		t.h.scrolled = 0 // cleared from view, not scrolled
	}
}

// insertBlanks is vt10x's ICH: the cells from the cursor move right n
// columns (those pushed past the end are lost) and n cells at the cursor
// are cleared with the pen. The cursor and a pending wrap stay.
func (w *fastWalk) insertBlanks(n int) {
	m, row, s := w.m, w.cur, w.m.slot(w.y)
	if dst := w.x + n; dst < w.cols {
		copy(row[dst:], row[w.x:w.cols-n])
		// What moved right may lie past what was used.
		m.info[s].used = min(m.info[s].used+n, w.cols)
		m.clearCells(s, w.x, dst-1, w.penBlank(), w.cols)
		return
	}
	m.clearCells(s, w.x, w.cols-1, w.penBlank(), w.cols)
}

// deleteChars is vt10x's DCH: the cells after the cursor's n move left
// onto it, and the last n cells are cleared with the pen. The cursor and a
// pending wrap stay.
func (w *fastWalk) deleteChars(n int) {
	m, row, s := w.m, w.cur, w.m.slot(w.y)
	if src := w.x + n; src < w.cols {
		copy(row[w.x:], row[src:])
		m.clearCells(s, w.cols-n, w.cols-1, w.penBlank(), w.cols)
		return
	}
	m.clearCells(s, w.x, w.cols-1, w.penBlank(), w.cols)
}
