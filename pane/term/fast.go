package term

import (
	"strconv"
	"unicode/utf8"

	"github.com/hinshun/vt10x"
)

// The fast path: a model of the screen in place of vt10x.
//
// vt10x costs about a microsecond per rune it parses, whatever the rune does.
// Under a flood of text most of that work is wasted: lines scroll off the top
// moments after vt10x laid them out, and a program redrawing its screen
// overwrites cells many times before anyone looks, and a clear, a scroll
// region or a reverse index moves or blanks whole rows that vt10x would
// rewrite a cell at a time. So when the scanner's state allows it
// (no insert or origin mode, the US-ASCII character set) and a
// long stretch of input holds only what the model handles, vt10x is left
// out of it:
//
//   - What the model handles: printable text (wide characters and
//     combining marks included), SGR, CR, LF, BS, TAB, BEL, ignored
//     controls, cursor movement (CUP, HVP, CUU, CUD, CUF, CUB, CNL, CPL,
//     CHA, HPA, HPR, VPA, VPR), erasing (EL, ECH, ED with tmux's
//     scroll-on-clear), scroll regions (DECSTBM, and the scrolls of LF,
//     IND, NEL, RI, SU, SD, IL, DL within them), ICH, DCH, and saving and
//     restoring the cursor (DECSC, DECRC, SCOSC, SCORC; a restore only of
//     what the model saved, as vt10x's saved cursor cannot be read); and
//     what full-screen programs send between frames that leaves the
//     screen alone: modes (fastedit.go; auto-wrap too, which the walk
//     follows), OSC strings (titles, signals), CSIs the scanner drops
//     (window operations, XTMODKEYS, kitty keyboard, DECRQM) and the
//     queries it answers (DA1, DA2, DSR, CPR with the walk's cursor).
//     A switch of screens ends a stretch (stretchOf): the walk declines
//     it, and a model of the screen being left is not worth making.
//   - A stretch long enough (importMin bytes, or more line feeds than the
//     screen has rows, or any stretch right after the alternate screen was
//     entered) starts a model: vt10x's screen is read into a ring of
//     rows of vt10x glyphs, and the stretch is laid out on it as the scanner
//     and vt10x would lay it out (vt10x's pen, bold brightening and reverse
//     swap, clears with the pen, wrap marks, the scanner's wide characters
//     and clusters). A row that scrolls off the top goes to history as it
//     leaves, as the plain path's line feed saves it.
//   - The model is then the screen and vt10x is behind. Reading cells and
//     the cursor reads the model. Input the model handles continues on it,
//     in this write or the next. Anything else that needs vt10x first writes
//     the model into it (materializeLocked), so that vt10x holds exactly what
//     the plain path would have left; the next long stretch after that
//     starts a model again.
//
// Anything else (another sequence, a zero width joiner, a backspace from
// column 0 below the top row, a tab with altered tab stops, and the few
// edits after which materializeLocked could not make vt10x hold the model:
// see fastedit.go) ends the stretch, and the scanner handles it as usual; a rune or sequence split by
// the end of the input is kept for the next write. fast_test.go feeds the
// same streams through this path and the plain one and requires identical
// screens, raw vt10x glyphs, history, cursor, pen and modes; FuzzFastPath
// does the same for arbitrary input.

const (
	// maxFastCSI bounds the parameter bytes of a sequence the walk takes
	// in, so that its normalised form stays below vt10x's 256-byte CSI
	// buffer (normalising at most doubles it, an empty parameter becoming
	// "0;").
	maxFastCSI = 120
	// importMin is the length of a stretch that makes reading vt10x's
	// screen into a model (about 100 µs for 200x50) and writing it back
	// later (a screenful of runes) worth it (Terminal.importMin, which
	// tests lower).
	importMin = 16 << 10
)

// screenModel is the screen as vt10x would hold it after the stretches the
// walk took in since vt10x was last written.
type screenModel struct {
	ring [][]vt10x.Glyph // ring[(top+y)%len(ring)] is screen row y
	info []rowInfo       // per ring slot
	top  int
	x, y int
	wrap bool        // a wrap is pending
	pen  vt10x.Glyph // vt10x's pen
	// clean is set while every cell is blankVTGlyph (every row's used is
	// 0), so that a flood of clears of a clear screen costs nothing.
	clean bool
	// saved is the cursor DECSC saved while the model was up (hasSaved);
	// one saved before is not known (vt10x keeps it where it cannot be
	// read).
	saved    savedCursor
	hasSaved bool
	// rtop and rbottom are the scroll region as the model leaves it, for
	// materializeLocked: the scanner's top and bottom may already hold a
	// later DECSTBM waiting in its output.
	rtop, rbottom int
}

