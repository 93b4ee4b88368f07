package term

import (
	"reflect"
	"unicode/utf8"
	"unsafe"

	"github.com/hinshun/vt10x"
)

// A pane whose output has gone quiet, the program ended or only waiting (a
// shell at its prompt, an agent CLI waiting for its next message), holds in
// vt10x two screens of 16-byte glyphs (320 KB for 200x50) that a few
// kilobytes say. Retire keeps vt10x's whole state packed, the screen as
// runs of one style, and lets go of vt10x; reads (Snapshot, Lines, the
// cursor, the modes) are answered from that, and anything that needs vt10x
// (a write, a resize) makes a new one from it first (thawLocked), as it
// was: the next byte the program writes lands where it would have.
//
// "As it was" is vt10x's state in full, not only what a reader sees: the
// screen shown, the screen hidden (the primary one while the alternate one
// is shown; while the primary one is, the alternate one, which its last
// leave cleared with the pen and the next entry shows), the cursor with its
// pen, character set and pending wrap, the cursor DECSC saved, the scroll
// region, origin mode, the tab stops and the modes. vt10x keeps the hidden
// screen, the saved cursor, the region and the tab stops unexported, so
// they are read by reflection (vtInnerOf), read only; the pinned version's
// fields are what TestVTStateIsReadable checks. The rest of what a pane's
// terminal keeps (the scanner's state and an escape sequence it holds
// unfinished, insert mode, bracketed paste, the title, the cursor's shape,
// the clusters, history) is this package's, in Terminal, and stays there.
//
// It is checked, not hoped for: Retire replays what a thaw would write into
// a scratch vt10x and compares all of that state, and a terminal that would
// not come back the same is not retired (a cell a bold or reverse pen
// cleared, which vt10x stores unlike a printed one; a character UTF-8 cannot
// carry; a hidden alternate screen that is not one blank, which only a
// resize leaves; a saved cursor a shrink left outside the screen; a wrap
// mark a thaw cannot write).

