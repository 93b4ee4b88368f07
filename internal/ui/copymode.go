package ui

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/melmux/melmux/pane/term"
)

// LineSource is the text copy mode moves over: a pane's scrollback followed by
// its screen, oldest line first. It must not change while copy mode uses it,
// so the server hands over a snapshot (CellRows, or an immutable view of the
// pane's history) taken when copy mode begins.
type LineSource interface {
	Len() int
	Line(i int) []term.Cell
}

// CellRows is a LineSource over rows held in memory.
type CellRows [][]term.Cell

// Len returns the number of rows.
func (r CellRows) Len() int { return len(r) }

// Line returns row i.
func (r CellRows) Line(i int) []term.Cell { return r[i] }

// Point is a cell position: column X on line Y.
type Point struct{ X, Y int }

func (p Point) before(q Point) bool { return p.Y < q.Y || p.Y == q.Y && p.X < q.X }

// CopyView is what Draw shows of a pane in copy mode. Coordinates are
// relative to the pane's content; the selection ends may lie above or below
// the view.
type CopyView struct {
	Rows             [][]term.Cell
	CursorX, CursorY int
	Selecting        bool
	SelFrom, SelTo   Point // inclusive, SelFrom not after SelTo
	Position         string
	// Matches are the last search's matches on the rows shown, in row
	// order; Draw highlights them, the current one (under the cursor)
	// differently, as tmux does.
	Matches []Match
}

// Match is one search match on a row of a CopyView: columns [From, To) of
// row Y. Current marks the match the cursor is on.
type Match struct {
	Y, From, To int
	Current     bool
}

// cell marks for drawing a copy-mode row: what colours a cell takes.
const (
	markNone uint8 = iota
	markMatch
	markCurrent
	markSelected
)

// marks returns what each of the first width cells of view row y is marked
// with, in buf, or nil when none is: the selection over the current match
// over other matches.
func (v *CopyView) marks(y, width int, buf []uint8) []uint8 {
	if v == nil {
		return nil
	}
	selFrom, selTo := v.selection(y, width)
	found := selTo > selFrom
	for _, m := range v.Matches {
		if m.Y == y {
			found = true
		}
	}
	if !found {
		return nil
	}
	buf = append(buf[:0], make([]uint8, width)...)
	for _, m := range v.Matches {
		if m.Y != y {
			continue
		}
		mark := markMatch
		if m.Current {
			mark = markCurrent
		}
		for x := max(m.From, 0); x < min(m.To, width); x++ {
			buf[x] = max(buf[x], mark)
		}
	}
	for x := max(selFrom, 0); x < min(selTo, width); x++ {
		buf[x] = markSelected
	}
	return buf
}

// selection returns the columns [from, to) of view row y that are selected.
func (v *CopyView) selection(y, width int) (int, int) {
	if v == nil || !v.Selecting || y < v.SelFrom.Y || y > v.SelTo.Y {
		return 0, 0
	}
	from, to := 0, width
	if y == v.SelFrom.Y {
		from = v.SelFrom.X
	}
	if y == v.SelTo.Y {
		to = v.SelTo.X + 1
	}
	return from, to
}

// CopyMode is vi-style navigation, search and selection over a LineSource
// shown in a window of Width x Height cells. It is not safe for concurrent use;
// each client's Input owns its own.
type CopyMode struct {
	src       LineSource
	w, h      int
	top       int   // first line shown
	cur       Point // absolute line coordinates
	selecting bool
	anchor    Point
	query     string
	back      bool // the last search went backwards
	// ByMouse records that the wheel opened copy mode, so scrolling back to
	// the bottom leaves it again, as tmux does.
	ByMouse bool
	view    bool      // a read-only view of a verb's output (ShowOutput): the arrows scroll
	diff    *diffNav  // a view of a worktree's diff (ShowDiff): its files and hunks
	text    *viewText // a view's text, laid out again when the width changes
}