// savedCursor is what vt10x's saveCursor keeps that its restoreCursor
// gives back (the wrap it drops, origin mode is never on in a model).
type savedCursor struct {
	x, y int
	pen  vt10x.Glyph
}

// rowInfo describes a row of the model.
type rowInfo struct {
	used  int  // the cells that may differ from blankVTGlyph
	fancy bool // a cell may be other than printable ASCII in vt10x's default pen
}

func (m *screenModel) slot(y int) int { return (m.top + y) % len(m.ring) }

// blankVTGlyph is what vt10x leaves in a row that scrolled in.
var blankVTGlyph = vt10x.Glyph{Char: ' ', FG: vt10x.DefaultFG, BG: vt10x.DefaultBG}

// defaultPen is vt10x's pen after a reset.
var defaultPen = vt10x.Glyph{FG: vt10x.DefaultFG, BG: vt10x.DefaultBG}

// fastWalk is one drawing walk over a stretch, on model m.
type fastWalk struct {
	t          *Terminal
	m          *screenModel
	cols, rows int
	x, y       int
	wrapNext   bool
	crlf       bool // LNM: a line feed also returns the carriage
	nowrap     bool // auto-wrap off (DECAWM reset): text at the last column overwrites it
	alt        bool // on the alternate screen: nothing goes to history
	tabs       bool // tab stops are vt10x's defaults
	blank      bool // the scanner's screenBlank as the walk would leave it

	cur    []vt10x.Glyph // the cursor's row
	info   *rowInfo
	plain  bool // the pen is vt10x's default: printable ASCII keeps a row plain
	pen    vt10x.Glyph
	stored vt10x.Glyph // what vt10x stores for a character written with pen
	args   []int       // scratch for CSI parameters
}

// fastReadyLocked reports whether the scanner's state allows the walk: the
// cursor known, nothing waiting for vt10x that could change that, no
// insert or origin mode, no joiner held, no sequence or rune open.
// Either screen will do: on the alternate one nothing goes to history
// (fastWalk.alt), as on the plain path.
func (t *Terminal) fastReadyLocked() bool {
	return !t.fastOff && t.curValid && len(t.out) == 0 &&
		!t.origin && !t.insert && !t.joining &&
		t.sc.state == stGround && t.sc.nutf == 0
}

// modelLocked takes the stretch the model handles at p[i], if any: it
// continues the model, or starts one when the stretch is long enough. It
// returns where the scanner carries on and true, or false having changed
// nothing a reader can see.
func (t *Terminal) modelLocked(p []byte, i int) (int, bool) {
	if t.fastOff || i < t.noFast {
		return 0, false
	}
	if t.model == nil {
		t.resume = false
		if len(p)-i < min(t.importMin, t.rows+1) {
			return 0, false // too short to be worth even looking
		}
		t.syncCursorLocked()
		if !t.fastReadyLocked() {
			return 0, false
		}
		end, lfs := stretchOf(p, i, t.tabsDefault)
		fresh := t.altEntered
		t.altEntered = false
		if end-i < t.importMin && lfs <= t.rows && !fresh {
			t.noFast = max(end, i+1) // a later start before end finds less
			return 0, false
		}
		if !t.importModelLocked() {
			t.noFast = max(end, i+1)
			return 0, false
		}
	}
	if !t.fastReadyLocked() {
		return 0, false
	}
	w := t.newWalkLocked()
	end, open := w.walk(p, i)
	if end == i && !open {
		t.noFast = i + 1 // the scanner takes this one
		return 0, false
	}
	w.settle()
	t.fastBytes += uint64(end - i)
	if open {
		// The input ends inside an element the walk would take (a rune
		// or sequence split by the read): its start is kept for the next
		// write, which continues the model. Unfinished, it has no effect
		// yet either way.
		t.tail = append(t.tail[:0], p[end:]...)
		end = len(p)
	}
	return end, true
}

