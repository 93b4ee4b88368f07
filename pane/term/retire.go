package term

import (
	"unicode/utf8"

	"github.com/hinshun/vt10x"
)

// A terminal whose program has ended keeps its last screen for as long as
// the pane stays (remain-on-exit), but nothing will write to it again:
// vt10x's two screens of 16-byte glyphs (320 KB for 200x50) hold what a
// few kilobytes say. Retire keeps the screen as runs of one style and lets
// go of vt10x; reads (Snapshot, Lines, the cursor, the modes) are answered
// from that, and anything else that needs vt10x (a resize, a write) makes
// a new one from it first (thawLocked), as it was.
//
// "As it was" is checked, not hoped for: Retire replays what a thaw would
// write into a scratch vt10x and compares every cell, the cursor with its
// pen and state, and the modes; a screen that would not come back the same
// (a cell cleared with a bold or reverse pen, which vt10x stores unlike a
// printed one; a character UTF-8 cannot carry) is not retired. What a thaw
// does not bring back, no reader sees: the saved cursor (DECSC), the
// alternate screen's hidden content and vt10x's own title. A terminal with
// a scroll region, tab stops of its own, origin mode, the alternate screen
// shown or a model of the screen is not retired.

// frozenScreen is a retired terminal's screen.
type frozenScreen struct {
	rows    []frozenRow
	cursor  vt10x.Cursor
	visible bool
	mode    vt10x.ModeFlag
}

// frozenRow is a row: its characters (trailing spaces left out) and the
// runs of style that cover it, the last one reaching the row's end.
type frozenRow struct {
	text string
	runs []frozenRun
}

type frozenRun struct {
	n      uint16
	mode   int16
	fg, bg vt10x.Color
}

// freezeRow packs g; false when a character would not come back.
func freezeRow(g []vt10x.Glyph) (frozenRow, bool) {
	var r frozenRow
	end := len(g)
	for end > 0 && g[end-1].Char == ' ' {
		end--
	}
	var text []byte
	for x, gl := range g {
		if x < end {
			// A control character would act, not print, when written back.
			if c := gl.Char; c < 0x20 || c >= 0x7f && c < 0xa0 || !utf8.ValidRune(c) {
				return r, false
			}
			text = utf8.AppendRune(text, gl.Char)
		}
		if n := len(r.runs); n > 0 {
			last := &r.runs[n-1]
			if last.mode == gl.Mode && last.fg == gl.FG && last.bg == gl.BG && last.n < 0xffff {
				last.n++
				continue
			}
		}
		r.runs = append(r.runs, frozenRun{n: 1, mode: gl.Mode, fg: gl.FG, bg: gl.BG})
	}
	r.text = string(text)
	return r, true
}

// glyphs appends the row's glyphs to dst.
func (r *frozenRow) glyphs(dst []vt10x.Glyph) []vt10x.Glyph {
	text := r.text
	for _, run := range r.runs {
		for range run.n {
			c := ' '
			if text != "" {
				var size int
				c, size = utf8.DecodeRuneInString(text)
				text = text[size:]
			}
			dst = append(dst, vt10x.Glyph{Char: c, Mode: run.mode, FG: run.fg, BG: run.bg})
		}
	}
	return dst
}

// replay is what a fresh vt10x of the screen's size is written to hold the
// screen: each row's cells with their styles (a wrapped row runs on into
// the next, which is what marks it wrapped), then the cursor, its pen and
// a pending wrap, then the modes.
func (f *frozenScreen) replay(cols int) []byte {
	b := []byte("\x1b[0m\x1b(B")
	var g []vt10x.Glyph
	var pen vt10x.Glyph
	gfx := false
	setPen := func(gl vt10x.Glyph) {
		if on := gl.Mode&vtGfx != 0; on != gfx {
			gfx = on
			if on {
				b = append(b, "\x1b(0"...)
			} else {
				b = append(b, "\x1b(B"...)
			}
		}
		gl.Mode &^= vtAttrWrap
		if gl.Mode&^vtGfx != pen.Mode&^vtGfx || gl.FG != pen.FG || gl.BG != pen.BG {
			b = appendSGRForGlyph(b, gl, true)
			pen = gl
		}
	}
	pen = vt10x.Glyph{Mode: -1}
	wrapped := false
	for y := range f.rows {
		g = f.rows[y].glyphs(g[:0])
		if !wrapped {
			b = appendCUP(b, y, 0)
		}
		for _, gl := range g {
			setPen(gl)
			b = utf8.AppendRune(b, gl.Char)
		}
		wrapped = len(g) > 0 && g[len(g)-1].Mode&vtAttrWrap != 0
	}
	c := f.cursor
	if c.State&vtCursorWrapNext != 0 {
		// The last cell written again leaves the wrap pending.
		g = f.rows[c.Y].glyphs(g[:0])
		b = appendCUP(b, c.Y, cols-1)
		setPen(g[cols-1])
		b = utf8.AppendRune(b, g[cols-1].Char)
	} else {
		b = appendCUP(b, c.Y, c.X)
	}
	if on := c.Attr.Mode&vtGfx != 0; on {
		b = append(b, "\x1b(0"...)
	} else {
		b = append(b, "\x1b(B"...)
	}
	b = appendSGRForGlyph(b, c.Attr, false)
	m := f.mode
	for _, pm := range [...]struct {
		flag vt10x.ModeFlag
		seq  string
	}{
		{vt10x.ModeAppCursor, "\x1b[?1h"}, {vt10x.ModeReverse, "\x1b[?5h"}, {vt10x.ModeHide, "\x1b[?25l"},
		{vt10x.ModeMouseX10, "\x1b[?9h"}, {vt10x.ModeMouseButton, "\x1b[?1000h"}, {vt10x.ModeMouseMotion, "\x1b[?1002h"},
		{vt10x.ModeMouseMany, "\x1b[?1003h"}, {vt10x.ModeFocus, "\x1b[?1004h"}, {vt10x.ModeMouseSgr, "\x1b[?1006h"},
		{vt10x.Mode8bit, "\x1b[?1034h"}, {vt10x.ModeInsert, "\x1b[4h"}, {vt10x.ModeCRLF, "\x1b[20h"},
		{vt10x.ModeKeyboardLock, "\x1b[2h"}, {vt10x.ModeEcho, "\x1b[12h"}, {vt10x.ModeAppKeypad, "\x1b="},
	} {
		if m&pm.flag != 0 {
			b = append(b, pm.seq...)
		}
	}
	if m&vt10x.ModeWrap == 0 {
		b = append(b, "\x1b[?7l"...)
	}
	return b
}