// NewCopyMode starts copy mode over src in a width x height window showing
// the last height lines (the live screen), with the cursor at (x, y) of that
// window — where the pane's cursor was.
func NewCopyMode(src LineSource, width, height, x, y int) *CopyMode {
	c := &CopyMode{src: src, w: max(width, 1), h: max(height, 1)}
	c.top = max(src.Len()-c.h, 0)
	c.cur = Point{x, c.top + y}
	c.clampCursor()
	return c
}

func (c *CopyMode) lines() int { return c.src.Len() }

func (c *CopyMode) maxTop() int { return max(c.lines()-c.h, 0) }

func (c *CopyMode) clampCursor() {
	n := c.lines()
	c.cur.Y = min(max(c.cur.Y, 0), max(n-1, 0))
	c.cur.X = min(max(c.cur.X, 0), c.w-1)
	// A wide rune's continuation is not a place to stand.
	if n > 0 && c.cur.X > 0 {
		if l := c.src.Line(c.cur.Y); c.cur.X < len(l) && l[c.cur.X].Width == 0 {
			c.cur.X--
		}
	}
}

// follow scrolls so the cursor is in view.
func (c *CopyMode) follow() {
	if c.cur.Y < c.top {
		c.top = c.cur.Y
	}
	if c.cur.Y >= c.top+c.h {
		c.top = c.cur.Y - c.h + 1
	}
	c.top = min(max(c.top, 0), c.maxTop())
}

// resize fits copy mode to a pane whose content area changed size.
func (c *CopyMode) resize(w, h int) {
	if w <= 0 || h <= 0 || (w == c.w && h == c.h) {
		return
	}
	if c.text != nil && w != c.w {
		// A view's text is wrapped again, its top row staying where it was
		// in the text; the cursor comes into view rather than the view
		// going to the cursor.
		c.relayout(w)
		c.w, c.h = w, h
		c.top = min(c.top, c.maxTop())
		c.cur.Y = min(max(c.cur.Y, c.top), c.top+c.h-1)
		c.clampCursor()
		return
	}
	c.w, c.h = w, h
	c.clampCursor()
	c.follow()
}

// Cursor returns the cursor in absolute line coordinates.
func (c *CopyMode) Cursor() Point { return c.cur }

// Top returns the first line shown.
func (c *CopyMode) Top() int { return c.top }

// AtBottom reports whether the view shows the last lines.
func (c *CopyMode) AtBottom() bool { return c.top >= c.maxTop() }

// Move moves the cursor by dx columns and dy lines.
func (c *CopyMode) Move(dx, dy int) {
	c.cur.X += dx
	c.cur.Y += dy
	if dx > 0 {
		// Stepping right off a wide rune skips its continuation.
		if l := c.line(c.cur.Y); c.cur.X < len(l) && c.cur.X > 0 && l[c.cur.X].Width == 0 {
			c.cur.X++
		}
	}
	c.clampCursor()
	c.follow()
}

func (c *CopyMode) line(y int) []term.Cell {
	if y < 0 || y >= c.lines() {
		return nil
	}
	return c.src.Line(y)
}

// SetViewCursor puts the cursor at (x, y) of the window, as a click does.
func (c *CopyMode) SetViewCursor(x, y int) {
	c.cur = Point{x, c.top + min(max(y, 0), c.h-1)}
	c.clampCursor()
}

// Scroll moves the view n lines (negative: back into history), keeping the
// cursor on the same screen row, as a wheel does.
func (c *CopyMode) Scroll(n int) {
	old := c.top
	c.top = min(max(c.top+n, 0), c.maxTop())
	c.cur.Y += c.top - old
	c.clampCursor()
}

// lineDown is j and Down (n=1), k and Up (n=-1): the cursor moves a line;
// in a view of a verb's output the view scrolls instead, and the cursor
// moves only once the view can go no further.
func (c *CopyMode) lineDown(n int) {
	if top := c.top + n; c.view && top >= 0 && top <= c.maxTop() {
		c.Scroll(n)
		return
	}
	c.Move(0, n)
}