// importModelLocked reads vt10x's screen into a new model. It declines
// (false) a screen the model could not write back as it is (the bottom row
// marked wrapped, which IL can leave so, or a wrap mark short of a row's
// end, which DCH can leave), and a pen with the line-drawing set, which the
// walk does not model.
func (t *Terminal) importModelLocked() bool {
	var pen vt10x.Glyph
	if !t.guardLocked(func() { pen = t.vt.Cursor().Attr }) || pen.Mode&vtGfx != 0 {
		return false
	}
	m := &screenModel{ring: make([][]vt10x.Glyph, t.rows), info: make([]rowInfo, t.rows), pen: pen, clean: true, rtop: t.top, rbottom: t.bottom}
	cells := make([]vt10x.Glyph, t.cols*t.rows)
	uniform := t.altUniform && t.vmode&vt10x.ModeAltScreen != 0
	if !uniform && t.vmode&vt10x.ModeAltScreen == 0 {
		// A walk on the primary screen changes cells the copy of it
		// (altscreen.go) would keep.
		t.primary.cached = false
	}
	for y := range m.ring {
		row := cells[y*t.cols : (y+1)*t.cols : (y+1)*t.cols]
		if uniform {
			// The alternate screen just entered, as its last leave
			// cleared it: no need to read it.
			for x := range row {
				row[x] = t.altBlank
			}
		} else {
			g, ok := t.readGlyphsLocked(y)
			if !ok {
				return false
			}
			copy(row, g)
		}
		info := &m.info[y]
		for x, gl := range row {
			if gl == blankVTGlyph {
				continue
			}
			if gl.Mode&vtAttrWrap != 0 && x != t.cols-1 {
				return false
			}
			m.clean = false
			info.used = x + 1
			info.fancy = info.fancy || gl.Char < 0x20 || gl.Char >= 0x7f || gl.Mode&^vtAttrWrap != 0 ||
				gl.FG != vt10x.DefaultFG || gl.BG != vt10x.DefaultBG
		}
		m.ring[y] = row
	}
	if m.ring[t.rows-1][t.cols-1].Mode&vtAttrWrap != 0 && !canMarkBottom(t.cols, t.rows) ||
		t.wrapNext && m.ring[t.cy][t.cols-1].Mode&vtAttrWrap != 0 {
		// Making the wrap pending again (materializeLocked) would
		// write the marked cell again, which drops its mark.
		return false
	}
	m.x, m.y, m.wrap = t.cx, t.cy, t.wrapNext
	t.model = m
	t.altUniform = false // the model is the screen now, and vt10x will get it
	return true
}

func (t *Terminal) newWalkLocked() fastWalk {
	m := t.model
	w := fastWalk{t: t, m: m, cols: t.cols, rows: t.rows, x: m.x, y: m.y, wrapNext: m.wrap,
		crlf: t.vmode&vt10x.ModeCRLF != 0, nowrap: t.vmode&vt10x.ModeWrap == 0, alt: t.vmode&vt10x.ModeAltScreen != 0, tabs: t.tabsDefault, blank: t.screenBlank}
	w.row()
	w.setPen(m.pen)
	return w
}

// row points the walk at the cursor's row.
func (w *fastWalk) row() {
	s := w.m.slot(w.y)
	w.cur, w.info = w.m.ring[s], &w.m.info[s]
}

// settle hands the walk's results back to the model and the scanner.
func (w *fastWalk) settle() {
	t, m := w.t, w.m
	m.x, m.y, m.wrap, m.pen = w.x, w.y, w.wrapNext, w.pen
	t.cx, t.cy, t.wrapNext, t.curValid = w.x, w.y, w.wrapNext, true
	// The scanner's screenBlank as it would have kept it; uniform only
	// spares work, and the model does that work cheaply itself.
	t.screenBlank, t.uniform = w.blank, false
}

// stretchOf returns where the stretch of input the walk may take from p[i]
// ends (it may end earlier: a backspace from column 0 below the top row) and
// how many line feeds it holds.
func stretchOf(p []byte, i int, tabs bool) (end, lfs int) {
	for i < len(p) {
		b := p[i]
		switch {
		case b >= 0x20 && b < 0x7f:
		case b == '\n' || b == 0x0b || b == 0x0c:
			lfs++
		case b == '\t' && !tabs:
			return i, lfs
		case b == 0x1b:
			n, final := csiLen(p[i:])
			if n <= 0 || (final == 'h' || final == 'l') && screenSwitch(p[i:i+n]) {
				return i, lfs
			}
			i += n
			continue
		case b < 0x20 || b == 0x7f:
		default:
			if !utf8.FullRune(p[i:]) {
				return i, lfs
			}
			r, size := utf8.DecodeRune(p[i:])
			if r == zwj {
				return i, lfs
			}
			i += size
			continue
		}
		i++
	}
	return i, lfs
}

