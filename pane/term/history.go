package term

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"io"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/hinshun/vt10x"
)

// histLine is one line of scrollback, stored compactly: the text of its cells
// (a wide character once, its continuation implied; combining marks after
// their base) and run-length styles instead of one 32-byte Cell per column,
// all in one string (data) so that a line costs one allocation and a
// 24-byte slot in the ring. data holds, in order:
//
//   - the text (textLen bytes);
//   - when hasStarts: the number of cells, then each cell's length in bytes
//     (uvarints), only for a line that the widths of its runes would split
//     wrongly: one with a cell holding characters joined by a zero width
//     joiner (👨‍👩‍👧 is one cell, not three);
//   - the style runs to the end, none when every cell has the default
//     style: each is uvarints n, attr, fg, bg (colours as packColor).
//
// The encoding is canonical (the same line gives the same bytes), so lines
// compare with ==.
type histLine struct {
	data      string
	textLen   uint32
	cols      uint16 // screen width when the line was saved
	wrapped   bool   // the line continued on the next one (auto-wrap)
	hasStarts bool
}

// styleRun gives n consecutive cells (continuations counted) one style.
type styleRun struct {
	n      uint16
	attr   Attr
	fg, bg Color
}

// packLine builds a line from its text, the offsets in text where its cells
// begin (nil when the widths of its runes split it right) and its runs, as a
// line of its own (not in a history's blocks). dst is scratch to build in.
func packLine(dst []byte, text []byte, starts []uint16, runs []styleRun, cols uint16, wrapped bool) (histLine, []byte) {
	b := packBytes(dst, text, starts, runs)
	return histLine{data: string(b), textLen: uint32(len(text)), cols: cols, wrapped: wrapped, hasStarts: starts != nil}, b
}

// packBytes appends the data of a line (see histLine) to dst[:0].
func packBytes(dst []byte, text []byte, starts []uint16, runs []styleRun) []byte {
	b := append(dst[:0], text...)
	if starts != nil {
		b = binary.AppendUvarint(b, uint64(len(starts)))
		for i, from := range starts {
			to := len(text)
			if i+1 < len(starts) {
				to = int(starts[i+1])
			}
			b = binary.AppendUvarint(b, uint64(to-int(from)))
		}
	}
	for _, r := range runs {
		b = binary.AppendUvarint(b, uint64(r.n))
		b = binary.AppendUvarint(b, uint64(r.attr))
		b = binary.AppendUvarint(b, packColor(r.fg))
		b = binary.AppendUvarint(b, packColor(r.bg))
	}
	return b
}

// packColor numbers a colour small-first: 0 the default, 1..256 the
// palette, then 24-bit values; one byte for the default and the 16 ANSI
// colours.
func packColor(c Color) uint64 {
	if i, ok := c.Index(); ok {
		return uint64(i) + 1
	}
	if r, g, b, ok := c.RGB(); ok {
		return 257 + (uint64(r)<<16 | uint64(g)<<8 | uint64(b))
	}
	return 0
}

func unpackColor(v uint64) Color {
	switch {
	case v == 0:
		return ColorDefault
	case v <= 256:
		return Indexed(uint8(v - 1))
	}
	v -= 257
	return RGB(uint8(v>>16), uint8(v>>8), uint8(v))
}

// text is the line's text.
func (l *histLine) text() string { return l.data[:l.textLen] }

// lineReader reads the sections of data after the text.
type lineReader struct{ s string }

func (r *lineReader) uvarint() uint64 {
	var v uint64
	for shift := 0; len(r.s) > 0; shift += 7 {
		c := r.s[0]
		r.s = r.s[1:]
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			break
		}
	}
	return v
}

// sections returns a reader positioned at the cell lengths (when hasStarts)
// and the number of cells they give (0 without).
func (l *histLine) sections() (lineReader, int) {
	r := lineReader{l.data[l.textLen:]}
	if !l.hasStarts {
		return r, 0
	}
	return r, int(r.uvarint())
}

