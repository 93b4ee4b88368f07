package term

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hinshun/vt10x"
)

// vt10x cursor state bits (unexported there; state.go:23-27 of the pinned version).
const (
	vtCursorWrapNext = 1 << 1
	vtCursorOrigin   = 1 << 2
	// vtAttrWrap marks the last glyph of a line that auto-wrapped.
	vtAttrWrap = 1 << 6
)

// Answers to device queries. DA1 says VT100 with advanced video, like tmux
// and screen; DA2 says VT220, firmware 10.
const (
	replyDA1 = "\x1b[?1;2c"
	replyDA2 = "\x1b[>1;10;0c"
	replyDSR = "\x1b[0n"
)

// flushLocked feeds the pending normalised bytes to vt10x.
func (t *Terminal) flushLocked() {
	if len(t.out) == 0 {
		return
	}
	t.altUniform = false
	if t.primary.cached && !keepsCells(t.out) {
		t.primary.cached = false
	}
	b := t.out
	t.guardLocked(func() { _, _ = t.vt.Write(b) })
	t.out = t.out[:0]
}

// syncCursorLocked flushes and reads the cursor and modes back from vt10x.
func (t *Terminal) syncCursorLocked() {
	if t.curValid && len(t.out) == 0 {
		return
	}
	t.flushLocked()
	var c vt10x.Cursor
	t.guardLocked(func() {
		c = t.vt.Cursor()
		t.vmode = t.vt.Mode()
	})
	t.cx = min(max(c.X, 0), t.cols-1)
	t.cy = min(max(c.Y, 0), t.rows-1)
	t.wrapNext = c.State&vtCursorWrapNext != 0
	t.origin = c.State&vtCursorOrigin != 0
	t.curValid = true
}

func (t *Terminal) altLocked() bool {
	var m vt10x.ModeFlag
	t.guardLocked(func() { m = t.vt.Mode() })
	return m&vt10x.ModeAltScreen != 0
}

// scrollsIntoHistoryLocked reports whether a line feed at the cursor now
// would scroll the top row of the scroll region off: the cursor is on the
// region's bottom row of the primary screen. tmux 3.3a saves that row to
// history for any region, not only a full-screen one (grid.c,
// grid_scroll_history_region), which also keeps what scrolls above a fixed
// status line (apt's progress bar) and is what read-pane must agree with.
// The cursor must be in sync.
func (t *Terminal) scrollsIntoHistoryLocked() bool {
	return t.cy == t.bottom && t.vmode&vt10x.ModeAltScreen == 0
}

// emitLocked queues a sequence for vt10x; the cursor must be read back afterwards.
func (t *Terminal) emitLocked(s string) {
	t.out = append(t.out, s...)
	t.curValid = false
	t.touchedLocked()
}

// emitPenLocked queues a sequence that changes only the pen (SGR): the cells, the
// cursor and a known-blank screen stay as they are, but a clear would now
// leave other cells.
func (t *Terminal) emitPenLocked(s string) {
	t.out = append(t.out, s...)
	t.uniform = false
}

// touchedLocked records that cells may have changed: the screen is no longer
// known to be blank.
func (t *Terminal) touchedLocked() {
	t.screenBlank = false
	t.uniform = false
}

// clearedLocked records a clear of the whole screen shown: it is blank, and
// uniform if the pen leaves blank cells (vt10x clears with the pen). The
// cursor must be in sync (the pen read from vt10x).
func (t *Terminal) clearedLocked() {
	t.screenBlank = true
	var pen vt10x.Glyph
	t.guardLocked(func() { pen = t.vt.Cursor().Attr })
	pen.Char = ' '
	t.uniform = blankGlyph(pen)
	t.uniformDefault = pen == blankVTGlyph
}

// emitInPlaceLocked queues an erase that changes cells but never moves the cursor
// (EL, ECH), so the followed cursor stays valid.
func (t *Terminal) emitInPlaceLocked(n int, final byte) {
	t.out = appendCSI1(t.out, n, final)
	t.touchedLocked()
}

// appendCSI2 appends a CSI with two parameters, both written.
func appendCSI2(b []byte, n, m int, final byte) []byte {
	b = append(b, 0x1b, '[')
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, ';')
	b = strconv.AppendInt(b, int64(m), 10)
	return append(b, final)
}