// screenSwitch reports whether the DECSET or DECRST seq names the
// alternate screen (47, 1047, 1049), which ends a stretch: the walk
// declines a switch, and a model of the screen left is not worth making.
func screenSwitch(seq []byte) bool {
	if len(seq) < 4 || seq[2] != '?' {
		return false
	}
	n, digits := 0, 0
	for _, b := range seq[3:] {
		if b >= '0' && b <= '9' {
			n = n*10 + int(b-'0')
			digits++
			continue
		}
		if digits > 0 && (n == 47 || n == 1047 || n == 1049) {
			return true
		}
		n, digits = 0, 0
	}
	return false
}

// walk goes over the input from p[i] for as long as the model handles it
// and returns where it stopped, and whether it stopped because p ended
// inside an element it would take.
func (w *fastWalk) walk(p []byte, i int) (int, bool) {
	t := w.t
	for i < len(p) {
		b := p[i]
		switch {
		case b >= 0x20 && b < 0x7f:
			j := i + 1
			for j < len(p) && p[j] >= 0x20 && p[j] < 0x7f {
				j++
			}
			n := w.drawASCII(p[i:j])
			if i += n; i < j {
				return i, false
			}
			continue
		case b == '\n' || b == 0x0b || b == 0x0c:
			w.wrapNext = false
			if w.crlf {
				w.x = 0
			}
			w.lineFeed()
			t.lastPrint = 0
			w.blank = false
		case b == '\r':
			w.x, w.wrapNext = 0, false
			t.lastPrint = 0
			w.blank = false
		case b == '\b':
			w.blank = false
			switch {
			case w.wrapNext:
				w.wrapNext = false // onto the last column
			case w.x > 0:
				w.x--
			case w.y > 0:
				// Onto the end of the line above if it wrapped: the scanner
				// decides that from vt10x's cells.
				return i, false
			}
			t.lastPrint = 0
		case b == '\t':
			if !w.tabs {
				return i, false
			}
			if !w.wrapNext && w.x < w.cols-1 {
				w.x = min((w.x/8+1)*8, w.cols-1)
				w.blank = false
			}
			t.lastPrint = 0
		case b == 0x07:
			t.bells++
			t.lastPrint = 0
		case b == 0x1b:
			n, final := csiLen(p[i:])
			if n <= 0 {
				return i, n < 0
			}
			if final == ']' {
				w.osc(p[i : i+n])
				i += n
				continue
			}
			if (n == 2 || final == '(') && !w.esc(final) || n > 2 && final != '(' && !w.csi(p[i:i+n], final) {
				return i, false // declined: the scanner takes it
			}
			i += n
			continue
		case b < 0x20 || b == 0x7f:
			// NUL, SO, SI, CAN and the rest: ignored, as by the scanner.
		default:
			if !utf8.FullRune(p[i:]) {
				return i, true
			}
			r, size := utf8.DecodeRune(p[i:])
			switch {
			case r == utf8.RuneError && size == 1, r >= 0x80 && r < 0xa0:
				// Invalid UTF-8 and C1 controls: dropped, as by the scanner.
			case r == zwj:
				return i, false
			case runeWidth(r) == 0:
				w.combine(r)
				w.blank = false
			default:
				if !w.place(t.clusters.code(r), runeWidth(r)) {
					return i, false
				}
				w.blank = false
			}
			i += size
			continue
		}
		i++
	}
	return i, false
}