// history is a ring of at most limit lines; limit 0 keeps none.
type history struct {
	limit    int
	lines    []histLine
	start, n int
	// total counts the places in the stream of saved lines (HistoryTotal,
	// TextSince): a line saved takes the next place, except that a line a
	// grow took back onto the screen (back) and saved again unchanged takes
	// its old place again, so that a reader keeping the count sees each line
	// once. It only grows, even as the ring wraps or is cleared.
	total uint64
	// back are the lines a grow took back onto the screen, oldest first, not
	// saved again yet, each with its place. The next lines to scroll off the
	// top of the screen are those lines unless the program changed them,
	// moved them or saved a line from below them first: the first line saved
	// that is not back[0] turns the places of all of back into holes, and
	// takes a new place.
	back []backLine
	// holes are the places no line holds any more (those of lines taken
	// back that never came back as they were), in order, adjacent ones
	// merged. The ring's lines hold the places below the lowest place in
	// back (below total without back), newest last, skipping holes. At most
	// maxHoles are kept: forgetting an older one can only make a reader that
	// is far behind see a few lines twice, never miss one.
	holes []hole
	// scrolled counts the newest lines that scrolled into history (a line
	// feed, SU, a shrink), as tmux's hscrolled: those a grow pulls back. A
	// clear that scrolls the screen into history sets it to 0.
	scrolled int
	// block is where keep copies the next lines' data: lines are strings
	// into shared blocks rather than an allocation each, so a line costs its
	// bytes (not its size class) and the lines a flood saved do not lie
	// scattered among the flood's garbage, holding half-empty spans. The
	// bytes of a block are written once and never changed; a block is freed
	// once the ring has let go of every line in it, which, as the ring drops
	// its oldest lines first, happens in order.
	block []byte
	// taps see every line as it is saved or taken back (TapScrolled), by id.
	taps   map[int]func(line string, saved bool)
	nextID int
	// frozen holds the history's oldest frozenLive lines, compressed
	// (freeze), oldest first, outside the ring until a read thaws them all. History is written far more than it is read, and
	// most of it is never read at all, so a quiet pane keeps it at a fraction
	// of its size (a fifth for everyday text) and pays for decoding only
	// when someone looks. The first frozenSkip lines of frozen[0] have left
	// the history. After a thaw the segments stay, as the ring's oldest
	// thawed lines hold just what they hold, so that the next freeze can
	// drop those lines again without compressing them anew (a look at a
	// quiet pane's history, then more output, would otherwise cost a full
	// compression each time). The newest line is never in a segment: it is
	// the one line of history a program changes (its wrapped flag).
	frozen     []frozenSeg
	frozenLive int
	frozenSkip int
	thawed     int
}

// frozenSeg is n consecutive lines, each as uvarints flags (1 wrapped, 2
// hasStarts), cols, textLen and the length of its data, then the data,
// deflated.
type frozenSeg struct {
	n int
	z []byte
}

// freezeMin is how many bytes of lines not yet frozen make freezing them
// worth a segment: deflate needs some text to find repeats in, and a
// segment costs its slice header and the format's framing.
var freezeMin = 8 << 10

// Block sizes: a pane with little history takes little, a long one takes
// blocks of blockMax.
const (
	blockMin = 512
	blockMax = 16 << 10
)

// keep returns b's bytes as a string in the history's blocks.
func (h *history) keep(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if cap(h.block)-len(h.block) < len(b) {
		size := min(max(2*cap(h.block), blockMin), blockMax)
		h.block = make([]byte, 0, max(size, len(b)))
	}
	off := len(h.block)
	h.block = append(h.block, b...)
	return unsafe.String(&h.block[off], len(b))
}

// backLine is a line a grow took back onto the screen, with its place in
// the stream of saved lines.
type backLine struct {
	histLine
	place uint64
}

// hole is a run of n places, from on, that no line holds.
type hole struct{ from, n uint64 }

// maxHoles bounds history.holes; a hole is made only when a program changes
// lines a grow brought back before they scroll off again.
const maxHoles = 64

