package term

import (
	"fmt"
	"unicode/utf8"

	"github.com/hinshun/vt10x"
)

// The scroll-off fast path.
//
// vt10x costs about a microsecond per rune it parses, whatever the rune does.
// Under a flood of text most of that work is wasted: lines scroll off the top
// moments after vt10x laid them out, and they are read back only to be saved
// to history. So when the cursor sits on the bottom row of the primary screen
// (scroll region the whole screen, auto-wrap on, no insert mode, no origin
// mode, the US-ASCII character set) and a line feed starts a stretch of
// simple content (printable text, SGR, CR, LF, BS, TAB, BEL, ignored
// controls; combining marks and wide characters included) that holds more
// line advances than the screen has rows, vt10x is left out of it:
//
//  1. A first walk over the input counts the line advances (line feeds,
//     auto-wraps, and the wrap before a wide character that does not fit),
//     exactly as the scanner and vt10x would lay the text out.
//  2. There are more than rows of them, so the whole screen scrolls away:
//     its rows go to history (what the line feeds would have saved one by
//     one).
//  3. A second walk lays the stretch out on a model of the screen (a ring of
//     rows of vt10x glyphs, built the way vt10x builds them: its pen, bold
//     brightening and reverse swap, wrap marks, the scanner's wide
//     characters and clusters); each row that scrolls off the model goes to
//     history as it leaves.
//  4. The model is now the screen, and vt10x is behind. Reading cells and
//     the cursor reads the model. Input that continues the stretch (the next
//     write of a flood) continues on the model. Anything else that needs
//     vt10x first writes the model into it (materializeLocked: a clear, then
//     each row's cells with their pens, wraps made by wrapping, the cursor
//     and the pen), so that vt10x holds exactly what the plain path would
//     have left.
//
// Anything the walk does not model (another escape sequence, a zero width
// joiner, a backspace onto the line above, a tab with altered tab stops, an
// incomplete rune at the end of the input) ends the stretch; the scanner
// handles it as usual. fast_test.go feeds the same streams through this path
// and the plain one and requires identical screens, history, cursor, pen and
// modes; FuzzFastPath does the same for arbitrary input.

// maxFastSGR bounds the parameter bytes of an SGR the walk takes in, so that
// its normalised form stays below vt10x's 256-byte CSI buffer (normalising
// at most doubles it, an empty parameter becoming "0;").
const maxFastSGR = 120

// screenModel is the screen as vt10x would hold it after the stretches of
// simple content the walk took in since vt10x was last written: the cursor
// is on its bottom row.
type screenModel struct {
	ring   [][]vt10x.Glyph // ring[(top+y)%len(ring)] is screen row y
	info   []rowInfo       // per ring slot
	top    int
	x      int
	wrap   bool        // a wrap is pending
	pen    vt10x.Glyph // vt10x's pen
	ghosts int         // rows at the top that history already holds: the screen that scrolled away whole
}

func newScreenModel(cols, rows int) *screenModel {
	m := &screenModel{ring: make([][]vt10x.Glyph, rows), info: make([]rowInfo, rows)}
	cells := make([]vt10x.Glyph, cols*rows)
	for i := range cells {
		cells[i] = blankVTGlyph
	}
	for y := range m.ring {
		m.ring[y] = cells[y*cols : (y+1)*cols : (y+1)*cols]
	}
	return m
}

func (m *screenModel) slot(y int) int { return (m.top + y) % len(m.ring) }

// rowInfo describes a row of the model.
type rowInfo struct {
	used  int  // the cells that may differ from blankVTGlyph
	fancy bool // a cell may be other than printable ASCII in vt10x's default pen
}