// appendCSI1 appends a one-parameter CSI, leaving the parameter out when it
// is vt10x's default (0 for EL and TBC, 1 for the rest): vt10x costs per
// rune, so the shortest form is the fastest.
func appendCSI1(b []byte, n int, final byte) []byte {
	b = append(b, 0x1b, '[')
	def := 1
	if final == 'K' || final == 'g' {
		def = 0
	}
	if n != def {
		b = strconv.AppendInt(b, int64(n), 10)
	}
	return append(b, final)
}

func (t *Terminal) emitCSI1Locked(n int, final byte) {
	t.out = appendCSI1(t.out, n, final)
	t.curValid = false
	t.touchedLocked()
}

// printASCIILocked prints a run of printable ASCII. Between line ends it is
// a plain append; at a line end the auto-wrap is checked for history.
func (t *Terminal) printASCIILocked(b []byte) {
	t.touchedLocked()
	if t.insert {
		for _, c := range b {
			t.printRuneLocked(rune(c))
		}
		return
	}
	for len(b) > 0 {
		t.syncCursorLocked()
		if t.wrapNext {
			if t.vmode&vt10x.ModeWrap == 0 {
				// No auto-wrap: every byte overwrites the last column.
				t.out = append(t.out, b[len(b)-1])
				t.lastPrint, t.lastWidth = rune(b[len(b)-1]), 1
				return
			}
			if t.scrollsIntoHistoryLocked() {
				t.captureWrapLocked()
			}
			// vt10x wraps on the next glyph; the new position is read back.
			t.out = append(t.out, b[0])
			t.lastPrint, t.lastWidth = rune(b[0]), 1
			t.curValid = false
			b = b[1:]
			continue
		}
		room := t.cols - t.cx
		n := min(room, len(b))
		t.out = append(t.out, b[:n]...)
		t.lastPrint, t.lastWidth = rune(b[n-1]), 1
		t.cx += n
		if t.cx >= t.cols {
			t.cx = t.cols - 1
			t.wrapNext = true
		}
		b = b[n:]
	}
}

// textRuneLocked prints one decoded non-ASCII rune. A zero width joiner is
// held, as tmux 3.3a holds it: the next non-ASCII rune joins the cell before
// the cursor, wide or not, the joiner first, and the cell keeps its width
// (👨‍👩‍👧 takes the two columns of 👨). ASCII text, controls and sequences in
// between do not end the join (tmux prints ASCII on a path that does not look
// at it); a joiner nothing follows is never stored.
func (t *Terminal) textRuneLocked(r rune) {
	if r >= 0x80 && r < 0xa0 {
		return // C1 controls encoded in UTF-8: ignored, as tmux does
	}
	switch {
	case t.joining && r == zwj:
		t.combineLocked(zwj) // the first joiner goes in; the second is held
	case t.joining:
		t.joining = false
		t.combineLocked(zwj)
		t.combineLocked(r)
	case r == zwj:
		t.joining = true
	default:
		t.printRuneLocked(r)
	}
}

// printRuneLocked places one rune: wide runes get a continuation cell,
// zero-width runes join the previous cell, insert mode shifts the line.
func (t *Terminal) printRuneLocked(r rune) {
	w := runeWidth(r)
	if w == 0 {
		t.combineLocked(r)
		return
	}
	t.placeLocked(t.clusters.code(r), w)
}

// placeLocked puts the vt10x rune code (a character or an interned cluster)
// of width w at the cursor, doing the wrap itself where vt10x would not do
// it as tmux does.
func (t *Terminal) placeLocked(code rune, w int) {
	t.touchedLocked()
	t.syncCursorLocked()
	if w > t.cols {
		return // can never fit
	}
	autowrap := t.vmode&vt10x.ModeWrap != 0
	if !autowrap && w == 2 && (t.wrapNext || t.cx > t.cols-2) {
		return // does not fit and may not wrap: dropped, as tmux does
	}
	if t.insert && !t.wrapNext {
		// Insert mode makes room at the cursor before any wrap, as tmux
		// does; with a wrap pending there is no room to make and the
		// character overwrites the start of the next line.
		t.emitCSI1Locked(w, '@')
		t.syncCursorLocked()
	}
	switch {
	case t.wrapNext && autowrap:
		if t.scrollsIntoHistoryLocked() {
			t.captureWrapLocked()
		}
		t.curValid = false // vt10x wraps on this glyph
	case w == 2 && t.cx == t.cols-1:
		// A wide rune does not fit in the last column: the line wraps
		// and the last column keeps what it had, as in tmux.
		if t.scrollsIntoHistoryLocked() {
			t.captureWrapLocked()
		}
		t.wideWrapLocked()
	}
	t.out = utf8.AppendRune(t.out, code)
	if w == 2 {
		t.out = utf8.AppendRune(t.out, contRune)
	}
	t.lastPrint, t.lastWidth = code, w
	if !t.curValid || t.wrapNext {
		// Unknown position, or no auto-wrap: the glyph replaced the last
		// column and nothing moved.
		return
	}
	t.cx += w
	if t.cx >= t.cols {
		t.cx = t.cols - 1
		t.wrapNext = true
	}
}