func (h *history) push(l histLine) {
	if h.limit <= 0 {
		return
	}
	again := false
	if len(h.back) > 0 {
		if b := &h.back[0]; b.data == l.data {
			// A line a grow took back scrolls off again: its old place, and
			// the wrap onto the row below it that the grow may have lost.
			l.wrapped = l.wrapped || b.wrapped
			h.back = h.back[1:]
			again = true
		} else {
			h.forgetBack()
		}
	}
	h.tell(&l, true)
	if !again {
		h.total++
	}
	h.scrolled = min(h.scrolled+1, h.limit)
	if h.n == h.limit && h.frozenLive > 0 {
		// The oldest line is frozen: it goes from the segment's count.
		h.n--
		h.frozenLive--
		h.dropSegLine()
	} else if h.n == h.limit && h.thawed > 0 {
		h.thawed--
		h.dropSegLine()
	}
	if h.n < h.limit {
		if m := h.n - h.frozenLive; m < len(h.lines) {
			h.lines[(h.start+m)%len(h.lines)] = l
		} else {
			h.lines = append(h.lines, l)
		}
		h.n++
		return
	}
	h.lines[h.start] = l
	h.start = (h.start + 1) % len(h.lines)
}

// dropSegLine forgets the oldest line of the segments, which has left the
// history.
func (h *history) dropSegLine() {
	if h.frozenSkip++; h.frozenSkip == h.frozen[0].n {
		h.frozen[0] = frozenSeg{}
		h.frozen, h.frozenSkip = h.frozen[1:], 0
	}
}

// unfreeze forgets the segments, for a change to the lines they hold.
func (h *history) unfreeze() {
	h.thaw()
	h.frozen, h.frozenSkip, h.thawed = nil, 0, 0
}

// at returns line i, 0 being the oldest.
func (h *history) at(i int) *histLine {
	if i < h.frozenLive {
		h.thaw()
	}
	return h.slot(i)
}

// slot is line i of the ring, which holds the lines not frozen
// (i >= frozenLive).
func (h *history) slot(i int) *histLine {
	return &h.lines[(h.start+i-h.frozenLive)%len(h.lines)]
}

// freeze compresses the lines not frozen yet, all but the newest (which a
// program's next line may still mark wrapped or not, and which should not
// cost a thaw), when their data holds freezeMin bytes or more. The ring
// then holds only the newest line: a frozen line costs its share of the
// segment, not a 24-byte slot.
func (h *history) freeze() {
	if h.thawed > 0 {
		// Those lines are in the segments still: drop them from the ring.
		h.lines = h.ringFrom(h.thawed)
		h.start, h.frozenLive, h.thawed = 0, h.thawed, 0
	}
	n := h.n - 1 - h.frozenLive
	if n <= 0 {
		return
	}
	size := 0
	for i := range n {
		size += len(h.slot(h.frozenLive + i).data)
	}
	if size < freezeMin {
		return
	}
	var z bytes.Buffer
	w, err := flate.NewWriter(&z, flate.BestSpeed)
	if err != nil {
		return
	}
	var b []byte
	for i := range n {
		l := h.slot(h.frozenLive + i)
		var flags uint64
		if l.wrapped {
			flags |= 1
		}
		if l.hasStarts {
			flags |= 2
		}
		b = binary.AppendUvarint(b[:0], flags)
		b = binary.AppendUvarint(b, uint64(l.cols))
		b = binary.AppendUvarint(b, uint64(l.textLen))
		b = binary.AppendUvarint(b, uint64(len(l.data)))
		w.Write(b)
		io.WriteString(w, l.data)
	}
	if w.Close() != nil {
		return
	}
	h.frozen = append(h.frozen, frozenSeg{n: n, z: bytes.Clone(z.Bytes())})
	h.lines = h.ringFrom(h.frozenLive + n)
	h.start, h.frozenLive = 0, h.frozenLive+n
	// The lines' bytes now live in frozen; a block kept for the next lines
	// would hold the last of them alive.
	h.block = nil
}

// ringFrom returns lines [from, n) in a ring of their own, oldest first.
func (h *history) ringFrom(from int) []histLine {
	lines := make([]histLine, h.n-from)
	for i := range lines {
		lines[i] = *h.slot(from + i)
	}
	return lines
}