// fastWalk is one walk over simple content. The first walk only counts
// advances; the drawing walk also builds the model's rows and sends those
// that scroll off to history.
type fastWalk struct {
	t           *Terminal
	cols, rows  int
	x           int
	wrapNext    bool
	prevWrapped bool // the line above the cursor ended in an auto-wrap
	crlf        bool // LNM: a line feed also returns the carriage
	tabs        bool // tab stops are vt10x's defaults
	adv         int  // line advances so far

	m      *screenModel // nil for the counting walk
	cur    []vt10x.Glyph
	info   *rowInfo
	plain  bool // the pen is vt10x's default: printable ASCII keeps a row plain
	pen    vt10x.Glyph
	stored vt10x.Glyph // what vt10x stores for a character written with pen
	args   []int       // scratch for SGR parameters
}

// blankVTGlyph is what vt10x leaves in a row that scrolled in.
var blankVTGlyph = vt10x.Glyph{Char: ' ', FG: vt10x.DefaultFG, BG: vt10x.DefaultBG}

// fastReadyLocked reports whether the scanner's state allows the walk: the
// cursor known on the bottom row of a whole-screen scroll region of the
// primary screen, auto-wrap on, nothing waiting for vt10x that could change
// that, no insert or origin mode, no joiner held, no sequence or rune open.
func (t *Terminal) fastReadyLocked() bool {
	return !t.fastOff && t.curValid && len(t.out) == 0 && t.cy == t.rows-1 && t.top == 0 && t.bottom == t.rows-1 &&
		!t.origin && !t.insert && !t.joining && t.vmode&vt10x.ModeAltScreen == 0 && t.vmode&vt10x.ModeWrap != 0 &&
		t.sc.state == stGround && t.sc.nutf == 0
}

// scrollOffLocked tries the fast path at the line feed p[i]. It returns the
// offset at which the scanner carries on and true when it took a stretch,
// or false, having changed nothing vt10x or a reader can see, when it did not.
func (t *Terminal) scrollOffLocked(p []byte, i int) (int, bool) {
	if t.model != nil {
		if end := t.continueLocked(p, i); end > i {
			return end, true
		}
		return 0, false
	}
	t.syncCursorLocked()
	if !t.fastReadyLocked() {
		return 0, false
	}
	var pen vt10x.Glyph
	if !t.guardLocked(func() { pen = t.vt.Cursor().Attr }) || pen.Mode&vtGfx != 0 {
		return 0, false
	}
	// After the line feed the row above the cursor is the bottom row now,
	// which may have been left wrapped (moved there by IL, say).
	above := t.rowWrappedLocked(t.rows - 1)
	w := t.newWalkLocked()
	start := w
	w.lineFeed()
	w.prevWrapped = above
	end, open := w.walk(p, i+1)
	if w.adv <= t.rows {
		t.noFast = end // a later line feed before end would find even fewer
		return 0, false
	}

	// Committed: the screen scrolls away whole, the model takes its place.
	t.captureRowsLocked(0, t.rows)
	m := newScreenModel(t.cols, t.rows)
	m.ghosts = t.rows
	m.pen = pen
	t.model = m
	d := start
	d.draw(m)
	d.lineFeed()
	d.prevWrapped = above
	if got, _ := d.walk(p, i+1); got != end || d.adv != w.adv || m.ghosts != 0 {
		// Cannot happen: both walks decide alike. Should it, say so.
		t.logs = append(t.logs, fmt.Sprintf("term: scroll-off fast path lost its place (%d/%d bytes, %d/%d advances, %d ghosts)", got, end, d.adv, w.adv, m.ghosts))
	}
	d.settle()
	return t.keepTailLocked(p, end, open), true
}

// keepTailLocked ends a drawing walk that stopped at end: when the input
// ends there inside an element the walk would take (a rune or an SGR split
// by the read), the element's start is kept for the next write, which then
// continues the model instead of making the scanner write it into vt10x.
// Unfinished, it has no effect yet either way. It returns what was consumed.
func (t *Terminal) keepTailLocked(p []byte, end int, open bool) int {
	if !open {
		return end
	}
	t.tail = append(t.tail[:0], p[end:]...)
	return len(p)
}