// csiLen returns the length and final byte of the sequence at the start of p
// (ESC [ digits, semicolons and colons, a final byte the walk handles, or
// DECSET and DECRST: ESC [ ? ... h or l; or a CSI that only the scanner's
// dispatch acts on, without vt10x or the cursor, final '!': one with a
// prefix or intermediates, DA1, CHT; or one of the two-byte escapes IND,
// NEL, RI, DECSC, DECRC, DECKPAM, DECKPNM, its length 2; or ESC ( B, final
// '('; or an OSC string, final ']'), 0 when p does not start with one, -1
// when p ends before telling.
func csiLen(p []byte) (int, byte) {
	if len(p) >= 2 && p[1] == ']' {
		return oscLen(p)
	}
	if len(p) >= 2 && p[1] != '[' {
		switch p[1] {
		case 'D', 'E', 'M', '7', '8', '=', '>':
			return 2, p[1]
		case '(':
			if len(p) < 3 {
				return -1, 0
			}
			if p[2] == 'B' {
				return 3, '('
			}
		}
		return 0, 0
	}
	var prefix byte
	if len(p) >= 3 && p[2] >= '<' && p[2] <= '?' {
		prefix = p[2]
	}
	inter := false
	for k := 2 + b2i(prefix != 0); k < len(p); k++ {
		b := p[k]
		switch {
		case k >= maxFastCSI+3:
			return 0, 0
		case b >= '0' && b <= '9', b == ';', b == ':':
			continue
		case b >= 0x20 && b <= 0x2f:
			inter = true
			continue
		case b < 0x40 || b > 0x7e:
			return 0, 0 // a control, DEL or a misplaced prefix: the scanner's
		case prefix == '?' && !inter && (b == 'h' || b == 'l'):
			return k + 1, b
		case prefix != 0 || inter:
			// What the scanner drops (kitty keyboard, XTMODKEYS,
			// XTVERSION, DECRQM, DECSCUSR but for the shape) or answers
			// (DA2): its own dispatch takes it, touching neither vt10x
			// nor the cursor.
			return k + 1, '!'
		}
		switch b {
		case 'm', 'H', 'f', 'A', 'B', 'e', 'C', 'a', 'D', 'E', 'F', 'G', '`', 'd', 'K', 'X',
			'J', 'L', 'M', '@', 'P', 'S', 'T', 'r', 's', 'u', 't', 'h', 'l', 'n':
			return k + 1, b
		case 'c', 'I':
			// DA1, answered; CHT, ignored (as tmux 3.3a).
			return k + 1, '!'
		}
		return 0, 0
	}
	if len(p) >= maxFastCSI+3 {
		return 0, 0
	}
	return -1, 0
}

// maxFastOSC bounds the OSC strings the walk takes in, below the scanner's
// maxOSC so that none overflows.
const maxFastOSC = 1024

// oscLen is csiLen for an OSC string (ESC ], ended by BEL or ESC \), its
// final ']'; a string ended otherwise (CAN, SUB, ESC and another byte) is
// left to the scanner.
func oscLen(p []byte) (int, byte) {
	for k := 2; k < len(p); k++ {
		switch b := p[k]; {
		case k >= maxFastOSC:
			return 0, 0
		case b == 0x07:
			return k + 1, ']'
		case b == 0x1b:
			if k+1 == len(p) {
				return -1, 0
			}
			if p[k+1] == '\\' {
				return k + 2, ']'
			}
			return 0, 0
		case b == 0x18 || b == 0x1a:
			return 0, 0
		}
	}
	if len(p) >= maxFastOSC {
		return 0, 0
	}
	return -1, 0
}

// drawASCII draws a run of printable ASCII: place for each byte, a row's
// worth at a time. It returns how many bytes it drew: fewer than all when a
// wrap is declined (autoWrap).
func (w *fastWalk) drawASCII(all []byte) int {
	b := all
	for len(b) > 0 {
		if w.wrapNext && w.nowrap {
			// No auto-wrap: each byte overwrites the last column, so the
			// last one stays (the scanner sends vt10x only that one).
			w.cur[w.cols-1] = w.stored
			w.cur[w.cols-1].Char = rune(b[len(b)-1])
			w.info.used = w.cols
			w.info.fancy = w.info.fancy || !w.plain
			b = b[:0]
			break
		}
		if w.wrapNext && !w.autoWrap() {
			break
		}
		n := min(w.cols-w.x, len(b))
		row := w.cur[w.x : w.x+n]
		for k, c := range b[:n] {
			row[k] = w.stored
			row[k].Char = rune(c)
		}
		w.x += n
		w.info.used = max(w.info.used, w.x)
		w.info.fancy = w.info.fancy || !w.plain
		if w.x == w.cols {
			w.x, w.wrapNext = w.cols-1, true
		}
		b = b[n:]
	}
	n := len(all) - len(b)
	if n > 0 {
		w.t.lastPrint, w.t.lastWidth = rune(all[n-1]), 1
		w.m.clean, w.blank = false, false
	}
	return n
}