// thaw makes the frozen lines lines of the ring again, their data decoded
// into one buffer that is never written again (copies of the lines may
// outlive the ring's), in a new ring: a pointer at a slot of the old one
// still reads what it did. The segments stay (thawed) for the next freeze.
func (h *history) thaw() {
	if h.frozenLive == 0 {
		return
	}
	var all []byte
	for _, seg := range h.frozen {
		b, err := io.ReadAll(flate.NewReader(bytes.NewReader(seg.z)))
		if err != nil {
			panic("term: frozen history does not decode: " + err.Error())
		}
		all = append(all, b...)
	}
	lines := make([]histLine, h.n)
	r := lineReader{unsafe.String(unsafe.SliceData(all), len(all))}
	for i := -h.frozenSkip; i < h.frozenLive; i++ {
		flags, cols, textLen, n := r.uvarint(), r.uvarint(), r.uvarint(), r.uvarint()
		data := r.s[:n]
		r.s = r.s[n:]
		if i >= 0 {
			lines[i] = histLine{data: data, textLen: uint32(textLen), cols: uint16(cols), wrapped: flags&1 != 0, hasStarts: flags&2 != 0}
		}
	}
	for i := h.frozenLive; i < h.n; i++ {
		lines[i] = *h.slot(i)
	}
	h.lines, h.start = lines, 0
	h.thawed, h.frozenLive = h.frozenLive, 0
}

func (h *history) clear() {
	h.frozen, h.frozenLive, h.frozenSkip, h.thawed = nil, 0, 0, 0
	h.lines, h.block = nil, nil
	h.start, h.n, h.scrolled = 0, 0, 0
	h.holes = nil // every line saved from now on is above them all
}

// top is the place above the ring's newest line.
func (h *history) top() uint64 {
	if len(h.back) > 0 {
		return h.back[0].place
	}
	return h.total
}

// below returns the place under p that is not in a hole.
func (h *history) below(p uint64) uint64 {
	p--
	for i := len(h.holes) - 1; i >= 0; i-- {
		if g := h.holes[i]; p >= g.from && p < g.from+g.n && g.from > 0 {
			p = g.from - 1
		}
	}
	return p
}

// newer counts the ring's lines at place since or above.
func (h *history) newer(since uint64) int {
	top := h.top()
	if since >= top {
		return 0
	}
	n := top - since
	for _, g := range h.holes {
		if lo, hi := max(g.from, since), min(g.from+g.n, top); lo < hi {
			n -= hi - lo
		}
	}
	return int(min(n, uint64(h.n)))
}

// forgetBack gives up on the lines taken back scrolling off again as they
// were: their places become holes.
func (h *history) forgetBack() {
	for _, b := range h.back {
		h.addHole(b.place)
	}
	h.back = nil
}

// addHole adds place p to the holes, keeping them in order and merged.
func (h *history) addHole(p uint64) {
	i := len(h.holes)
	for i > 0 && h.holes[i-1].from > p {
		i--
	}
	switch {
	case i > 0 && h.holes[i-1].from+h.holes[i-1].n == p:
		h.holes[i-1].n++
		if i < len(h.holes) && h.holes[i].from == p+1 {
			h.holes[i-1].n += h.holes[i].n
			h.holes = append(h.holes[:i], h.holes[i+1:]...)
		}
	case i < len(h.holes) && h.holes[i].from == p+1:
		h.holes[i].from, h.holes[i].n = p, h.holes[i].n+1
	default:
		h.holes = append(h.holes[:i], append([]hole{{from: p, n: 1}}, h.holes[i:]...)...)
	}
	if len(h.holes) > maxHoles {
		h.holes = append(h.holes[:0], h.holes[1:]...)
	}
}

// pop takes the newest n lines (n <= h.n) out of the ring, oldest first, as
// lines a grow takes back onto the screen: they keep their places (back),
// and taps are told they left history.
func (h *history) pop(n int) []histLine {
	if n >= h.n-max(h.frozenLive, h.thawed) {
		h.unfreeze() // the newest line left would be a segment's
	}
	out := make([]histLine, n)
	back := make([]backLine, n, n+len(h.back))
	place := h.top()
	for i := n - 1; i >= 0; i-- {
		l := h.at(h.n - n + i)
		out[i] = *l
		place = h.below(place)
		back[i] = backLine{histLine: *l, place: place}
		*l = histLine{} // the ring keeps no text it no longer holds
	}
	h.back = append(back, h.back...)
	h.n -= n
	h.scrolled = max(h.scrolled-n, 0)
	for i := range out {
		h.tell(&out[i], false)
	}
	return out
}