// continueLocked continues the model with the simple content at p[i:] and
// returns where that ends (i when it takes nothing).
func (t *Terminal) continueLocked(p []byte, i int) int {
	if !t.fastReadyLocked() {
		return i
	}
	m := t.model
	w := t.newWalkLocked()
	if t.rows > 1 {
		w.prevWrapped = m.ring[m.slot(t.rows-2)][t.cols-1].Mode&vtAttrWrap != 0
	}
	w.x, w.wrapNext = m.x, m.wrap
	w.draw(m)
	end, open := w.walk(p, i)
	w.settle()
	return t.keepTailLocked(p, end, open)
}

func (t *Terminal) newWalkLocked() fastWalk {
	return fastWalk{t: t, cols: t.cols, rows: t.rows, x: t.cx, crlf: t.vmode&vt10x.ModeCRLF != 0, tabs: t.tabsDefault}
}

// draw makes the walk build model m.
func (w *fastWalk) draw(m *screenModel) {
	w.m = m
	s := m.slot(w.rows - 1)
	w.cur, w.info = m.ring[s], &m.info[s]
	w.setPen(m.pen)
}

// settle hands the drawing walk's results back to the scanner.
func (w *fastWalk) settle() {
	t, m := w.t, w.m
	m.x, m.wrap, m.pen = w.x, w.wrapNext, w.pen
	t.cx, t.cy, t.wrapNext, t.curValid = w.x, w.rows-1, w.wrapNext, true
	t.touchedLocked()
}

// lineFeed is vt10x's line feed at the bottom of the screen.
func (w *fastWalk) lineFeed() {
	w.wrapNext = false
	if w.crlf {
		w.x = 0
	}
	w.forget()
	w.advance(advFeed)
}

// walk goes over simple content from p[i] and returns where it ends, and
// whether it ended because p ended inside an element it would take.
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
			if w.m == nil {
				w.skipASCII(j - i)
			} else {
				w.drawASCII(p[i:j])
			}
			i = j
			continue
		case b == '\n' || b == 0x0b || b == 0x0c:
			w.lineFeed()
		case b == '\r':
			w.x, w.wrapNext = 0, false
			w.forget()
		case b == '\b':
			switch {
			case w.wrapNext:
				w.wrapNext = false // onto the last column
			case w.x > 0:
				w.x--
			case w.prevWrapped && w.rows > 1:
				return i, false // back onto the line above: not modelled
			}
			w.forget()
		case b == '\t':
			if !w.tabs {
				return i, false
			}
			if !w.wrapNext && w.x < w.cols-1 {
				w.x = min((w.x/8+1)*8, w.cols-1)
			}
			w.forget()
		case b == 0x07:
			if w.m != nil {
				t.bells++
			}
			w.forget()
		case b == 0x1b:
			n := sgrLen(p[i:])
			if n <= 0 {
				return i, n < 0
			}
			if w.m != nil {
				w.sgr(p[i : i+n])
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
				if w.m != nil {
					w.combine(r)
				}
			default:
				code := r
				if w.m != nil {
					code = t.clusters.code(r)
				}
				w.place(code, runeWidth(r))
			}
			i += size
			continue
		}
		i++
	}
	return i, false
}

// sgrLen returns the length of the SGR at the start of p (ESC [ digits,
// semicolons and colons, m) that the walk takes in, 0 when p does not start
// with one, -1 when p ends before telling.
func sgrLen(p []byte) int {
	if len(p) >= 2 && p[1] != '[' {
		return 0
	}
	for k := 2; k < len(p); k++ {
		switch b := p[k]; {
		case k >= maxFastSGR+3:
			return 0
		case b == 'm':
			return k + 1
		case b >= '0' && b <= '9', b == ';', b == ':':
		default:
			return 0
		}
	}
	if len(p) >= maxFastSGR+3 {
		return 0
	}
	return -1
}

// forget is what a control does to the character REP would repeat.
func (w *fastWalk) forget() {
	if w.m != nil {
		w.t.lastPrint = 0
	}
}