// Page moves a whole window down (n=1) or up (n=-1).
func (c *CopyMode) Page(n int) { c.jump(n * c.h) }

// HalfPage moves half a window down (n=1) or up (n=-1).
func (c *CopyMode) HalfPage(n int) { c.jump(n * max(c.h/2, 1)) }

// jump scrolls the view and the cursor together by n lines.
func (c *CopyMode) jump(n int) {
	c.top = min(max(c.top+n, 0), c.maxTop())
	c.cur.Y += n
	c.clampCursor()
	c.follow()
}

// GoTop goes to the first line of the history (vi g).
func (c *CopyMode) GoTop() { c.cur = Point{0, 0}; c.top = 0 }

// GoBottom goes to the last line (vi G).
func (c *CopyMode) GoBottom() {
	c.cur = Point{0, max(c.lines()-1, 0)}
	c.follow()
}

// LineStart moves to column 0 (vi 0).
func (c *CopyMode) LineStart() { c.cur.X = 0 }

// LineEnd moves to the last non-blank cell of the line (vi $).
func (c *CopyMode) LineEnd() {
	l := c.line(c.cur.Y)
	x := min(len(l), c.w) - 1
	for x > 0 && blank(l[x]) {
		x--
	}
	c.cur.X = max(x, 0)
	c.clampCursor()
}

func blank(cell term.Cell) bool { return cell.Width != 0 && (cell.Rune == 0 || cell.Rune == ' ') }

// class sorts cells for word motions: 0 blank, 1 word characters, 2 other
// punctuation. Line ends count as blank, as in vi.
func (c *CopyMode) class(p Point) int {
	l := c.line(p.Y)
	if p.X >= len(l) {
		return 0
	}
	r := l[p.X].Rune
	switch {
	case r == 0 || r == ' ' || unicode.IsSpace(r):
		return 0
	case r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
		return 1
	}
	return 2
}

// step moves p one cell forward (dir 1) or back (-1) across lines, skipping
// wide-rune continuations; ok is false at either end.
func (c *CopyMode) step(p Point, dir int) (Point, bool) {
	for {
		p.X += dir
		if p.X >= c.w {
			if p.Y+1 >= c.lines() {
				return p, false
			}
			p = Point{0, p.Y + 1}
		} else if p.X < 0 {
			if p.Y == 0 {
				return p, false
			}
			p = Point{c.w - 1, p.Y - 1}
		}
		if l := c.line(p.Y); p.X < len(l) && l[p.X].Width == 0 && p.X > 0 {
			continue
		}
		return p, true
	}
}

// WordForward moves to the start of the next word (vi w).
func (c *CopyMode) WordForward() {
	p := c.cur
	cls := c.class(p)
	ok := true
	for ok && cls != 0 && c.class(p) == cls {
		var q Point
		if q, ok = c.step(p, 1); ok {
			if q.Y != p.Y { // a line break ends a word
				p = q
				break
			}
			p = q
		}
	}
	for ok && c.class(p) == 0 {
		p, ok = c.step(p, 1)
	}
	if ok {
		c.cur = p
	}
	c.follow()
}

// WordEnd moves to the end of the word under or after the cursor (vi e).
func (c *CopyMode) WordEnd() {
	p, ok := c.step(c.cur, 1)
	for ok && c.class(p) == 0 {
		p, ok = c.step(p, 1)
	}
	if !ok {
		c.follow()
		return
	}
	cls := c.class(p)
	for {
		q, ok := c.step(p, 1)
		if !ok || q.Y != p.Y || c.class(q) != cls {
			break
		}
		p = q
	}
	c.cur = p
	c.follow()
}