// tell shows the taps a line saved to history or taken back from it.
func (h *history) tell(l *histLine, saved bool) {
	for _, tap := range h.taps {
		tap(l.textTrimmed(), saved)
	}
}

func (l *histLine) textTrimmed() string {
	return strings.TrimRight(l.text(), " ")
}

// cells expands the line to at least width cells.
func (l *histLine) cells(width int) []Cell {
	width = max(width, int(l.cols))
	out := make([]Cell, 0, width)
	text := l.text()
	r, ncells := l.sections()
	if l.hasStarts {
		from := 0
		for range ncells {
			to := from + int(r.uvarint())
			out = appendCluster(out, text[from:to])
			from = to
		}
	} else {
		s := text
		for len(s) > 0 {
			r, n := utf8.DecodeRuneInString(s)
			s = s[n:]
			if runeWidth(r) == 0 && len(out) > 0 {
				last := len(out) - 1
				if out[last].Width == 0 && last > 0 {
					last--
				}
				out[last].Comb += string(r)
				continue
			}
			out = appendCluster(out, string(r))
		}
	}
	for len(out) < width {
		out = append(out, Cell{Rune: ' ', Width: 1})
	}
	x := 0
	for len(r.s) > 0 {
		n := int(r.uvarint())
		attr, fg, bg := Attr(r.uvarint()), unpackColor(r.uvarint()), unpackColor(r.uvarint())
		for i := 0; i < n && x < len(out); i++ {
			out[x].Attr, out[x].FG, out[x].BG = attr, fg, bg
			x++
		}
	}
	return out
}

// appendCluster appends the cell (and continuation) of one cell's text: a
// base character and what joined it.
func appendCluster(out []Cell, s string) []Cell {
	r, n := utf8.DecodeRuneInString(s)
	if runeWidth(r) == 2 {
		return append(out, Cell{Rune: r, Comb: s[n:], Width: 2}, Cell{Width: 0})
	}
	return append(out, Cell{Rune: r, Comb: s[n:], Width: 1})
}

// joinsWide reports whether comb, the marks of one cell, holds a character
// that has a width of its own (one a zero width joiner brought in).
func joinsWide(comb string) bool {
	for _, r := range comb {
		if runeWidth(r) > 0 {
			return true
		}
	}
	return false
}

// cellStarts returns the offsets where the cells of text begin when its
// runes' widths split it, which is right up to the first joined cluster.
func cellStarts(text []byte, dst []uint16) []uint16 {
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRune(text[i:])
		if runeWidth(r) > 0 || i == 0 {
			dst = append(dst, uint16(i))
		}
		i += n
	}
	return dst
}

// captureRowsLocked saves screen rows y0..y0+n-1 to history.
func (t *Terminal) captureRowsLocked(y0, n int) {
	if t.h.limit <= 0 {
		return
	}
	t.flushLocked()
	n = min(n, t.rows-y0)
	for y := y0; y < y0+n; y++ {
		g, ok := t.readGlyphsLocked(y)
		if !ok {
			return
		}
		t.h.push(t.encodeGlyphsLocked(g, len(g)))
	}
}

// encodeGlyphsLocked builds the compact form of a row of cols cells
// straight from vt10x glyphs, g being the first of them (the rest are blank
// as vt10x leaves them): trailing blank default cells are dropped, styles
// become runs, and only rows with a non-default style allocate runs. It runs
// once per scrolled line, so it avoids building Cells. The line's data is
// in the history's blocks (history.keep): it is for pushing there.
func (t *Terminal) encodeGlyphsLocked(g []vt10x.Glyph, cols int) histLine {
	return t.encodeRowLocked(g, cols, false)
}