// place lays out one character of width cells as placeLocked and vt10x do;
// false declines it (autoWrap), having changed nothing.
func (w *fastWalk) place(code rune, width int) bool {
	if width > w.cols {
		return true // can never fit: dropped
	}
	if w.wrapNext || width == 2 && w.x == w.cols-1 {
		switch {
		case w.nowrap && width == 2:
			return true // does not fit and may not wrap: dropped, as placeLocked drops it
		case w.nowrap:
			// Overwrites the last column, the wrap staying pending.
		case !w.autoWrap():
			// A wide character that does not fit wraps the row as a
			// character would (wideWrapLocked).
			return false
		}
	}
	w.m.clean = false
	w.put(code)
	if width == 2 {
		w.put(contRune)
	}
	w.t.lastPrint, w.t.lastWidth = code, width
	return true
}

// put is vt10x writing one rune at the cursor (no wrap pending).
func (w *fastWalk) put(c rune) {
	w.cur[w.x] = w.stored
	w.cur[w.x].Char = c
	w.info.used = max(w.info.used, w.x+1)
	w.info.fancy = w.info.fancy || !w.plain || c >= 0x7f
	if w.x+1 < w.cols {
		w.x++
	} else {
		w.wrapNext = true
	}
}

// autoWrap is vt10x's wrap before a character written with a wrap pending:
// the row is marked wrapped and the cursor goes to the start of the next.
// It declines (false) a wrap on the screen's bottom row below the scroll
// region, which marks that row wrapped without scrolling: materializeLocked
// cannot make such a mark.
func (w *fastWalk) autoWrap() bool {
	if w.y == w.rows-1 && w.t.bottom != w.rows-1 && !canMarkBottom(w.cols, w.rows) {
		return false
	}
	w.cur[w.cols-1].Mode |= vtAttrWrap
	w.info.used = w.cols
	w.m.clean = false
	w.x = 0
	w.lineFeed()
	return true
}

// lineFeed is vt10x's line feed (the column is the caller's): on the scroll
// region's bottom row the region scrolls and its top row goes to history,
// as the plain path saves it; below the region the cursor stops at the
// screen's bottom.
func (w *fastWalk) lineFeed() {
	w.wrapNext = false
	if b := w.t.bottom; w.y != b {
		if w.y < w.rows-1 {
			w.y++
			w.row()
		}
		return
	}
	w.saveRows(w.t.top, 1)
	w.scrollUp(w.t.top, 1, blankVTGlyph)
}

// saveRows saves screen rows y0..y0+n-1 of the model to history, as
// captureRowsLocked saves vt10x's.
func (w *fastWalk) saveRows(y0, n int) {
	t, m := w.t, w.m
	if t.h.limit <= 0 || w.alt {
		return
	}
	for y := y0; y < y0+n; y++ {
		s := m.slot(y)
		row := m.ring[s][:m.info[s].used]
		if m.info[s].fancy {
			t.h.push(t.encodeGlyphsLocked(row, w.cols))
		} else {
			t.h.push(t.encodePlainLocked(row, w.cols))
		}
		t.fastLines++
	}
}

// setPen sets vt10x's pen and what it stores for a character (vt10x's
// setChar: bold brightens colours 0-7, reverse swaps the colours).
func (w *fastWalk) setPen(pen vt10x.Glyph) {
	w.pen = pen
	w.plain = pen == defaultPen
	w.stored = storedOf(pen)
}

// storedOf is the glyph vt10x stores for a character written with pen
// (setChar, without the character set, which the model never has).
func storedOf(pen vt10x.Glyph) vt10x.Glyph {
	g := pen
	if pen.Mode&vtBold != 0 && pen.FG < 8 {
		g.FG = pen.FG + 8
	}
	if pen.Mode&vtReverse != 0 {
		g.FG, g.BG = pen.BG, pen.FG
	}
	return g
}

// writable reports whether writing g's character with the pen
// penFromStored derives from it (and g's character set) makes g, its wrap
// mark aside: true for every glyph a character made, and for what a clear
// left unless the pen had bold with colours 0-7 (which a character
// brightens).
func writable(g vt10x.Glyph) bool {
	want := g
	want.Mode &^= vtAttrWrap
	got := storedOf(penFromStored(g))
	got.Mode |= g.Mode & vtGfx
	got.Char = g.Char
	return got == want
}