// FirstNonBlank moves to the first non-blank cell of the line (vi ^).
func (c *CopyMode) FirstNonBlank() {
	l := c.line(c.cur.Y)
	x := 0
	for x < len(l) && x < c.w-1 && blank(l[x]) {
		x++
	}
	if x < len(l) && blank(l[x]) {
		x = 0 // a blank line
	}
	c.cur.X = x
	c.clampCursor()
}

// ViewLine moves to the top (0), middle (1) or bottom (2) line of the view
// (vi H, M, L).
func (c *CopyMode) ViewLine(where int) {
	last := min(c.top+c.h, c.lines()) - 1
	switch where {
	case 0:
		c.cur.Y = c.top
	case 1:
		c.cur.Y = c.top + (last-c.top)/2
	default:
		c.cur.Y = last
	}
	c.FirstNonBlank()
}

// SwapEnds moves the cursor to the other end of the selection (vi o).
func (c *CopyMode) SwapEnds() {
	if c.selecting {
		c.cur, c.anchor = c.anchor, c.cur
		c.follow()
	}
}

// WordBack moves to the start of the previous word (vi b).
func (c *CopyMode) WordBack() {
	p, ok := c.step(c.cur, -1)
	for ok && c.class(p) == 0 {
		p, ok = c.step(p, -1)
	}
	if !ok {
		c.cur = Point{0, 0}
		c.follow()
		return
	}
	cls := c.class(p)
	for {
		q, ok := c.step(p, -1)
		if !ok || q.Y != p.Y || c.class(q) != cls {
			break
		}
		p = q
	}
	c.cur = p
	c.follow()
}

// StartSelection anchors a selection at the cursor (vi v); a second call
// clears it.
func (c *CopyMode) StartSelection() {
	if c.selecting {
		c.selecting = false
		return
	}
	c.selecting, c.anchor = true, c.cur
}

// Selecting reports whether a selection is anchored.
func (c *CopyMode) Selecting() bool { return c.selecting }

// span returns the selection's ends in order.
func (c *CopyMode) span() (Point, Point) {
	a, b := c.anchor, c.cur
	if b.before(a) {
		a, b = b, a
	}
	return a, b
}

// Selection returns the selected text: cells from one end to the other
// inclusive, trailing blanks of each line dropped, lines joined by "\n". With
// no selection it is the empty string.
func (c *CopyMode) Selection() string {
	if !c.selecting {
		return ""
	}
	a, b := c.span()
	var sb strings.Builder
	for y := a.Y; y <= b.Y; y++ {
		from, to := 0, c.w-1
		if y == a.Y {
			from = a.X
		}
		if y == b.Y {
			to = b.X
			// Include the whole wide rune under the cursor.
			if l := c.line(y); to+1 < len(l) && l[to].Width == 2 {
				to++
			}
		}
		text, _ := rowText(c.line(y), from, to+1)
		sb.WriteString(strings.TrimRight(text, " "))
		if y < b.Y {
			sb.WriteByte('\n')
		}
	}
	return sb.String()
}

// rowText returns the text of cells [from, to) of a row and, for each byte
// offset where a cell's text starts, the cell's column.
func rowText(l []term.Cell, from, to int) (string, []int) {
	var sb strings.Builder
	var cols []int
	for x := from; x < to && x < len(l); x++ {
		cell := l[x]
		if cell.Width == 0 && x > 0 {
			continue
		}
		t := cellText(cell)
		// One column entry per byte keeps lookups by byte offset simple.
		for i := 0; i < len(t); i++ {
			cols = append(cols, x)
		}
		sb.WriteString(t)
	}
	return sb.String(), cols
}

func cellText(c term.Cell) string {
	if c.Rune == 0 || c.Width == 0 {
		return " "
	}
	if c.Comb != "" {
		return string(c.Rune) + c.Comb
	}
	if c.Rune < 128 {
		return asciiStr[c.Rune]
	}
	return string(c.Rune)
}

// Search finds query forward (or backward) from the cursor, wrapping around,
// and moves the cursor to the match. A query in lower case matches either
// case. It reports whether anything matched.
func (c *CopyMode) Search(query string, backward bool) bool {
	c.query, c.back = query, backward
	return c.find(backward)
}