// encodeRowLocked is encodeGlyphsLocked, with the line's data a string of
// its own when own is set (for a line that may never reach history).
func (t *Terminal) encodeRowLocked(g []vt10x.Glyph, cols int, own bool) histLine {
	n := len(g)
	end := n
	for end > 0 && blankGlyph(g[end-1]) {
		end--
	}
	buf := t.textBuf[:0]
	runs := t.runBuf[:0]
	var starts []uint16 // once a joined cluster was met: where each cell begins
	styled := false
	for x := 0; x < end; x++ {
		if gl := g[x]; gl.Mode&(vtReverse|vtUnderline|vtBold|vtItalic|vtBlink) != 0 || gl.FG < vt10x.DefaultFG || gl.BG < vt10x.DefaultFG {
			styled = true
			break
		}
	}
	var last vt10x.Glyph // the raw style of the last cell added to a run
	for x := 0; x < end; x++ {
		gl := g[x]
		cells := 1
		if starts != nil {
			starts = append(starts, uint16(len(buf)))
		}
		switch ch := gl.Char; {
		case ch >= 0x20 && ch < 0x80:
			buf = append(buf, byte(ch))
		case ch >= 0x80 && ch < 0x300:
			buf = utf8.AppendRune(buf, ch)
		case ch == 0 || ch == contRune:
			buf = append(buf, ' ')
		default:
			base, comb := t.clusters.split(ch)
			if runeWidth(base) == 2 {
				if x+1 < n && g[x+1].Char == contRune {
					cells = 2
				} else {
					base, comb = ' ', ""
				}
			}
			if starts == nil && joinsWide(comb) {
				starts = append(cellStarts(buf, t.startBuf[:0]), uint16(len(buf)))
			}
			buf = utf8.AppendRune(buf, base)
			buf = append(buf, comb...)
		}
		if styled {
			k := len(runs) - 1
			if k >= 0 && gl.Mode == last.Mode && gl.FG == last.FG && gl.BG == last.BG && runs[k].n < 0xfff0 {
				// The same raw style as the cell before: the same run
				// (a shortcut for the comparison below).
				runs[k].n += uint16(cells)
				x += cells - 1
				continue
			}
			last = gl
			fg, bg := gl.FG, gl.BG
			if gl.Mode&vtReverse != 0 {
				fg, bg = bg, fg
			}
			r := styleRun{n: uint16(cells), attr: convAttr(gl.Mode), fg: convColor(fg), bg: convColor(bg)}
			if k >= 0 && runs[k].attr == r.attr && runs[k].fg == r.fg && runs[k].bg == r.bg && runs[k].n < 0xfff0 {
				runs[k].n += r.n
			} else {
				runs = append(runs, r)
			}
		}
		x += cells - 1
	}
	t.textBuf, t.runBuf = buf, runs
	if starts != nil {
		t.startBuf = starts
	}
	packed := packBytes(t.packBuf, buf, starts, runs)
	t.packBuf = packed
	data := string(packed)
	if !own {
		data = t.h.keep(packed)
	}
	return histLine{data: data, textLen: uint32(len(buf)), cols: uint16(cols), wrapped: n == cols && n > 0 && g[n-1].Mode&vtAttrWrap != 0, hasStarts: starts != nil}
}

// encodePlainLocked is encodeGlyphsLocked for a row whose cells all hold
// printable ASCII in vt10x's default pen (or are blank): its text alone.
func (t *Terminal) encodePlainLocked(g []vt10x.Glyph, cols int) histLine {
	wrapped := len(g) == cols && cols > 0 && g[cols-1].Mode&vtAttrWrap != 0
	for len(g) > 0 && g[len(g)-1].Char == ' ' {
		g = g[:len(g)-1]
	}
	buf := t.textBuf[:0]
	for i := range g {
		buf = append(buf, byte(g[i].Char))
	}
	t.textBuf = buf
	return histLine{data: t.h.keep(buf), textLen: uint32(len(buf)), cols: uint16(cols), wrapped: wrapped}
}