// retireKey is what a refusal to retire is remembered by: until one of
// these changes, asking again would be refused again.
type retireKey struct {
	cols, rows int
	total      uint64
	bells      uint64
	cx, cy     int
}

// Retire lets go of vt10x for a terminal nothing will write to again (its
// program has ended), keeping the screen packed; it says whether the
// terminal is retired. A terminal that cannot be brought back exactly is
// left as it is. Any later use that needs vt10x brings it back first.
func (t *Terminal) Retire() bool {
	t.wmu.Lock()
	defer t.wmu.Unlock()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.vt == nil {
		return true
	}
	if t.model != nil {
		t.guardLocked(func() {})
	}
	t.flushLocked()
	key := retireKey{t.cols, t.rows, t.h.total, t.bells, t.cx, t.cy}
	if t.retireNo == key {
		return false
	}
	t.retireNo = key
	if t.model != nil || len(t.out) > 0 || !t.tabsDefault || t.top != 0 || t.bottom != t.rows-1 {
		return false
	}
	f := &frozenScreen{rows: make([]frozenRow, t.rows)}
	var orig [][]vt10x.Glyph
	ok := t.peekLocked(func() {
		f.cursor, f.visible, f.mode = t.vt.Cursor(), t.vt.CursorVisible(), t.vt.Mode()
		for y := range t.rows {
			row := make([]vt10x.Glyph, t.cols)
			for x := range t.cols {
				row[x] = t.vt.Cell(x, y)
			}
			orig = append(orig, row)
		}
	})
	if !ok || f.mode&vt10x.ModeAltScreen != 0 || f.cursor.State&vtCursorOrigin != 0 ||
		f.cursor.Y < 0 || f.cursor.Y >= t.rows || f.cursor.X < 0 || f.cursor.X >= t.cols {
		return false
	}
	for y, row := range orig {
		if f.rows[y], ok = freezeRow(row); !ok {
			return false
		}
	}
	// The bottom row cannot be marked wrapped by writing it: the mark
	// comes with the next row, which would scroll.
	if last := orig[t.rows-1]; last[t.cols-1].Mode&vtAttrWrap != 0 {
		return false
	}
	if !f.comesBack(t.cols, t.rows, orig) {
		return false
	}
	t.frozen = f
	t.vt = nil
	t.glyphBuf = nil
	return true
}

// comesBack says a vt10x written f's replay holds orig, f's cursor and f's
// modes.
func (f *frozenScreen) comesBack(cols, rows int, orig [][]vt10x.Glyph) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	vt := vt10x.New(vt10x.WithSize(cols, rows))
	_, _ = vt.Write(f.replay(cols))
	if vt.Cursor() != f.cursor || vt.CursorVisible() != f.visible || vt.Mode() != f.mode {
		return false
	}
	for y := range rows {
		for x := range cols {
			if vt.Cell(x, y) != orig[y][x] {
				return false
			}
		}
	}
	return true
}

// thawLocked brings a retired terminal's vt10x back, holding the screen it
// had. Every use of vt10x goes through peekLocked, which calls it.
func (t *Terminal) thawLocked() {
	f := t.frozen
	t.frozen = nil
	t.vt = vt10x.New(vt10x.WithSize(t.cols, t.rows))
	// The new alternate screen is blank in default colours, whatever
	// the old one held.
	t.altBlankKnown, t.altUniform = false, false
	if f != nil {
		_, _ = t.vt.Write(f.replay(t.cols))
	}
}

// Retired says whether the terminal holds no vt10x now (for tests and
// debug_stats).
func (t *Terminal) Retired() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.vt == nil
}