// wideWrapLocked wraps the line before a wide rune that does not fit in
// the last column, which keeps what it has. vt10x marks a row wrapped (as
// tmux marks it, so that a resize joins it again) only on a wrap of its
// own, so the last cell is written again as it is, leaving a wrap pending
// that the rune then takes. The cursor must be in sync, on the last column.
func (t *Terminal) wideWrapLocked() {
	var g, pen vt10x.Glyph
	t.guardLocked(func() {
		g = t.vt.Cell(t.cols-1, t.cy)
		pen = t.vt.Cursor().Attr
	})
	if g.Char == 0 {
		g.Char = ' '
	}
	mw := materializer{b: t.out, pen: pen, cols: t.cols, y: t.cy, at: t.cx}
	mw.cell(t.cols-1, g, true)
	mw.setPen(pen)
	t.out = mw.b
	t.curValid = false
	t.touchedLocked()
}

// combineLocked joins a zero-width rune to the cell before the cursor (the
// cursor's own cell while a wrap is pending), as tmux does; with no such cell
// it is dropped.
func (t *Terminal) combineLocked(r rune) {
	t.touchedLocked()
	t.syncCursorLocked()
	px := t.cx - 1
	if t.wrapNext {
		px = t.cx
	}
	if px < 0 {
		return
	}
	py := t.cy
	var g, left vt10x.Glyph
	var cur vt10x.Cursor
	if !t.guardLocked(func() {
		g = t.vt.Cell(px, py)
		if px > 0 {
			left = t.vt.Cell(px-1, py)
		}
		cur = t.vt.Cursor()
	}) {
		return
	}
	if g.Char == contRune && px > 0 && runeWidth(t.clusters.base(left.Char)) == 2 {
		px--
		g = left
	}
	if g.Char == contRune {
		g.Char = ' ' // an orphaned continuation reads as a blank
	}
	code, ok := t.clusters.combine(g.Char, r)
	if !ok {
		return // the cell holds all the marks it may
	}
	// Reprint the cell with its own attributes, then put the pen and the
	// cursor back (including a pending wrap).
	t.out = appendSGRForGlyph(t.out, g, true)
	t.out = appendCSI1(t.out, px+1, 'G')
	t.out = utf8.AppendRune(t.out, code)
	wide := runeWidth(t.clusters.base(code)) == 2
	if wide && t.wrapNext && px == t.cols-2 {
		// Rewriting the continuation in the last column restores the pending wrap.
		t.out = utf8.AppendRune(t.out, contRune)
	}
	t.out = appendSGRForGlyph(t.out, cur.Attr, false)
	if !t.wrapNext {
		t.out = appendCSI1(t.out, t.cx+1, 'G')
	}
	t.curValid = false
	if t.lastPrint != 0 {
		t.lastPrint = code
	}
}

// appendSGRForGlyph appends an SGR that makes vt10x's pen produce g. vt10x
// stores glyphs after swapping for reverse video, so a stored glyph (stored
// true) is swapped back; bold brightening is a fixed point for stored colours.
func appendSGRForGlyph(b []byte, g vt10x.Glyph, stored bool) []byte {
	fg, bg := g.FG, g.BG
	if stored && g.Mode&1 != 0 {
		fg, bg = bg, fg
	}
	b = append(b, "\x1b[0"...)
	for _, m := range [...]struct {
		bit int16
		sgr string
	}{{4, ";1"}, {16, ";3"}, {2, ";4"}, {32, ";5"}, {1, ";7"}} {
		if g.Mode&m.bit != 0 {
			b = append(b, m.sgr...)
		}
	}
	b = appendVTColor(b, fg, 38)
	b = appendVTColor(b, bg, 48)
	return append(b, 'm')
}