// frozenScreen is a retired terminal's vt10x.
type frozenScreen struct {
	rows []frozenRow // the screen shown
	// hidden is the primary screen while the alternate one is shown;
	// altBlank what every cell of the alternate screen holds while the
	// primary one is.
	hidden   []frozenRow
	altBlank vt10x.Glyph
	cursor   vt10x.Cursor
	saved    vt10x.Cursor // DECSC's
	visible  bool
	mode     vt10x.ModeFlag
	top      int      // the scroll region's first row
	bottom   int      // and its last
	tabs     []uint16 // the tab stops, nil when they are every 8 columns from 8
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

// freezeRows packs a screen; false when a row would not come back, or the
// bottom row is marked wrapped on a screen too small to write the mark
// (replayer.rows).
func freezeRows(lines [][]vt10x.Glyph) ([]frozenRow, bool) {
	rows := make([]frozenRow, len(lines))
	for y, l := range lines {
		var ok bool
		if rows[y], ok = freezeRow(l); !ok {
			return nil, false
		}
	}
	if last := lines[len(lines)-1]; last[len(last)-1].Mode&vtAttrWrap != 0 && !canMarkBottom(len(last), len(lines)) {
		return nil, false
	}
	return rows, true
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

// vtInner is what a vt10x holds, its unexported parts read in place: the
// screens are vt10x's own rows, to be read under the terminal's lock and
// not kept.
type vtInner struct {
	shown, hidden [][]vt10x.Glyph
	cur, saved    vt10x.Cursor
	top, bottom   int
	mode          vt10x.ModeFlag
	tabs          []bool
	title         string
	overrides     int     // colours OSC 10/11 replaced (never, through the scanner)
	parse         uintptr // the parser's state: mid-sequence or not
}

var (
	glyphType   = reflect.TypeFor[vt10x.Glyph]()
	cursorType  = reflect.TypeFor[vt10x.Cursor]()
	modeType    = reflect.TypeFor[vt10x.ModeFlag]()
	vtStateType = reflect.TypeFor[vt10x.State]()
	boolsType   = reflect.TypeFor[[]bool]()
	stringType  = reflect.TypeFor[string]()
	intType     = reflect.TypeFor[int]()
)

// vtInnerOf reads vt's state; false when vt is not the vt10x this package
// was written against (its terminal wraps a *State with these fields of
// these types), and then nothing is retired.
func vtInnerOf(vt vt10x.Terminal) (s vtInner, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	v := reflect.ValueOf(vt)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct || v.Elem().NumField() == 0 {
		return s, false
	}
	p := v.Elem().Field(0)
	if p.Kind() != reflect.Pointer || p.Type().Elem() != vtStateType || p.IsNil() {
		return s, false
	}
	st := p.Elem()
	field := func(name string, t reflect.Type) (reflect.Value, bool) {
		f := st.FieldByName(name)
		return f, f.IsValid() && (t == nil || f.Type() == t)
	}
	screen := func(name string) ([][]vt10x.Glyph, bool) {
		f, ok := field(name, nil)
		if !ok || f.Kind() != reflect.Slice || f.Type().Elem().Kind() != reflect.Slice || f.Type().Elem().Elem() != glyphType {
			return nil, false
		}
		// A vt10x line is a []Glyph.
		return *(*[][]vt10x.Glyph)(unsafe.Pointer(f.UnsafeAddr())), true
	}
	var okShown, okHidden bool
	s.shown, okShown = screen("lines")
	s.hidden, okHidden = screen("altLines")
	cur, ok1 := field("cur", cursorType)
	saved, ok2 := field("curSaved", cursorType)
	top, ok3 := field("top", intType)
	bottom, ok4 := field("bottom", intType)
	mode, ok5 := field("mode", modeType)
	tabs, ok6 := field("tabs", boolsType)
	title, ok7 := field("title", stringType)
	over, ok8 := field("colorOverride", nil)
	parse, ok9 := field("state", nil)
	if !okShown || !okHidden || !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || !ok6 || !ok7 || !ok8 || !ok9 ||
		over.Kind() != reflect.Map || parse.Kind() != reflect.Func {
		return s, false
	}
	s.cur = *(*vt10x.Cursor)(unsafe.Pointer(cur.UnsafeAddr()))
	s.saved = *(*vt10x.Cursor)(unsafe.Pointer(saved.UnsafeAddr()))
	s.top, s.bottom = int(top.Int()), int(bottom.Int())
	s.mode = vt10x.ModeFlag(mode.Uint())
	s.tabs = *(*[]bool)(unsafe.Pointer(tabs.UnsafeAddr()))
	s.title = title.String()
	s.overrides = over.Len()
	s.parse = parse.Pointer()
	return s, true
}

// sameVTInner says a and b are the same state of a vt10x of cols x rows.
func sameVTInner(a, b *vtInner, cols, rows int) bool {
	if a.cur != b.cur || a.saved != b.saved || a.top != b.top || a.bottom != b.bottom || a.mode != b.mode ||
		a.title != b.title || a.overrides != b.overrides || a.parse != b.parse ||
		len(a.tabs) != len(b.tabs) || len(a.shown) != rows || len(b.shown) != rows || len(a.hidden) != rows || len(b.hidden) != rows {
		return false
	}
	for x := range a.tabs {
		if a.tabs[x] != b.tabs[x] {
			return false
		}
	}
	for y := range rows {
		for _, pair := range [2][2][]vt10x.Glyph{{a.shown[y], b.shown[y]}, {a.hidden[y], b.hidden[y]}} {
			if len(pair[0]) != cols || len(pair[1]) != cols {
				return false
			}
			for x := range cols {
				if pair[0][x] != pair[1][x] {
					return false
				}
			}
		}
	}
	return true
}

// replayer writes the bytes that make a fresh vt10x hold a frozen screen.
type replayer struct {
	b    []byte
	cols int
	pen  vt10x.Glyph // the pen the last SGR set (Char unused)
	gfx  bool        // the line-drawing set is selected
}

func newReplayer(cols int) *replayer {
	return &replayer{b: append(make([]byte, 0, 512), "\x1b[0m\x1b(B"...), cols: cols, pen: defaultPen}
}

// charset selects the line-drawing set or ASCII.
func (w *replayer) charset(gfx bool) {
	if gfx != w.gfx {
		w.gfx = gfx
		if gfx {
			w.b = append(w.b, "\x1b(0"...)
		} else {
			w.b = append(w.b, "\x1b(B"...)
		}
	}
}

// setPen sets the pen to g as vt10x keeps it (stored false), or to what
// writes g's glyph (stored true: the colours swapped back for reverse).
func (w *replayer) setPen(g vt10x.Glyph, stored bool) {
	w.charset(g.Mode&vtGfx != 0)
	pen := vt10x.Glyph{Mode: g.Mode &^ (vtGfx | vtAttrWrap), FG: g.FG, BG: g.BG}
	if stored && pen.Mode&vtReverse != 0 {
		pen.FG, pen.BG = pen.BG, pen.FG
	}
	if pen != w.pen {
		w.b = appendSGRForGlyph(w.b, g, stored)
		w.pen = pen
	}
}

// penFits says vt10x's pen can be set to p by SGR: its colours are ones an
// SGR names.
func penFits(p vt10x.Glyph) bool {
	return (p.FG < 1<<24 || p.FG == vt10x.DefaultFG) && (p.BG < 1<<24 || p.BG == vt10x.DefaultBG)
}

// printable says printing g's character with a pen an SGR sets stores g:
// vt10x brightens a bold pen's foreground 0-7 and swaps a reverse pen's
// colours as it prints, but an erase stores the pen as it is.
func printable(g vt10x.Glyph) bool {
	pen := vt10x.Glyph{Mode: g.Mode &^ vtAttrWrap, FG: g.FG, BG: g.BG}
	if pen.Mode&vtReverse != 0 {
		pen.FG, pen.BG = pen.BG, pen.FG
	}
	out := pen
	if out.Mode&vtBold != 0 && out.FG < 8 {
		out.FG += 8
	}
	if out.Mode&vtReverse != 0 {
		// The pen's own colours, not the brightened one.
		out.FG, out.BG = pen.BG, pen.FG
	}
	return penFits(pen) && out.FG == g.FG && out.BG == g.BG
}

// rows writes each row's cells with their styles into a blank screen:
// cells vt10x's blank already holds are passed over, a wrapped row runs on
// into the next, which is what marks it wrapped, and blanks only an erase
// leaves (an erase stores the pen, which printing may not) are erased with
// that pen once all is printed.
func (w *replayer) rows(rows []frozenRow) {
	type erase struct {
		y, x, n int
		g       vt10x.Glyph
	}
	var erases []erase
	var g []vt10x.Glyph
	wrapped := false // the row above wrapped: the cursor waits past its end
	bottomWraps := false
	for y := range rows {
		g = rows[y].glyphs(g[:0])
		wraps := len(g) > 0 && g[len(g)-1].Mode&vtAttrWrap != 0
		if wraps && y == len(rows)-1 {
			wraps, bottomWraps = false, true
		}
		at := -1 // where the cursor is on this row, -1 not known
		if wrapped {
			at = 0
		}
		for x := 0; x < len(g); x++ {
			gl := g[x]
			// The first cell after a wrap and the last of a wrapped row
			// are printed, whatever they hold: that makes the wrap.
			forced := wrapped && x == 0 || wraps && x == len(g)-1
			if gl == blankVTGlyph && !forced {
				// A short gap is cheaper written than moved over:
				// every byte is a rune through vt10x's parser.
				k := x + 1
				for k < len(g) && g[k] == blankVTGlyph && !(wraps && k == len(g)-1) {
					k++
				}
				if at == x && k < len(g) && (k-x)+4*b2i(w.pen != defaultPen || w.gfx) < 8 {
					w.setPen(blankVTGlyph, true)
					for ; x < k; x++ {
						w.b = append(w.b, ' ')
					}
					at = k
				}
				x = k - 1
				continue
			}
			if gl.Char == ' ' && !printable(gl) && wraps && x == len(g)-1 {
				// vt10x erases without dropping a pending wrap: a
				// blank printed and erased with the pen leaves the
				// cell to be marked by the next row's first.
				if x != at {
					w.b = appendCUP(w.b, y, x)
				}
				w.b = append(w.b, ' ')
				w.setPen(gl, false)
				w.b = appendCSI1(w.b, 1, 'X')
				at = x + 1
				continue
			}
			if gl.Char == ' ' && !printable(gl) {
				n := 1
				for x+n < len(g) && g[x+n] == gl {
					n++
				}
				erases = append(erases, erase{y, x, n, gl})
				if forced {
					if x != at {
						w.b = appendCUP(w.b, y, x)
					}
					w.setPen(blankVTGlyph, true)
					w.b = append(w.b, ' ')
					at = x + 1
				}
				x += n - 1
				continue
			}
			if x != at {
				w.b = appendCUP(w.b, y, x)
			}
			w.setPen(gl, true)
			w.b = utf8.AppendRune(w.b, gl.Char)
			at = x + 1
		}
		wrapped = wraps
	}
	if bottomWraps {
		// A wrap from the bottom row would scroll the screen; below the
		// scroll region it marks the row and writes the next character
		// at its column 0, which is written again so.
		y := len(rows) - 1
		w.b = appendCSI2(w.b, 1, y, 'r')
		w.b = appendCUP(w.b, y, w.cols-1)
		last, first := g[w.cols-1], g[0]
		if first.Char == ' ' && !printable(first) {
			first = blankVTGlyph // erased after
		}
		if last.Char == ' ' && !printable(last) {
			w.b = append(w.b, ' ')
			w.setPen(last, false)
			w.b = appendCSI1(w.b, 1, 'X')
		} else {
			w.setPen(last, true)
			w.b = utf8.AppendRune(w.b, last.Char)
		}
		w.setPen(first, true)
		w.b = utf8.AppendRune(w.b, first.Char)
		w.b = append(w.b, "\x1b[r"...)
	}
	for _, e := range erases {
		w.b = appendCUP(w.b, e.y, e.x)
		w.setPen(e.g, false)
		w.b = appendCSI1(w.b, e.n, 'X')
	}
}

// replay is what a fresh vt10x of the screen's size is written to hold f:
// the hidden screen, the saved cursor, the screen shown, the tab stops, the
// region, the cursor with its pen and pending wrap, and the modes.
func (f *frozenScreen) replay(cols, rows int) []byte {
	w := newReplayer(cols)
	if f.mode&vt10x.ModeAltScreen != 0 {
		w.rows(f.hidden)
		// The alternate screen of a fresh vt10x is blank, and entering
		// it so clears nothing.
		w.b = append(w.b, "\x1b[?47h"...)
	} else if f.altBlank != blankVTGlyph {
		// Leaving the alternate screen clears it with the pen.
		w.setPen(f.altBlank, false)
		w.b = append(w.b, "\x1b[?47h\x1b[?47l"...)
	}
	if s := f.saved; s != defaultCursor {
		// With the whole screen as region, origin mode moves the cursor
		// where it would without.
		if s.State&vtCursorOrigin != 0 {
			w.b = append(w.b, "\x1b[?6h"...)
		}
		w.b = appendCUP(w.b, s.Y, s.X)
		if s.State&vtCursorWrapNext != 0 {
			// A wrap pending when it was saved: a blank written in the
			// last column (the rows write the cell after) leaves it.
			w.setPen(blankVTGlyph, false)
			w.b = append(w.b, ' ')
		}
		w.setPen(s.Attr, false)
		w.b = append(w.b, "\x1b7"...)
		if s.State&vtCursorOrigin != 0 {
			w.b = append(w.b, "\x1b[?6l"...)
		}
	}
	w.rows(f.rows)
	if f.tabs != nil {
		w.b = append(w.b, "\x1b[3g"...)
		for _, x := range f.tabs {
			w.b = appendCUP(w.b, 0, int(x))
			w.b = append(w.b, "\x1bH"...)
		}
	}
	if f.top != 0 || f.bottom != rows-1 {
		w.b = appendCSI2(w.b, f.top+1, f.bottom+1, 'r')
	}
	c := f.cursor
	y := c.Y
	if c.State&vtCursorOrigin != 0 {
		w.b = append(w.b, "\x1b[?6h"...)
		y -= f.top
	}
	if c.State&vtCursorWrapNext != 0 {
		// The last cell written again leaves the wrap pending.
		g := f.rows[c.Y].glyphs(nil)
		w.b = appendCUP(w.b, y, cols-1)
		w.setPen(g[cols-1], true)
		w.b = utf8.AppendRune(w.b, g[cols-1].Char)
	} else {
		w.b = appendCUP(w.b, y, c.X)
	}
	w.setPen(c.Attr, false)
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
			w.b = append(w.b, pm.seq...)
		}
	}
	if m&vt10x.ModeWrap == 0 {
		w.b = append(w.b, "\x1b[?7l"...)
	}
	return w.b
}