// scan runs the CSI seq through the scanner's own parser and dispatch and
// returns what the scanner would send vt10x for it, which stays in t.out's
// spare capacity only until the next append: use it before writing more.
func (w *fastWalk) scan(seq []byte) []byte {
	t := w.t
	mark := len(t.out)
	t.sc.state = stEsc
	t.escByteLocked('[')
	for _, b := range seq[2:] {
		if t.sc.state != stCSI {
			// Malformed (stCSIIgnore): the rest, up to the final
			// byte, is consumed without effect.
			break
		}
		t.csiByteLocked(b)
	}
	t.sc.state = stGround
	out := t.out[mark:]
	t.out = t.out[:mark]
	return out
}

// csi runs a sequence the walk handles through the scanner's own parser and
// dispatch, then applies what the scanner would send vt10x as vt10x would;
// false declines it, having changed nothing.
func (w *fastWalk) csi(seq []byte, final byte) bool {
	switch final {
	case 'm':
		w.sgr(seq)
		return true
	case 'J', 'L', 'M', '@', 'P', 'S', 'T', 'r', 's', 'u':
		return w.edit(seq, final)
	case 'h', 'l':
		if seq[2] != '?' {
			return w.ansiModes(seq, final == 'h')
		}
		return w.privateModes(seq, final == 'h')
	case 't':
		// Dropped by the dispatch (window operations), which still ends
		// a REP's run.
		if w.parse(seq) {
			t := w.t
			t.lastPrint = 0
		}
		return true
	case '!':
		// The scanner's dispatch alone (csiLen): a reply, a cursor
		// shape, or nothing.
		w.scan(seq)
		return true
	case 'n':
		w.deviceStatus(seq)
		return true
	}
	out := w.scan(seq)
	if len(out) == 0 {
		return true // dropped (an overflowing parameter, EL 3 and up)
	}
	if out[len(out)-1] != 'H' {
		w.blank = false // the scanner touched the screen (all but CUP do)
	}
	a := vtArgs(out[2:len(out)-1], w.args[:0])
	w.args = a
	arg := func(i, def int) int {
		if i < len(a) {
			return a[i]
		}
		return def
	}
	n := max(arg(0, 1), 1) // vt10x's maxarg(0, 1) for the relative moves
	switch out[len(out)-1] {
	case 'H':
		w.moveTo(arg(1, 1)-1, arg(0, 1)-1)
	case 'A':
		w.moveTo(w.x, w.y-n)
	case 'B', 'e':
		w.moveTo(w.x, w.y+n)
	case 'C', 'a':
		w.moveTo(w.x+n, w.y)
	case 'D':
		w.moveTo(w.x-n, w.y)
	case 'E':
		w.moveTo(0, w.y+arg(0, 1))
	case 'F':
		w.moveTo(0, w.y-arg(0, 1))
	case 'G', '`':
		w.moveTo(arg(0, 1)-1, w.y)
	case 'd':
		w.moveTo(w.x, arg(0, 1)-1)
	case 'K':
		switch arg(0, 0) {
		case 0:
			w.clear(w.x, w.cols-1)
		case 1:
			w.clear(0, w.x)
		case 2:
			w.clear(0, w.cols-1)
		}
	case 'X':
		w.clear(w.x, min(w.x+arg(0, 1)-1, w.cols-1))
	}
	return true
}

// deviceStatus answers DSR as csiDispatchLocked does, with the walk's
// cursor (origin mode is never on in a walk).
func (w *fastWalk) deviceStatus(seq []byte) {
	t := w.t
	s := &t.sc
	if !w.parse(seq) {
		return
	}
	t.lastPrint = 0
	switch s.param(0, 0) {
	case 5:
		t.replies = append(t.replies, replyDSR...)
	case 6:
		t.replies = append(t.replies, 0x1b, '[')
		t.replies = strconv.AppendInt(t.replies, int64(w.y+1), 10)
		t.replies = append(t.replies, ';')
		t.replies = strconv.AppendInt(t.replies, int64(w.x+1), 10)
		t.replies = append(t.replies, 'R')
	}
}

// moveTo is vt10x's moveTo: clamped to the screen, no wrap pending.
func (w *fastWalk) moveTo(x, y int) {
	w.x = min(max(x, 0), w.cols-1)
	w.y = min(max(y, 0), w.rows-1)
	w.wrapNext = false
	w.row()
}