func appendVTColor(b []byte, c vt10x.Color, base int) []byte {
	switch {
	case c >= vt10x.DefaultFG:
		return b
	case c < 256:
		b = append(b, ';')
		b = strconv.AppendInt(b, int64(base), 10)
		b = append(b, ";5;"...)
		return strconv.AppendInt(b, int64(c), 10)
	default:
		b = append(b, ';')
		b = strconv.AppendInt(b, int64(base), 10)
		b = append(b, ";2;"...)
		b = strconv.AppendInt(b, int64(c>>16&0xff), 10)
		b = append(b, ';')
		b = strconv.AppendInt(b, int64(c>>8&0xff), 10)
		b = append(b, ';')
		return strconv.AppendInt(b, int64(c&0xff), 10)
	}
}

// controlLocked executes a C0 control in the ground state.
func (t *Terminal) controlLocked(b byte) {
	switch b {
	case 0x07:
		t.bells++
	case 0x08:
		t.syncCursorLocked()
		switch {
		case t.wrapNext:
			// tmux's cursor sits past the last column while a wrap is
			// pending, so one step back lands on the last column.
			t.emitCSI1Locked(t.cols, 'G')
		case t.cx == 0 && t.cy > 0 && t.rowWrappedLocked(t.cy-1):
			// Backspace at the start of a wrapped line goes to the end of
			// the line above, as in tmux.
			t.emitLocked("\x1b[A")
			t.emitCSI1Locked(t.cols, 'G')
		default:
			t.emitLocked("\b")
		}
	case 0x09:
		t.syncCursorLocked()
		if t.wrapNext || t.cx >= t.cols-1 {
			// tmux does not tab past the end; vt10x would clear a pending wrap.
			break
		}
		t.emitLocked("\t")
	case 0x0a, 0x0b, 0x0c:
		t.lineFeedLocked("\n")
	case 0x0d:
		// CR only homes the column: the followed cursor stays valid, and a
		// uniform screen stays uniform (screenBlank is cleared all the same,
		// as it always was).
		t.out = append(t.out, '\r')
		t.screenBlank = false
		t.cx, t.wrapNext = 0, false
	case 0x1b:
		t.sc.state = stEsc
		return
	default:
		// NUL, ENQ, SO, SI and the rest: ignored.
		return
	}
	t.lastPrint = 0
}

// captureWrapLocked saves the region's top row before an auto-wrap on the
// region's bottom row. When they are the same row (a one-line region), the
// saved line is the one wrapping, which vt10x has not marked yet.
func (t *Terminal) captureWrapLocked() {
	t.captureRowsLocked(t.top, 1)
	if t.top == t.cy && t.h.n > 0 {
		t.h.at(t.h.n - 1).wrapped = true
	}
}

// lineFeedLocked forwards a line feed (or IND/NEL), first saving row 0 to
// history when it is about to scroll off the primary screen. A uniform
// screen stays uniform if what scrolls in is what it holds, and then the row
// saved is known without reading it. A line feed or NEL moves the cursor
// predictably, so it stays known without a read back from vt10x.
func (t *Terminal) lineFeedLocked(seq string) {
	t.syncCursorLocked()
	scrolls := t.cy == t.bottom
	short := !t.fastOff
	uniform := short && t.uniform && (!scrolls || t.uniformDefault)
	if t.scrollsIntoHistoryLocked() {
		if uniform {
			if t.h.limit > 0 {
				t.h.push(histLine{cols: uint16(t.cols)})
			}
		} else {
			t.captureRowsLocked(t.top, 1)
		}
	}
	x, y := t.cx, t.cy
	t.emitLocked(seq)
	t.uniform = uniform
	if short && !t.origin && seq != "\x1bD" {
		if !scrolls {
			y = min(y+1, t.rows-1)
		}
		if seq == "\x1bE" || t.vmode&vt10x.ModeCRLF != 0 {
			x = 0
		}
		t.cx, t.cy, t.wrapNext, t.curValid = x, y, false, true
	}
}

