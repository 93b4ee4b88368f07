package term

import (
	"math"
	"unicode/utf8"

	"github.com/hinshun/vt10x"
)

// Reflow: a change of width lays history and the primary screen out again
// as one sequence of rows, as tmux 3.3a does (grid_reflow): a row wider than
// the new width is cut into rows of the new width, a row marked wrapped (the
// program's output went on onto the next row) takes as much of the rows
// after it as fits, and a wide character that does not fit at the end of a
// row goes to the next one, leaving the last column empty. The screen is
// then the last rows of the sequence, so a shrink that makes lines longer
// pushes the top rows into history and a grow that joins rows brings rows
// back from it. vt10x knows nothing of this: the screen's rows are read out
// of it, laid out with history, and drawn into it again at the new size.
//
// What a row "uses" stands for tmux's count of the cells written on a line:
// a wrapped row uses the whole width it was laid out at (less the last
// column when that is blank and the next row begins with a wide character:
// the column was left for it), any other row its cells up to the last one
// that shows something, and the cursor's row at least up to the cursor.
// tmux counts a cell once written, even as a space or erased later, so where
// a line ends in spaces, or the cursor was moved past the end of its line
// without writing there, the two can differ by blank rows and by where the
// cursor goes (see doc.go).

// lineCols counts the columns of a line's cells (its text as stored,
// trailing blanks already left out).
func lineCols(l *histLine) int {
	text := l.text()
	if l.hasStarts {
		r, n := l.sections()
		cols, from := 0, 0
		for range n {
			to := min(from+int(r.uvarint()), len(text))
			cols += cellWidth(text[from:to])
			from = to
		}
		return cols
	}
	cols := 0
	for i := 0; i < len(text); {
		if text[i] < utf8.RuneSelf {
			cols++
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		switch w := runeWidth(r); {
		case w == 2:
			cols += 2
		case w == 1 || i == 0:
			cols++ // a mark with nothing before it takes a cell of its own
		}
		i += n
	}
	return cols
}

// cellWidth is the width of a cell holding s.
func cellWidth(s string) int {
	r, _ := utf8.DecodeRuneInString(s)
	if runeWidth(r) == 2 {
		return 2
	}
	return 1
}

// startsWide reports whether a line's first cell is a wide character.
func startsWide(l *histLine) bool {
	return l.textLen > 0 && cellWidth(l.text()) == 2
}

// cellStyle is a cell's attributes and colours.
type cellStyle struct {
	attr   Attr
	fg, bg Color
}

// blank reports whether a space in this style shows nothing, as blankGlyph
// says of vt10x's cells.
func (s cellStyle) blank() bool {
	return s.bg.IsDefault() && s.attr&(AttrReverse|AttrUnderline) == 0
}

// drow is a row decoded for the reflow: its text, its cells, and the
// blank cells that follow them up to the columns the row uses. An ASCII
// row (every byte a cell of one column, the common case) keeps no cells:
// its text moves in slices, and its style runs with it.
type drow struct {
	text   string
	ascii  bool
	runs   []styleRun  // an ASCII row's styles
	cells  []rcell     // the cells of any other row
	styles []cellStyle // their styles; styles[0] is the default
	pad    int
}

// rcell is one cell of a row that is not plain: where its text is in the
// row's text, its width, its style (an index into the row's styles), and
// whether a line holding it needs its cells' starts (histLine.hasStarts).
type rcell struct {
	off    uint32
	n      uint8
	w      uint8
	starts bool
	st     uint16
}

// count is the number of cells, the blanks after the text included.
func (d *drow) count() int {
	if d.ascii {
		return len(d.text) + d.pad
	}
	return len(d.cells) + d.pad
}

// width is the width of cell i.
func (d *drow) width(i int) int {
	if d.ascii || i >= len(d.cells) {
		return 1
	}
	return int(d.cells[i].w)
}

// colsFrom is the columns of the cells from on.
func (d *drow) colsFrom(from int) int {
	if d.ascii {
		return d.count() - from
	}
	n := 0
	for i := from; i < d.count(); i++ {
		n += d.width(i)
	}
	return n
}

// fit returns the end of the cells from on that fit in room columns.
func (d *drow) fit(from, room int) int {
	if d.ascii {
		return from + max(min(room, d.count()-from), 0)
	}
	to, cols := from, 0
	for to < d.count() && cols+d.width(to) <= room {
		cols += d.width(to)
		to++
	}
	return to
}

// decodeRow decodes l into d, with blanks up to used columns.
func decodeRow(d *drow, l *histLine, used int) {
	text := l.text()
	d.text, d.runs, d.cells, d.styles = text, d.runs[:0], d.cells[:0], append(d.styles[:0], cellStyle{})
	d.ascii = !l.hasStarts
	for i := 0; d.ascii && i < len(text); i++ {
		d.ascii = text[i] < utf8.RuneSelf
	}
	r, ncells := l.sections()
	if d.ascii {
		for len(r.s) > 0 {
			d.runs = append(d.runs, styleRun{n: uint16(r.uvarint()), attr: Attr(r.uvarint()), fg: unpackColor(r.uvarint()), bg: unpackColor(r.uvarint())})
		}
		d.pad = max(used-len(text), 0)
		return
	}
	if l.hasStarts {
		from := 0
		for range ncells {
			to := min(from+int(r.uvarint()), len(text))
			s := text[from:to]
			base, n := utf8.DecodeRuneInString(s)
			d.cells = append(d.cells, rcell{off: uint32(from), n: uint8(to - from), w: uint8(cellWidth(s)), starts: joinsWide(s[n:]) || runeWidth(base) == 0})
			from = to
		}
	} else {
		for i := 0; i < len(text); {
			if text[i] < utf8.RuneSelf {
				d.cells = append(d.cells, rcell{off: uint32(i), n: 1, w: 1})
				i++
				continue
			}
			ru, n := utf8.DecodeRuneInString(text[i:])
			w := runeWidth(ru)
			if k := len(d.cells) - 1; w == 0 && k >= 0 {
				d.cells[k].n += uint8(n) // a mark joins the cell before it
			} else {
				d.cells = append(d.cells, rcell{off: uint32(i), n: uint8(n), w: uint8(max(w, 1)), starts: w == 0})
			}
			i += n
		}
	}
	k := 0
	for len(r.s) > 0 && k < len(d.cells) {
		n := int(r.uvarint())
		st := cellStyle{Attr(r.uvarint()), unpackColor(r.uvarint()), unpackColor(r.uvarint())}
		idx := uint16(0)
		if st != (cellStyle{}) {
			idx = uint16(len(d.styles))
			d.styles = append(d.styles, st)
		}
		for ; n > 0 && k < len(d.cells); k++ {
			d.cells[k].st = idx
			n -= int(d.cells[k].w)
		}
	}
	cols := 0
	for i := range d.cells {
		cols += int(d.cells[i].w)
	}
	d.pad = max(used-cols, 0)
}

// rowBuilder builds one row of the reflow's output.
type rowBuilder struct {
	text      []byte
	hasStarts bool
	starts    []uint16 // where each cell begins, once a cell needs it
	runs      []styleRun
	styled    bool // runs cover every cell so far
	cols      int
	cells     int
	// The text, columns and cells up to the last cell that shows
	// something: trailing blanks are left out of a line, as
	// encodeRowLocked leaves them out.
	keepText, keepCols, keepCells int
}

func (b *rowBuilder) reset() {
	b.text, b.starts, b.runs = b.text[:0], b.starts[:0], b.runs[:0]
	b.hasStarts, b.styled = false, false
	b.cols, b.cells, b.keepText, b.keepCols, b.keepCells = 0, 0, 0, 0, 0
}

// style gives the next w columns st.
func (b *rowBuilder) style(st cellStyle, w int) {
	if !b.styled {
		if st == (cellStyle{}) {
			return
		}
		b.styled = true
		if b.cols > 0 {
			b.runs = append(b.runs, styleRun{n: uint16(b.cols)})
		}
	}
	if k := len(b.runs) - 1; k >= 0 && b.runs[k].attr == st.attr && b.runs[k].fg == st.fg && b.runs[k].bg == st.bg {
		b.runs[k].n += uint16(w)
		return
	}
	b.runs = append(b.runs, styleRun{n: uint16(w), attr: st.attr, fg: st.fg, bg: st.bg})
}

// add appends cells [from, to) of d.
func (b *rowBuilder) add(d *drow, from, to int) {
	if d.ascii {
		if n := min(to, len(d.text)); from < n {
			b.addASCII(d, from, n)
		}
	} else {
		for i := from; i < min(to, len(d.cells)); i++ {
			b.addCell(d, &d.cells[i])
		}
	}
	for pad := to - max(from, d.count()-d.pad); pad > 0; {
		k := min(pad, len(spaces))
		b.addPlain(spaces[:k])
		pad -= k
	}
}

const spaces = "                                                                "

// addASCII appends cells [from, to) of an ASCII row, to within its text.
func (b *rowBuilder) addASCII(d *drow, from, to int) {
	if len(d.runs) == 0 {
		b.addPlain(d.text[from:to])
		return
	}
	x := 0
	for _, run := range d.runs {
		if lo, hi := max(x, from), min(x+int(run.n), to); lo < hi {
			b.addStyled(d.text[lo:hi], cellStyle{run.attr, run.fg, run.bg})
		}
		if x += int(run.n); x >= to {
			return
		}
	}
	b.addPlain(d.text[max(x, from):to])
}

// addStyled appends cells of one byte and one column in style st.
func (b *rowBuilder) addStyled(s string, st cellStyle) {
	if b.hasStarts {
		for i := range len(s) {
			b.starts = append(b.starts, uint16(len(b.text)+i))
		}
	}
	b.text = append(b.text, s...)
	b.style(st, len(s))
	b.cols += len(s)
	b.cells += len(s)
	j := len(s) - 1
	if st.blank() {
		for j >= 0 && s[j] == ' ' {
			j--
		}
	}
	if j >= 0 {
		back := len(s) - 1 - j
		b.keepText, b.keepCols, b.keepCells = len(b.text)-back, b.cols-back, b.cells-back
	}
}

func (b *rowBuilder) addCell(d *drow, c *rcell) {
	if c.starts && !b.hasStarts {
		b.hasStarts = true
		b.starts = cellStarts(b.text, b.starts[:0])
	}
	if b.hasStarts {
		b.starts = append(b.starts, uint16(len(b.text)))
	}
	s := d.text[c.off : c.off+uint32(c.n)]
	b.text = append(b.text, s...)
	st := d.styles[c.st]
	b.style(st, int(c.w))
	b.cols += int(c.w)
	b.cells++
	if s != " " || !st.blank() {
		b.keepText, b.keepCols, b.keepCells = len(b.text), b.cols, b.cells
	}
}

// addPlain appends cells of one byte and one column in the default style.
func (b *rowBuilder) addPlain(s string) { b.addStyled(s, cellStyle{}) }

// line packs the row as a line laid out at cols columns, its data its own
// when own is set, else in history's blocks.
func (b *rowBuilder) line(t *Terminal, cols int, wrapped, own bool) histLine {
	text := b.text[:b.keepText]
	var starts []uint16
	if b.hasStarts {
		starts = b.starts[:b.keepCells]
	}
	var runs []styleRun
	if b.styled {
		runs = b.runs
		left := b.keepCols
		for i := range runs {
			if int(runs[i].n) >= left {
				runs[i].n = uint16(left)
				runs = runs[:i+1]
				break
			}
			left -= int(runs[i].n)
		}
		if left == 0 {
			runs = nil
		}
		plain := true
		for _, r := range runs {
			plain = plain && r.attr == 0 && r.fg.IsDefault() && r.bg.IsDefault()
		}
		if plain {
			runs = nil
		}
	}
	packed := packBytes(t.packBuf, text, starts, runs)
	t.packBuf = packed
	var data string
	if own {
		data = string(packed)
	} else {
		data = t.h.keep(packed)
	}
	return histLine{data: data, textLen: uint32(len(text)), cols: uint16(cols), wrapped: wrapped, hasStarts: starts != nil}
}

// reflowRows bounds the rows of history laid out again at a change of
// width, the newest ones: older rows keep the layout they have (a row wider
// than the screen is shown cut, as it is on the alternate screen). It is
// tmux's default history-limit, so a pane keeps as much history laid out
// anew as tmux keeps at all unless told otherwise, and a resize costs the
// same however long the history is: a few milliseconds for 2000 rows of
// styled 200-column lines (BenchmarkResize), where all 10,000 took 30-50.
const reflowRows = 2000

// reflower lays rows out again at a new width: rows [0, hist) are the
// history ring's lines, the rest are screen. Rows before from are kept as
// they are.
type reflower struct {
	t      *Terminal
	hist   int
	screen []histLine
	n      int
	from   int
	sx     int
	// The cursor's row and column (the old width for a pending wrap): its
	// row uses at least the columns before it.
	curRow, curX int
	// hscrolled is tmux's count of the rows that scrolled into history, as
	// tmux adjusts it while it reflows (by the rows' indices, as it does).
	hscrolled int

	out  []histLine
	used []int32 // the columns each row of out uses; -1: lineCols of the row
	b    int     // the first row of out holding a cell of a screen row, -1 before one
	bSrc int     // the first source row of that row

	dec    drow // row decRow, decoded
	decRow int
	row    rowBuilder // the row of out being built
	rowSrc int        // the source row it begins with
	rowOwn bool       // it begins with a screen row's cells: its data is its own, not history's
}

func (r *reflower) src(i int) *histLine {
	if i < r.hist {
		return r.t.h.at(i)
	}
	return &r.screen[i-r.hist]
}

// usedOf is the columns source row i uses.
func (r *reflower) usedOf(i int) int {
	l := r.src(i)
	w := lineCols(l)
	if l.wrapped {
		u := max(int(l.cols), w)
		if w < u && i+1 < r.n && startsWide(r.src(i+1)) {
			u-- // the last column was left for a wide character that went on
		}
		return u
	}
	if i == r.curRow {
		w = max(w, r.curX)
	}
	return w
}

// decode returns source row i decoded.
func (r *reflower) decode(i int) *drow {
	if r.decRow != i {
		decodeRow(&r.dec, r.src(i), r.usedOf(i))
		r.decRow = i
	}
	return &r.dec
}

// move puts source row i on out as it is.
func (r *reflower) move(i int, used int) {
	if i >= r.hist && r.b < 0 {
		r.b, r.bSrc = len(r.out), i
	}
	r.out = append(r.out, *r.src(i))
	r.used = append(r.used, int32(used))
}

// open starts a row of out that begins with cells of source row i.
func (r *reflower) open(i int) {
	r.row.reset()
	r.rowSrc, r.rowOwn = i, i >= r.hist
}

// add puts cells [from, to) of source row i, decoded as d, on the row
// being built.
func (r *reflower) add(i int, d *drow, from, to int) {
	if i >= r.hist && r.b < 0 && to > from {
		r.b, r.bSrc = len(r.out), r.rowSrc
	}
	r.row.add(d, from, to)
}

// close puts the row being built on out.
func (r *reflower) close(wrapped bool) {
	r.out = append(r.out, r.row.line(r.t, r.sx, wrapped, r.rowOwn))
	r.used = append(r.used, int32(r.row.cols))
}

// run lays every row out at the new width. Row by row, as tmux does: a row
// as wide as the width is kept, a wider one is cut (and its last piece,
// if the row was wrapped, takes what it can of the rows after it), a
// narrower wrapped one takes what it can of the rows after it; what is left
// of a row taken in part is laid out next.
func (r *reflower) run() {
	r.b = -1
	r.decRow = -1
	for y := range r.from {
		r.move(y, -1)
	}
	y, skip := r.from, 0
	for y < r.n {
		l := r.src(y)
		if skip == 0 && !l.wrapped && y != r.curRow && int(l.textLen) <= r.sx {
			r.move(y, -1) // a cell takes at least a byte: it fits
			y++
			continue
		}
		d := r.decode(y)
		width := d.colsFrom(skip)
		switch {
		case width == r.sx || (width < r.sx && !l.wrapped):
			if skip == 0 {
				r.move(y, width)
			} else {
				r.open(y)
				r.add(y, d, skip, d.count())
				r.close(l.wrapped)
			}
			y, skip = y+1, 0
		case width > r.sx:
			if r.split(y, d, skip, l.wrapped) {
				y, skip = r.join(y)
			} else {
				y, skip = y+1, 0
			}
		default:
			r.open(y)
			r.add(y, d, skip, d.count())
			y, skip = r.join(y)
		}
	}
}

// split cuts the cells of source row y from skip on into rows of the
// width. It reports whether the last piece stays open to take cells of the
// rows after (the row was wrapped and the piece has room).
func (r *reflower) split(y int, d *drow, skip int, wrapped bool) bool {
	r.open(y)
	pieces := 1
	for i := skip; i < d.count(); {
		to := d.fit(i, r.sx-r.row.cols)
		if to == i && r.row.cols == 0 {
			to = i + 1 // a cell wider than a row has one to itself
		}
		if to > i {
			r.add(y, d, i, to)
			i = to
			continue
		}
		r.close(true)
		r.open(y)
		pieces++
	}
	if y <= r.hscrolled {
		r.hscrolled += pieces - 1
	}
	if wrapped && r.row.cols < r.sx {
		return true
	}
	r.close(wrapped)
	return false
}

// join fills the open row, which continues source row y, from the rows
// after y, and returns the next row to lay out and how many of its cells
// were taken.
func (r *reflower) join(y int) (int, int) {
	to := len(r.out)
	lines, want, fromLen := 0, 0, 0
	from := -1
	wrapped := true
	for {
		line := y + 1 + lines
		if line >= r.n {
			break
		}
		if !r.src(line).wrapped {
			wrapped = false
		}
		d := r.decode(line)
		n := d.count()
		if n == 0 {
			if !wrapped {
				break
			}
			lines++
			continue
		}
		if r.row.cols+d.width(0) > r.sx {
			break
		}
		want = d.fit(0, r.sx-r.row.cols)
		r.add(line, d, 0, want)
		from, fromLen = line, n
		lines++
		if !wrapped || want != fromLen || r.row.cols == r.sx {
			break
		}
	}
	if lines == 0 {
		r.close(true)
		return y + 1, 0
	}
	next, skip, flag := y+1+lines, 0, true
	if from >= 0 && fromLen > want {
		lines--
		next, skip = from, want
	} else if !wrapped {
		flag = false
	}
	r.close(flag)
	if r.hscrolled > to+lines {
		r.hscrolled -= lines
	} else if r.hscrolled > to {
		r.hscrolled = to
	}
	return next, skip
}

// usedOut is the columns row i of out uses.
func (r *reflower) usedOut(i int) int {
	if u := r.used[i]; u >= 0 {
		return int(u)
	}
	return lineCols(&r.out[i])
}

// wrapPosition is where the cursor is in its line, counting the lines up
// to it and the columns from the line's start (math.MaxInt at or past the
// end of its row's used cells), as tmux's grid_wrap_position.
func (r *reflower) wrapPosition() (wx, wy int) {
	for i := 0; i < r.curRow; i++ {
		if !r.src(i).wrapped {
			wy++
		}
	}
	for i := r.curRow - 1; i >= 0 && r.src(i).wrapped; i-- {
		wx += r.usedOf(i)
	}
	if r.curX >= r.usedOf(r.curRow) {
		return math.MaxInt, wy
	}
	return wx + r.curX, wy
}

// unwrapPosition finds that place in out, as tmux's grid_unwrap_position.
func (r *reflower) unwrapPosition(wx, wy int) (x, y int) {
	ay := 0
	for y = 0; y < len(r.out)-1 && ay != wy; y++ {
		if !r.out[y].wrapped {
			ay++
		}
	}
	if wx == math.MaxInt {
		for y+1 < len(r.out) && r.out[y].wrapped {
			y++
		}
		return r.usedOut(y), y
	}
	for y+1 < len(r.out) && r.out[y].wrapped {
		u := r.usedOut(y)
		if wx < u {
			break
		}
		wx -= u
		y++
	}
	return wx, y
}

// relayoutLocked changes the size of history and of the primary screen
// whose rows are screen, oldCols wide, with the cursor at cx, cy (cx is
// oldCols while a wrap is pending), to cols x rows, as tmux 3.3a's resize
// of a screen does: the height first (a shrink drops rows below the cursor,
// then pushes the top rows into history; a grow brings back rows that
// scrolled into history, then adds blank ones), then, when the width
// changes, every line laid out again (reflower). History takes what ends
// above the screen (the taps see lines saved and taken back as they do for
// scrolling). It returns the rows the screen shows, top first (blank ones
// below them left out), and where the cursor goes (x == cols: a wrap is
// pending there).
func (t *Terminal) relayoutLocked(screen []histLine, oldCols, cx, cy, cols, rows int) ([]histLine, int, int) {
	h := &t.h
	hist, hscrolled := h.n, h.scrolled
	hsize := hist
	cy = min(max(cy, 0), len(screen)-1)
	switch old := len(screen); {
	case rows < old:
		need := old - rows
		eat := min(need, old-1-cy)
		screen = screen[:old-eat]
		hsize += need - eat
		hscrolled += need - eat
	case rows > old:
		need := rows - old
		pull := min(need, hscrolled, hist)
		hsize -= pull
		hscrolled -= pull
		for range need - pull {
			screen = append(screen, histLine{cols: uint16(oldCols)})
		}
	}
	curAbs := hist + cy
	if cols == oldCols {
		// No reflow: history gives or takes the rows the height moved.
		var lines []histLine
		if hsize > hist {
			for _, l := range screen[:hsize-hist] {
				h.push(l)
			}
			lines = screen[hsize-hist:]
		} else {
			lines = append(h.pop(hist-hsize), screen...)
		}
		h.scrolled = min(max(hscrolled, 0), h.n)
		return lines[:min(len(lines), rows)], cx, curAbs - hsize
	}

	r := &reflower{t: t, hist: hist, screen: screen, n: hist + len(screen), sx: cols, curRow: curAbs, curX: cx, hscrolled: hscrolled}
	r.out = make([]histLine, 0, r.n+rows)
	r.used = make([]int32, 0, r.n+rows)
	// The kept rows end where a line begins, so no line is laid out in part.
	r.from = max(hist-reflowRows, 0)
	for r.from > 0 && h.at(r.from-1).wrapped {
		r.from--
	}
	wx, wy := r.wrapPosition()
	r.run()
	if r.b < 0 {
		r.b, r.bSrc = len(r.out), hist
	}
	for len(r.out) < rows {
		r.out = append(r.out, histLine{cols: uint16(cols)})
		r.used = append(r.used, 0)
	}
	x, y := r.unwrapPosition(wx, wy)
	hsize = len(r.out) - rows
	if y >= hsize {
		y -= hsize
	} else {
		x, y = 0, 0
	}

	// History becomes the rows made of its own lines, then gives the
	// screen those that end on it, or takes the screen's rows that end
	// above it. The lines it held are laid out anew, so none a grow took
	// back will scroll off again unchanged; a reader counting places
	// (TextSince) is given the rows a line became, never fewer.
	lines := r.out[hsize:]
	for len(lines) > 0 && lines[len(lines)-1].textLen == 0 && !lines[len(lines)-1].wrapped {
		lines = lines[:len(lines)-1]
	}
	lines = append([]histLine(nil), lines...) // the ring is about to own r.out
	h.forgetBack()
	for i := r.bSrc; i < hist; i++ {
		// A row of history joined to the screen's rows: taken back.
		h.tell(h.at(i), false)
	}
	if r.b > hist {
		h.total += uint64(r.b - hist)
	}
	h.replace(r.out[:r.b:r.b])
	if hsize > r.b {
		for _, l := range r.out[r.b:hsize] {
			h.push(l)
		}
	} else {
		h.pop(min(r.b-hsize, h.n))
	}
	h.scrolled = min(max(r.hscrolled, 0), h.n)
	return lines, x, y
}

// replace makes lines, oldest first, the ring's content (the newest limit
// of them); the ring takes the slice.
func (h *history) replace(lines []histLine) {
	// lines were read through at, which thawed any frozen line among them.
	h.frozen, h.frozenLive, h.frozenSkip, h.thawed = nil, 0, 0, 0
	if len(lines) > h.limit {
		lines = lines[len(lines)-h.limit:]
	}
	h.lines = lines
	h.start, h.n = 0, len(lines)
}

// reflowResizeLocked is resizeLocked for a change of width on the primary
// screen: the screen's rows are read out of vt10x, laid out with history
// at the new size (relayoutLocked) and drawn into vt10x again, with the
// cursor where the text took it and the program's pen, character set,
// modes and saved cursor as they were. The cursor must be in sync.
func (t *Terminal) reflowResizeLocked(cols, rows int) bool {
	var pen vt10x.Glyph
	if !t.guardLocked(func() { pen = t.vt.Cursor().Attr }) {
		return false
	}
	screen := make([]histLine, 0, t.rows)
	for y := range t.rows {
		g, ok := t.readGlyphsLocked(y)
		if !ok {
			return false
		}
		screen = append(screen, t.encodeRowLocked(g, len(g), true))
	}
	cx := t.cx
	if t.wrapNext {
		cx = t.cols
	}
	lines, x, y := t.relayoutLocked(screen, t.cols, cx, t.cy, cols, rows)
	t.out = append(t.out, "\x1b[0m"...)
	t.flushLocked()
	t.resizeVTLocked(cols, rows)
	t.touchedLocked()
	t.cols, t.rows = cols, rows
	t.top, t.bottom = 0, rows-1
	t.curValid = false
	t.syncCursorLocked()
	t.out = append(t.out, "\x1b[H\x1b[2J"...)
	t.drawRowsLocked(lines, pen.Mode&vtGfx != 0)
	t.resetTabsLocked()
	if x >= cols {
		t.out = appendCUP(t.out, y, cols-1)
		t.out = appendSGRForGlyph(t.out, pen, false)
		t.curValid = false
		t.pendWrapLocked(pen)
	} else {
		t.out = appendCUP(t.out, y, x)
		t.out = appendSGRForGlyph(t.out, pen, false)
	}
	t.tabsDefault = true
	t.curValid = false
	t.flushLocked()
	return true
}

// drawRowsLocked is drawLinesLocked with auto-wrap on while it draws, so
// that every wrapped row is marked wrapped in vt10x whatever the program's
// mode (it is put back after).
func (t *Terminal) drawRowsLocked(lines []histLine, gfx bool) {
	mode := t.vmode
	if mode&vt10x.ModeWrap == 0 {
		t.out = append(t.out, "\x1b[?7h"...)
		t.vmode |= vt10x.ModeWrap
	}
	t.drawLinesLocked(lines, gfx)
	if mode&vt10x.ModeWrap == 0 {
		t.out = append(t.out, "\x1b[?7l"...)
		t.vmode = mode
	}
}