// pullHistoryLocked brings the newest n lines of history back to the top of
// the primary screen after it grew by at least n rows, as tmux does: the
// screen moves down n rows (into the blank rows the grow added), the lines
// are drawn above it, and the cursor moves down with the text. The pen must
// be the default one (the caller sets the program's again); gfx says the
// program has the line-drawing character set selected, which is put back.
// The program's saved cursor is left alone. A pulled line keeps its wrap to
// the next pulled line (autowrap on), not to the first row below them.
func (t *Terminal) pullHistoryLocked(n int, gfx bool) {
	t.syncCursorLocked()
	lines := t.h.pop(n)
	t.out = appendCSI1(t.out, n, 'T')
	t.drawLinesLocked(lines, gfx)
	t.out = appendCUP(t.out, t.cy+n, t.cx)
	t.curValid = false
}

// drawLinesLocked queues lines for the top rows of the screen, each line
// keeping its wrap onto the next one (autowrap on), with the pen and the
// character set as pullHistoryLocked says; it leaves the cursor anywhere.
func (t *Terminal) drawLinesLocked(lines []histLine, gfx bool) {
	if gfx {
		t.out = append(t.out, "\x1b(B"...)
	}
	joined := false // the previous line wraps onto this one
	for i := range lines {
		if !joined {
			t.out = appendCUP(t.out, i, 0)
		}
		joined = lines[i].wrapped && i+1 < len(lines) && t.vmode&vt10x.ModeWrap != 0
		t.appendHistLineLocked(&lines[i], joined)
	}
	t.out = append(t.out, "\x1b[0m"...)
	if gfx {
		t.out = append(t.out, "\x1b(0"...)
	}
}

// appendHistLineLocked queues the cells of l for vt10x at the cursor, the
// start of a row, each with its style; trailing blanks are left out unless
// the line wraps (the next write must wrap). It appends to t.out itself,
// since interning a cluster may flush t.out.
func (t *Terminal) appendHistLineLocked(l *histLine, wraps bool) {
	cells := l.cells(t.cols)[:t.cols]
	end := len(cells)
	for !wraps && end > 0 && cells[end-1] == (Cell{Rune: ' ', Width: 1}) {
		end--
	}
	var style vt10x.Glyph
	for x := 0; x < end; x++ {
		c := &cells[x]
		if c.Width == 0 {
			continue // written with its wide cell
		}
		if g := c.glyphStyle(); x == 0 || g != style {
			style = g
			t.out = appendSGRForGlyph(t.out, g, false)
		}
		code := c.Rune
		switch {
		case c.Width == 2 && x+1 >= t.cols:
			code = ' ' // a wide character the narrower screen cuts
		case code == 0:
			code = ' '
		case c.Comb != "":
			if cl, ok := t.clusters.intern(string(c.Rune) + c.Comb); ok {
				code = cl
			}
		default:
			code = t.clusters.code(code)
		}
		t.out = utf8.AppendRune(t.out, code)
		if c.Width == 2 && code != ' ' {
			t.out = utf8.AppendRune(t.out, contRune)
		}
	}
}

// glyphStyle is the vt10x pen that writes a cell with c's style.
func (c *Cell) glyphStyle() vt10x.Glyph {
	g := vt10x.Glyph{FG: vtColor(c.FG, vt10x.DefaultFG), BG: vtColor(c.BG, vt10x.DefaultBG)}
	for _, m := range [...]struct {
		a   Attr
		bit int16
	}{{AttrBold, vtBold}, {AttrItalic, vtItalic}, {AttrUnderline, vtUnderline}, {AttrBlink, vtBlink}, {AttrReverse, vtReverse}} {
		if c.Attr&m.a != 0 {
			g.Mode |= m.bit
		}
	}
	return g
}

// vtColor is convColor backwards; def is vt10x's default of the kind.
func vtColor(c Color, def vt10x.Color) vt10x.Color {
	if i, ok := c.Index(); ok {
		return vt10x.Color(i)
	}
	if r, g, b, ok := c.RGB(); ok {
		return vt10x.Color(r)<<16 | vt10x.Color(g)<<8 | vt10x.Color(b)
	}
	return def
}

// appendCUP appends a cursor move to row y, column x (0-based).
func appendCUP(b []byte, y, x int) []byte {
	return appendCSI2(b, y+1, x+1, 'H')
}