// SearchNext repeats the last search in its direction (n), or the opposite
// direction when reverse is set (N).
func (c *CopyMode) SearchNext(reverse bool) bool {
	if c.query == "" {
		return false
	}
	return c.find(c.back != reverse)
}

// Query returns the last search.
func (c *CopyMode) Query() string { return c.query }

func (c *CopyMode) find(backward bool) bool {
	n := c.lines()
	if c.query == "" || n == 0 {
		return false
	}
	// Line i steps from the cursor's line; i == n is the cursor's line again
	// after wrapping, where any match counts.
	for i := 0; i <= n; i++ {
		y := c.cur.Y + i
		if backward {
			y = c.cur.Y - i
		}
		y = ((y % n) + n) % n
		best := -1
		for _, m := range c.matches(y) {
			x := m[0]
			if i != 0 || (!backward && x > c.cur.X) || (backward && x < c.cur.X) {
				best = x
				if !backward {
					break
				}
			}
		}
		if best >= 0 {
			c.cur = Point{best, y}
			c.follow()
			return true
		}
	}
	return false
}

// matches returns the columns [from, to) of every match of the query on
// line y, left to right, overlapping ones included. A query in lower case
// matches either case.
func (c *CopyMode) matches(y int) [][2]int {
	q := c.query
	l := c.line(y)
	text, cols := rowText(l, 0, c.w)
	if strings.ToLower(q) == q {
		text = lowerASCII(text)
	}
	var out [][2]int
	for off := 0; off <= len(text)-len(q); {
		j := strings.Index(text[off:], q)
		if j < 0 {
			break
		}
		last := cols[off+j+len(q)-1] // the cell holding the match's last byte
		to := last + 1
		if last < len(l) && l[last].Width == 2 {
			to++
		}
		out = append(out, [2]int{cols[off+j], to})
		off += j + 1
	}
	return out
}

// lowerASCII lowercases ASCII letters only, so byte offsets stay valid; case
// folding in search is therefore ASCII-only.
func lowerASCII(s string) string {
	b := []byte(s)
	for i, ch := range b {
		if ch >= 'A' && ch <= 'Z' {
			b[i] = ch + 'a' - 'A'
		}
	}
	return string(b)
}

// View returns what Draw shows for this copy mode.
func (c *CopyMode) View() *CopyView {
	v := &CopyView{
		CursorX:  c.cur.X,
		CursorY:  c.cur.Y - c.top,
		Position: fmt.Sprintf("[%d/%d]", c.maxTop()-c.top, c.maxTop()),
	}
	if c.diff != nil {
		v.Position = c.diff.position(c.cur.Y) + v.Position
	}
	for y := c.top; y < c.top+c.h && y < c.lines(); y++ {
		v.Rows = append(v.Rows, c.src.Line(y))
	}
	if c.selecting {
		a, b := c.span()
		v.Selecting = true
		v.SelFrom = Point{a.X, a.Y - c.top}
		v.SelTo = Point{b.X, b.Y - c.top}
	}
	if c.query != "" {
		for y := c.top; y < c.top+len(v.Rows); y++ {
			ms := c.matches(y)
			cur := -1
			if y == c.cur.Y {
				cur = currentMatch(ms, c.cur.X)
			}
			for i, m := range ms {
				v.Matches = append(v.Matches, Match{Y: y - c.top, From: m[0], To: m[1], Current: i == cur})
			}
		}
	}
	return v
}

// currentMatch is the index of the match the cursor at column x is on: the
// one starting there (where a search leaves it), else the first holding x;
// -1 for none.
func currentMatch(ms [][2]int, x int) int {
	at := -1
	for i, m := range ms {
		if m[0] == x {
			return i
		}
		if at < 0 && x > m[0] && x < m[1] {
			at = i
		}
	}
	return at
}