// skipASCII lays out n printable ASCII characters without drawing them.
func (w *fastWalk) skipASCII(n int) {
	for n > 0 {
		if w.wrapNext {
			w.x = 0
			w.advance(advAutoWrap)
		}
		m := min(w.cols-w.x, n)
		w.x += m
		n -= m
		if w.x == w.cols {
			w.x, w.wrapNext = w.cols-1, true
		}
	}
}

// drawASCII draws a run of printable ASCII: place for each byte, a row's
// worth at a time.
func (w *fastWalk) drawASCII(b []byte) {
	w.t.lastPrint, w.t.lastWidth = rune(b[len(b)-1]), 1
	for len(b) > 0 {
		if w.wrapNext {
			w.x = 0
			w.advance(advAutoWrap)
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
}

// place lays out one character of width cells as placeLocked and vt10x do.
func (w *fastWalk) place(code rune, width int) {
	if width > w.cols {
		return // can never fit: dropped
	}
	switch {
	case w.wrapNext:
		w.x = 0
		w.advance(advAutoWrap)
	case width == 2 && w.x == w.cols-1:
		w.x = 0
		w.advance(advWideWrap)
	}
	w.put(code)
	if width == 2 {
		w.put(contRune)
	}
	if w.m != nil {
		w.t.lastPrint, w.t.lastWidth = code, width
	}
}

// put is vt10x writing one rune at the cursor (no wrap pending).
func (w *fastWalk) put(c rune) {
	if w.m != nil {
		w.cur[w.x] = w.stored
		w.cur[w.x].Char = c
		w.info.used = max(w.info.used, w.x+1)
		w.info.fancy = w.info.fancy || !w.plain || c >= 0x7f
	}
	if w.x+1 < w.cols {
		w.x++
	} else {
		w.wrapNext = true
	}
}

// Kinds of line advance.
const (
	advFeed     = iota // a line feed
	advAutoWrap        // vt10x's auto-wrap before a character
	advWideWrap        // the scanner's "\n\r" before a wide character that does not fit
)

// advance moves to a new line. Drawing, the model scrolls and its top row
// goes to history, unless history already has it (a ghost).
func (w *fastWalk) advance(kind int) {
	w.adv++
	w.prevWrapped = kind == advAutoWrap
	w.wrapNext = false
	m := w.m
	if m == nil {
		return
	}
	t := w.t
	if kind == advAutoWrap {
		w.cur[w.cols-1].Mode |= vtAttrWrap
		w.info.used = w.cols
	}
	s := m.top
	row := m.ring[s]
	switch {
	case m.ghosts > 0:
		m.ghosts--
	case t.h.limit > 0:
		var l histLine
		if m.info[s].fancy {
			l = t.encodeGlyphsLocked(row[:m.info[s].used], w.cols)
		} else {
			l = t.encodePlainLocked(row[:m.info[s].used], w.cols)
		}
		// On a one-row screen the plain path saves the row before either
		// wrap and marks it wrapped itself (captureWrapLocked).
		l.wrapped = l.wrapped || (kind == advWideWrap && w.rows == 1)
		t.h.push(l)
		t.fastLines++
	default:
		t.fastLines++
	}
	for x := range row[:m.info[s].used] {
		row[x] = blankVTGlyph
	}
	m.info[s] = rowInfo{}
	m.top = (m.top + 1) % len(m.ring)
	w.cur, w.info = row, &m.info[s]
}

// setPen sets vt10x's pen and what it stores for a character (vt10x's
// setChar: bold brightens colours 0-7, reverse swaps the colours).
func (w *fastWalk) setPen(pen vt10x.Glyph) {
	w.pen = pen
	w.plain = pen == vt10x.Glyph{FG: vt10x.DefaultFG, BG: vt10x.DefaultBG}
	w.stored = pen
	if pen.Mode&vtBold != 0 && pen.FG < 8 {
		w.stored.FG = pen.FG + 8
	}
	if pen.Mode&vtReverse != 0 {
		w.stored.FG, w.stored.BG = pen.BG, pen.FG
	}
}

// sgr runs an SGR through the scanner's own parser and normalisation, then
// applies what it would send vt10x to the pen as vt10x would. What the
// scanner makes of an SGR depends on its bytes alone, so that is remembered
// (sgrMemo) and a flood of colours is parsed once per distinct sequence.
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
	mark := len(t.out)
	t.sc.state = stEsc
	t.escByteLocked('[')
	for _, b := range seq[2:] {
		t.csiByteLocked(b)
	}
	out := t.out[mark:]
	t.out = t.out[:mark]
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
// combineLocked does, on the row being drawn.
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
	pen, stored, plain := w.pen, w.stored, w.plain
	w.setPen(penFromStored(g))
	w.cur[px] = w.stored
	w.cur[px].Char = code
	w.info.used = max(w.info.used, px+1)
	w.info.fancy = true
	if runeWidth(t.clusters.base(code)) == 2 && w.wrapNext && px == w.cols-2 {
		w.cur[w.cols-1] = w.stored
		w.cur[w.cols-1].Char = contRune
		w.info.used = w.cols
	}
	w.pen, w.stored, w.plain = pen, stored, plain
	if t.lastPrint != 0 {
		t.lastPrint = code
	}
}

// penFromStored is the pen appendSGRForGlyph(g, true) gives vt10x: the
// colours swapped back for reverse video, the attributes SGR can set, and no
// character set change (the walk runs only with US-ASCII selected).
func penFromStored(g vt10x.Glyph) vt10x.Glyph {
	fg, bg := g.FG, g.BG
	if g.Mode&vtReverse != 0 {
		fg, bg = bg, fg
	}
	pen := vt10x.Glyph{Mode: g.Mode & (vtBold | vtItalic | vtUnderline | vtBlink | vtReverse), FG: vt10x.DefaultFG, BG: vt10x.DefaultBG}
	if fg < vt10x.DefaultFG {
		pen.FG = fg
	}
	if bg < vt10x.DefaultFG {
		pen.BG = bg
	}
	return pen
}

// vtArgs parses CSI parameters as vt10x does: split at ';', stop at the
// first that is not a number.
func vtArgs(body []byte, args []int) []int {
	if len(body) == 0 {
		return args
	}
	n, digits := 0, 0
	for k := 0; k <= len(body); k++ {
		if k == len(body) || body[k] == ';' {
			if digits == 0 {
				return args
			}
			args = append(args, n)
			n, digits = 0, 0
			continue
		}
		if body[k] < '0' || body[k] > '9' {
			return args
		}
		n = n*10 + int(body[k]-'0')
		digits++
	}
	return args
}

// vtSetAttr is vt10x's setAttr (state.go of the pinned version) on a pen.
func vtSetAttr(pen vt10x.Glyph, attr []int) vt10x.Glyph {
	if len(attr) == 0 {
		attr = []int{0}
	}
	color := func(i int) (vt10x.Color, int, bool) {
		switch {
		case i+2 < len(attr) && attr[i+1] == 5:
			c := attr[i+2]
			return vt10x.Color(c), i + 2, c >= 0 && c <= 255
		case i+4 < len(attr) && attr[i+1] == 2:
			r, g, b := attr[i+2], attr[i+3], attr[i+4]
			ok := r >= 0 && r <= 255 && g >= 0 && g <= 255 && b >= 0 && b <= 255
			return vt10x.Color(r<<16 | g<<8 | b), i + 4, ok
		}
		return 0, i, false
	}
	for i := 0; i < len(attr); i++ {
		switch a := attr[i]; {
		case a == 0:
			pen.Mode &^= vtReverse | vtUnderline | vtBold | vtItalic | vtBlink
			pen.FG, pen.BG = vt10x.DefaultFG, vt10x.DefaultBG
		case a == 1:
			pen.Mode |= vtBold
		case a == 3:
			pen.Mode |= vtItalic
		case a == 4:
			pen.Mode |= vtUnderline
		case a == 5 || a == 6:
			pen.Mode |= vtBlink
		case a == 7:
			pen.Mode |= vtReverse
		case a == 21 || a == 22:
			pen.Mode &^= vtBold
		case a == 23:
			pen.Mode &^= vtItalic
		case a == 24:
			pen.Mode &^= vtUnderline
		case a == 25 || a == 26:
			pen.Mode &^= vtBlink
		case a == 27:
			pen.Mode &^= vtReverse
		case a == 38 || a == 48:
			c, next, ok := color(i)
			i = next
			if ok && a == 38 {
				pen.FG = c
			} else if ok {
				pen.BG = c
			}
		case a == 39:
			pen.FG = vt10x.DefaultFG
		case a == 49:
			pen.BG = vt10x.DefaultBG
		case a >= 30 && a <= 37:
			pen.FG = vt10x.Color(a - 30)
		case a >= 40 && a <= 47:
			pen.BG = vt10x.Color(a - 40)
		case a >= 90 && a <= 97:
			pen.FG = vt10x.Color(a - 90 + 8)
		case a >= 100 && a <= 107:
			pen.BG = vt10x.Color(a - 100 + 8)
		}
	}
	return pen
}

// materializeLocked writes the model of the screen into vt10x and drops it:
// vt10x then holds exactly what the plain path would have left. Every cell
// the model holds was written by a pen without a character set, so the pen
// penFromStored derives from it writes it again; a row's wrap mark is made
// as vt10x makes it, by writing on past the row's end (the bottom row never
// has one: a wrap from it scrolls); a pending wrap by writing the last
// column again. Blank cells are skipped (the clear left them) or written as
// spaces, whichever costs vt10x fewer runes.
func (t *Terminal) materializeLocked() {
	m := t.model
	t.model = nil
	b := append(t.matBuf[:0], "\x1b[0m\x1b[2J"...)
	def := vt10x.Glyph{FG: vt10x.DefaultFG, BG: vt10x.DefaultBG}
	pen := def
	write := func(g vt10x.Glyph) {
		if p := penFromStored(g); p != pen {
			pen = p
			b = appendSGRForGlyph(b, g, true)
		}
		b = utf8.AppendRune(b, g.Char)
	}
	joined := false // the row above wrapped: the next character goes to column 0 of this one
	for y := 0; y < t.rows; y++ {
		s := m.slot(y)
		row := m.ring[s][:m.info[s].used]
		x, at := 0, -1 // at: the cursor's column on this row, -1 when elsewhere
		if joined {
			write(m.ring[s][0]) // the wrap lands here, blank or not
			x, at = 1, 1
		}
		for x < len(row) {
			if row[x] != blankVTGlyph {
				if at != x {
					b = appendCUP(b, y, x)
				}
				write(row[x])
				x++
				at = x
				continue
			}
			k := x + 1
			for k < len(row) && row[k] == blankVTGlyph {
				k++
			}
			if k == len(row) {
				break // the clear left the rest blank
			}
			if at == x && (k-x)+4*b2i(pen != def) < 8 {
				for ; x < k; x++ {
					write(row[x])
				}
				at = x
			} else {
				x = k
			}
		}
		joined = len(row) == t.cols && row[t.cols-1].Mode&vtAttrWrap != 0
	}
	if m.wrap {
		b = appendCUP(b, t.rows-1, t.cols-1)
		write(m.ring[m.slot(t.rows-1)][t.cols-1])
	} else {
		b = appendCUP(b, t.rows-1, m.x)
	}
	if pen != m.pen {
		b = appendSGRForGlyph(b, m.pen, false)
	}
	t.matBuf = b
	t.guardLocked(func() { _, _ = t.vt.Write(b) })
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