// defaultCursor is a fresh vt10x's cursor, and the one it has saved.
var defaultCursor = vt10x.Cursor{Attr: defaultPen}

// retireKey is what a refusal to retire is remembered by: until one of
// these changes, asking again would be refused again.
type retireKey struct {
	cols, rows int
	changes    uint64
}

// Retire lets go of vt10x for a terminal whose output has gone quiet,
// keeping its state packed; it says whether the terminal is retired. A
// terminal that cannot be brought back exactly is left as it is. Any later
// use that needs vt10x brings it back first, the state it had.
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
	key := retireKey{t.cols, t.rows, t.changes}
	if t.retireNo == key {
		return false
	}
	if t.model != nil || len(t.out) > 0 || t.vt == nil {
		return false
	}
	f, ok := t.freezeLocked()
	if !ok {
		t.retireNo = key
		return false
	}
	t.frozen = f
	t.vt = nil
	t.glyphBuf = nil
	return true
}

// freezeLocked packs vt10x's state, checking that a thaw brings it back.
func (t *Terminal) freezeLocked() (f *frozenScreen, ok bool) {
	defer func() {
		if recover() != nil {
			f, ok = nil, false
		}
	}()
	s, ok := vtInnerOf(t.vt)
	if !ok || len(s.shown) != t.rows || len(s.hidden) != t.rows || len(s.tabs) != t.cols {
		return nil, false
	}
	c := s.cur
	if c.Y < 0 || c.Y >= t.rows || c.X < 0 || c.X >= t.cols || s.saved.X >= t.cols || s.saved.Y >= t.rows {
		return nil, false
	}
	f = &frozenScreen{cursor: c, saved: s.saved, visible: s.mode&vt10x.ModeHide == 0, mode: s.mode, top: s.top, bottom: s.bottom}
	if f.rows, ok = freezeRows(s.shown); !ok {
		return nil, false
	}
	if s.mode&vt10x.ModeAltScreen != 0 {
		if f.hidden, ok = freezeRows(s.hidden); !ok {
			return nil, false
		}
	} else {
		f.altBlank = s.hidden[0][0]
		for _, l := range s.hidden {
			for _, g := range l {
				if g != f.altBlank {
					return nil, false
				}
			}
		}
	}
	fresh := true
	for x, on := range s.tabs {
		if on != (x >= 8 && x%8 == 0) {
			fresh = false
		}
	}
	if !fresh {
		f.tabs = []uint16{}
		for x, on := range s.tabs {
			if on {
				f.tabs = append(f.tabs, uint16(x))
			}
		}
	}
	scratch := vt10x.New(vt10x.WithSize(t.cols, t.rows))
	_, _ = scratch.Write(f.replay(t.cols, t.rows))
	back, ok := vtInnerOf(scratch)
	if !ok || !sameVTInner(&s, &back, t.cols, t.rows) {
		return nil, false
	}
	return f, true
}

// thawLocked brings a retired terminal's vt10x back, in the state it had.
// Every use of vt10x goes through peekLocked, which calls it.
func (t *Terminal) thawLocked() {
	f := t.frozen
	t.frozen = nil
	t.vt = vt10x.New(vt10x.WithSize(t.cols, t.rows))
	if f == nil {
		t.altBlankKnown, t.altUniform = false, false
		return
	}
	_, _ = t.vt.Write(f.replay(t.cols, t.rows))
}

// Retired says whether the terminal holds no vt10x now (for tests and
// debug_stats).
func (t *Terminal) Retired() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.vt == nil
}