func (t *Terminal) rowWrappedLocked(y int) bool {
	var g vt10x.Glyph
	t.guardLocked(func() { g = t.vt.Cell(t.cols-1, y) })
	return g.Mode&vtAttrWrap != 0
}

// escDispatchLocked handles ESC [inter] final.
func (t *Terminal) escDispatchLocked(inter, b byte) {
	t.lastPrint = 0
	if inter != 0 {
		if inter == '(' {
			switch b {
			case '0', 'B', 'A', '<', '5', 'C', 'K':
				t.emitLocked("\x1b(" + string(rune(b)))
			}
		}
		if inter == '#' && b == '8' {
			t.emitLocked("\x1b#8")
		}
		// G1-G3 designations, ESC % G and the rest: ignored.
		return
	}
	switch b {
	case 'D':
		t.lineFeedLocked("\x1bD")
	case 'E':
		t.lineFeedLocked("\x1bE")
	case 'M', 'H', '7', '8', '=', '>':
		if b == 'H' {
			t.tabsDefault = false
		}
		t.emitLocked("\x1b" + string(rune(b)))
	case 'Z': // DECID
		t.replies = append(t.replies, replyDA1...)
	case 'c':
		t.risLocked()
	}
}

// risLocked performs a full reset: back to the primary screen, the screen
// scrolled into history (tmux's scroll-on-clear), everything cleared and
// homed (vt10x alone clears only part of the screen).
func (t *Terminal) risLocked() {
	t.syncCursorLocked()
	if t.vmode&vt10x.ModeAltScreen != 0 {
		t.switchScreenLocked(false)
		t.emitLocked("\x1b[?1047l")
		t.restorePrimaryLocked(false)
		t.syncCursorLocked()
	}
	t.scrollOnClearLocked()
	t.emitLocked("\x1bc\x1b[H\x1b[2J")
	t.flushLocked()
	t.clearedLocked()
	t.tabsDefault = true // vt10x's reset sets them every 8 columns
	t.top, t.bottom = 0, t.rows-1
	t.insert, t.bracketed, t.syncOutput = false, false, false
	t.shape = CursorDefault
}

// oscDispatchLocked handles a complete OSC string: titles are kept in full,
// the signals of signals.go are recorded, everything else is ignored.
func (t *Terminal) oscDispatchLocked() {
	s := &t.sc
	if s.oscOverflow {
		return
	}
	p := s.osc
	n := 0
	i := 0
	for i < len(p) && p[i] >= '0' && p[i] <= '9' && n < 1000 {
		n = n*10 + int(p[i]-'0')
		i++
	}
	if i == 0 || (i < len(p) && p[i] != ';') {
		return
	}
	if n != 0 && n != 2 {
		if i < len(p) {
			t.oscSignalLocked(n, p[i+1:])
		}
		return
	}
	title := ""
	if i < len(p) {
		title = strings.ToValidUTF8(string(p[i+1:]), "\uFFFD")
	}
	t.title = title
}