// clear is vt10x's clear of columns x0..x1 of the cursor's row: the pen as
// it is, with a space. The cursor and a pending wrap stay.
func (w *fastWalk) clear(x0, x1 int) {
	w.m.clearCells(w.m.slot(w.y), x0, x1, w.penBlank(), w.cols)
}

// sgr applies an SGR: what the scanner makes of one depends on its bytes
// alone, so that is remembered (sgrMemo) and a flood of colours is parsed
// once per distinct sequence.
func (w *fastWalk) sgr(seq []byte) {
	t := w.t
	body := seq[2 : len(seq)-1]
	if len(body) == 0 || len(body) == 1 && body[0] == '0' {
		// A reset, half the SGRs of coloured output: sgrLocked sends it
		// as it is.
		t.lastPrint = 0
		w.setPen(vtSetAttr(w.pen, nil))
		return
	}
	eff, ok := t.sgrMemo[string(body)]
	if !ok {
		eff, ok = w.sgrParse(seq)
		if !ok {
			return // applied, not to be remembered
		}
		if len(t.sgrMemo) >= maxSGRMemo {
			clear(t.sgrMemo)
		}
		if t.sgrMemo == nil {
			t.sgrMemo = make(map[string]string)
		}
		t.sgrMemo[string(body)] = eff
	}
	if eff[0] == sgrDropped {
		return
	}
	t.lastPrint = 0 // as csiDispatchLocked does
	if eff[0] == sgrSent {
		w.args = w.args[:0]
		for k := 1; k < len(eff); k++ {
			w.args = append(w.args, int(eff[k]))
		}
		w.setPen(vtSetAttr(w.pen, w.args))
	}
}

// What the scanner does with an SGR, the first byte of a memo entry; for
// sgrSent the parameters vt10x reads follow, one byte each.
const (
	sgrDropped = iota // an overflowing parameter: the sequence is ignored
	sgrNothing        // dispatched, but no attribute vt10x can hold
	sgrSent           // dispatched and sent to vt10x
)

// maxSGRMemo bounds a terminal's memo of SGRs (under 100 KB; every 256-colour
// foreground, bold or not, fits).
const maxSGRMemo = 1024

// sgrParse runs seq through the scanner and returns its memo entry, or
// applies it and returns false when it cannot be remembered.
func (w *fastWalk) sgrParse(seq []byte) (string, bool) {
	t := w.t
	out := w.scan(seq)
	switch {
	case t.sc.overflow:
		return string(rune(sgrDropped)), true
	case len(out) == 0:
		return string(rune(sgrNothing)), true
	}
	w.args = vtArgs(out[2:len(out)-1], w.args[:0])
	eff := []byte{sgrSent}
	for _, a := range w.args {
		// sgrLocked sends attribute numbers and colour components, all
		// below 256; anything else would not fit the entry.
		if a > 255 {
			w.setPen(vtSetAttr(w.pen, w.args))
			return "", false
		}
		eff = append(eff, byte(a))
	}
	return string(eff), true
}

// combine joins a zero-width rune to the cell before the cursor as
// combineLocked does, on the model.
func (w *fastWalk) combine(r rune) {
	t := w.t
	px := w.x - 1
	if w.wrapNext {
		px = w.x
	}
	if px < 0 {
		return
	}
	g := w.cur[px]
	if g.Char == contRune && px > 0 && runeWidth(t.clusters.base(w.cur[px-1].Char)) == 2 {
		px--
		g = w.cur[px]
	}
	if g.Char == contRune {
		g.Char = ' '
	}
	code, ok := t.clusters.combine(g.Char, r)
	if !ok {
		return
	}
	// combineLocked rewrites the cell with a pen made from the cell
	// (appendSGRForGlyph), then puts the pen back.
	stored := storedOf(penFromStored(g))
	w.cur[px] = stored
	w.cur[px].Char = code
	w.info.used = max(w.info.used, px+1)
	w.info.fancy = true
	w.m.clean = false
	if runeWidth(t.clusters.base(code)) == 2 && w.wrapNext && px == w.cols-2 {
		w.cur[w.cols-1] = stored
		w.cur[w.cols-1].Char = contRune
		w.info.used = w.cols
	}
	if t.lastPrint != 0 {
		t.lastPrint = code
	}
}