// The CSI dispatcher. Every count is clamped to what the screen can use, so
// that vt10x never sees a negative, zero-meaning-default or huge value.
func (t *Terminal) csiDispatchLocked(final byte) {
	s := &t.sc
	rep := false
	defer func() {
		if !rep {
			t.lastPrint = 0
		}
	}()
	if s.ninter > 0 {
		if s.ninter == 1 && s.inter[0] == ' ' && final == 'q' && s.prefix == 0 {
			if n := s.param(0, 0); n <= int(CursorBar) {
				t.shape = CursorShape(n)
			}
		}
		return // DECSTR, DECRQM and other intermediates: ignored
	}
	for i := 1; i < s.nparams; i++ {
		if s.colon[i] && final != 'm' {
			return // sub-parameters mean nothing outside SGR
		}
	}
	switch s.prefix {
	case '?':
		if final == 'h' || final == 'l' {
			t.privateModesLocked(final == 'h')
		}
		return // ?u (kitty keyboard query), DECSED, ?n and the rest: dropped
	case '>':
		if final == 'c' && s.param(0, 0) == 0 {
			t.replies = append(t.replies, replyDA2...)
		}
		return
	case '<', '=':
		return
	}
	cols, rows := t.cols, t.rows
	count := func(limit int) int { return min(max(s.param(0, 1), 1), limit) }
	switch final {
	case '@', 'P':
		t.emitCSI1Locked(count(cols), final)
	case 'X':
		t.emitInPlaceLocked(count(cols), 'X')
	case 'A', 'B', 'e', 'E', 'F', 'L', 'M', 'T':
		t.emitCSI1Locked(count(rows), final)
	case 'C', 'D', 'a', 'Z':
		t.emitCSI1Locked(count(cols), final)
	case 'I':
		// CHT: ignored, as tmux 3.3a (the reference) does; vt10x's own
		// version loops once per requested stop.
	case 'G', '`':
		t.emitCSI1Locked(min(max(s.param(0, 1), 1), cols), final)
	case 'd':
		t.emitCSI1Locked(min(max(s.param(0, 1), 1), rows), final)
	case 'H', 'f':
		row, col := min(max(s.param(0, 1), 1), rows), min(max(s.param(1, 1), 1), cols)
		t.out = append(t.out, 0x1b, '[')
		if row != 1 || col != 1 {
			t.out = strconv.AppendInt(t.out, int64(row), 10)
		}
		if col != 1 {
			t.out = append(t.out, ';')
			t.out = strconv.AppendInt(t.out, int64(col), 10)
		}
		t.out = append(t.out, 'H')
		if t.curValid && !t.origin {
			// The cursor lands exactly where asked (values are clamped):
			// no need to read it back before the text that follows.
			t.cx, t.cy, t.wrapNext = col-1, row-1, false
		} else {
			t.curValid = false
		}
	case 'J':
		t.eraseDisplayLocked(s.param(0, 0))
	case 'K':
		if n := s.param(0, 0); n <= 2 {
			t.emitInPlaceLocked(n, 'K')
		}
	case 'S':
		n := count(rows)
		t.syncCursorLocked()
		if t.vmode&vt10x.ModeAltScreen == 0 {
			// As for line feeds: the region's top rows go to history.
			t.captureRowsLocked(t.top, min(n, t.bottom-t.top+1))
		}
		t.emitCSI1Locked(n, 'S')
	case 'b':
		rep = true
		t.repeatLocked(s.param(0, 1))
	case 'c':
		if s.param(0, 0) == 0 {
			t.replies = append(t.replies, replyDA1...)
		}
	case 'g':
		if n := s.param(0, 0); n == 0 || n == 3 {
			t.tabsDefault = false
			t.emitCSI1Locked(n, 'g')
		}
	case 'h', 'l':
		t.ansiModesLocked(final == 'h')
	case 'm':
		t.sgrLocked()
	case 'n':
		switch s.param(0, 0) {
		case 5:
			t.replies = append(t.replies, replyDSR...)
		case 6:
			t.syncCursorLocked()
			y := t.cy
			if t.origin {
				y -= t.top
			}
			t.replies = append(t.replies, 0x1b, '[')
			t.replies = strconv.AppendInt(t.replies, int64(y+1), 10)
			t.replies = append(t.replies, ';')
			t.replies = strconv.AppendInt(t.replies, int64(t.cx+1), 10)
			t.replies = append(t.replies, 'R')
		}
	case 'r':
		top := min(max(s.param(0, 1), 1), rows) - 1
		bottom := s.param(1, rows)
		if bottom == 0 {
			bottom = rows
		}
		bottom = min(bottom, rows) - 1
		if top >= bottom {
			return // an empty or inverted region is ignored, as tmux does
		}
		t.top, t.bottom = top, bottom
		t.out = appendCSI2(t.out, top+1, bottom+1, 'r')
		t.emitLocked("")
	case 's', 'u':
		if s.nparams == 0 {
			t.emitLocked("\x1b[" + string(rune(final)))
		}
	}
}

// eraseDisplayLocked handles ED. Clearing the whole primary screen (2J, or
// 0J from the home position) first scrolls its used lines into history, as
// tmux's scroll-on-clear (on by default) does; 3J clears the history.
func (t *Terminal) eraseDisplayLocked(n int) {
	switch n {
	case 0:
		t.syncCursorLocked()
		home := t.cx == 0 && t.cy == 0
		if home && t.uniform && !t.fastOff {
			t.screenBlank = true // already what this clear leaves
			return
		}
		if home {
			t.scrollOnClearLocked()
		}
		t.emitLocked("\x1b[J")
		if home {
			t.clearedLocked()
		}
	case 1:
		t.syncCursorLocked()
		t.emitLocked("\x1b[1J")
		if t.cy == 1 && (!t.origin || t.top == 0) {
			// vt10x leaves row 0 alone when the cursor is on row 1.
			t.emitLocked("\x1b[A\x1b[2K\x1b[B")
			t.emitCSI1Locked(t.cx+1, 'G')
		}
	case 2:
		if t.uniform && !t.fastOff {
			// vt10x's screen already is what this clear leaves (the same pen
			// since a clear, no cell touched), and scroll-on-clear would find
			// nothing to save: a flood of clears costs nothing more.
			t.screenBlank = true
			return
		}
		t.syncCursorLocked()
		t.scrollOnClearLocked()
		t.emitLocked("\x1b[2J")
		t.clearedLocked()
	case 3:
		t.h.clear()
	}
}

// scrollOnClearLocked moves the used rows of the primary screen (up to the
// last one holding anything) into history. The cursor must be in sync.
func (t *Terminal) scrollOnClearLocked() {
	if t.vmode&vt10x.ModeAltScreen != 0 || t.h.limit == 0 || t.screenBlank {
		return
	}
	last := -1
	t.guardLocked(func() {
		for y := t.rows - 1; y >= 0 && last < 0; y-- {
			for x := 0; x < t.cols; x++ {
				if !blankGlyph(t.vt.Cell(x, y)) {
					last = y
					break
				}
			}
		}
	})
	if last >= 0 {
		t.captureRowsLocked(0, last+1)
		t.h.scrolled = 0 // cleared from view, not scrolled: a grow does not bring it back
	}
}

// repeatLocked is REP: the last printed character again, n times, never past
// the end of the line (tmux's rule).
func (t *Terminal) repeatLocked(n int) {
	if t.lastPrint == 0 {
		return
	}
	t.syncCursorLocked()
	if t.wrapNext {
		return
	}
	n = min(max(n, 1), t.cols-t.cx)
	code, w := t.lastPrint, t.lastWidth
	for range n {
		t.placeLocked(code, w)
	}
}

// privateModesLocked handles DECSET/DECRST.
func (t *Terminal) privateModesLocked(set bool) {
	s := &t.sc
	for i := 0; i < s.nparams; i++ {
		m := s.params[i]
		switch m {
		case 2004:
			t.bracketed = set
		case 2026:
			t.syncOutput = set
		case 47, 1047, 1049:
			t.syncCursorLocked()
			alt := t.vmode&vt10x.ModeAltScreen != 0
			if alt == set {
				// Leaving a screen one is not on (or entering the one one is
				// on) is a no-op; vt10x would switch screens.
				continue
			}
			if set {
				t.savePrimaryLocked()
			}
			t.altEntered = set
			// A model of it may start at the next byte, not only at
			// the next piece of the write.
			t.resume = t.resume || set
			t.switchScreenLocked(set)
			t.emitPrivateModeLocked(m, set)
			t.curValid = false
			if set {
				// Shown now: what its last leave left.
				t.flushLocked()
				t.altUniform = t.altBlankKnown
			} else {
				t.restorePrimaryLocked(m == 1049)
			}
		case 6, 7:
			t.emitPrivateModeLocked(m, set)
			t.resume = true // the model may apply again
		case 1, 5, 9, 25, 1000, 1002, 1003, 1004, 1006, 1048:
			t.emitPrivateModeLocked(m, set)
		}
	}
}

func (t *Terminal) emitPrivateModeLocked(m int, set bool) {
	t.out = append(t.out, "\x1b[?"...)
	t.out = strconv.AppendInt(t.out, int64(m), 10)
	if set {
		t.emitLocked("h")
	} else {
		t.emitLocked("l")
	}
}

// ansiModesLocked handles SM/RM. Insert mode is implemented here (vt10x only
// records it); LNM is forwarded.
func (t *Terminal) ansiModesLocked(set bool) {
	s := &t.sc
	for i := 0; i < s.nparams; i++ {
		switch s.params[i] {
		case 4:
			t.insert = set
			t.resume = true // the model may apply again
		case 20:
			if set {
				t.emitLocked("\x1b[20h")
			} else {
				t.emitLocked("\x1b[20l")
			}
		}
	}
}
