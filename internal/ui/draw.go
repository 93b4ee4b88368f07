package ui

import (
	"fmt"
	"strconv"
	"sync"

	"github.com/gdamore/tcell/v2"
	"github.com/mattn/go-runewidth"

	"github.com/melmux/melmux/pane/term"
)

// widths measures text we draw ourselves (titles, status line). It is fixed
// rather than read from the environment so that every client measures the
// same way the pane emulator does (ambiguous characters are narrow).
var widths = &runewidth.Condition{EastAsianWidth: false}

// asciiStr holds one-rune strings for ASCII so drawing plain text does not
// allocate a string per cell.
var asciiStr = func() (t [128]string) {
	for i := range t {
		t[i] = string(rune(i))
	}
	return t
}()

// Draw paints the scene on s and calls s.Show. It never fails: anything that
// does not fit is clipped.
func Draw(s tcell.Screen, sc *Scene) {
	var p Painter
	p.Draw(s, sc)
}

// Painter draws the frames of one screen, one after another, and remembers
// what each pane's content was drawn from. A pane whose screen is the very
// snapshot drawn last frame, in the same place, is not drawn again: the
// screen's buffer still holds it (nothing else writes there: clearGaps only
// blanks what no pane covers, and a frame with an overlay over the panes,
// or after one, draws everything). The server hands a quiet pane's last
// snapshot on (it takes a new one only when the pane printed), so a frame
// draws the panes that changed, the echo of a key the typed pane alone.
// The zero value is ready; a Painter belongs to one screen.
type Painter struct {
	w, h    int               // the screen's size at the last frame
	overlay bool              // the last frame drew over the panes
	drawn   map[int]paneDrawn // by pane id: what its content was drawn from
	next    map[int]paneDrawn // the frame being drawn's, swapped with drawn after it
}

// paneDrawn is everything drawContent draws from, for a pane outside copy
// mode: an equal one draws the same cells.
type paneDrawn struct {
	screen  *term.Screen
	content Rect
	clipped Rect
	exit    string // the exit marker, "" while the program runs
}

// Draw draws the scene onto s, as the function Draw does.
func (pt *Painter) Draw(s tcell.Screen, sc *Scene) {
	st := sc.StatusStyle.OrDefault()
	cols, rows := sc.Cols, sc.Rows
	w, h := s.Size()
	if cols <= 0 || cols > w || rows <= 0 || rows > h {
		cols, rows = w, h
	}
	bounds := Rect{0, 0, cols, rows - 1}
	overlay := sc.Help || sc.Agents != nil || sc.PaneNumbers || sc.Chooser != nil || rows > 1 && sc.Prompt != nil && len(sc.Prompt.Choices) > 0
	keep := pt.drawn != nil && w == pt.w && h == pt.h && !overlay && !pt.overlay
	if pt.next == nil {
		pt.next = make(map[int]paneDrawn, len(sc.Panes))
	}
	drawn := pt.next
	clear(drawn)
	// Every cell is written each frame (tcell sends only what changed), but
	// not twice: panes and separators draw their own blanks and only the
	// gaps between them, and any screen area beyond the scene, are cleared.
	clearGaps(s, sc, bounds, w, h)
	for i := range sc.Panes {
		p := &sc.Panes[i]
		drawTitle(s, p, st, bounds)
		if p.Copy != nil || p.Screen == nil {
			drawContent(s, p, bounds)
			continue
		}
		d := paneDrawn{screen: p.Screen, content: p.Content, clipped: clip(p.Content, bounds)}
		if p.Exited {
			d.exit = exitText(p)
		}
		if !keep || pt.drawn[p.ID] != d {
			drawContent(s, p, bounds)
		}
		drawn[p.ID] = d
	}
	pt.w, pt.h, pt.overlay = w, h, overlay
	pt.drawn, pt.next = drawn, pt.drawn
	drawSeparators(s, sc, st, bounds)
	if rows > 0 {
		drawStatus(s, sc, st, cols, rows-1)
	}
	if sc.Agents != nil {
		drawAgents(s, sc, st, cols, rows-1)
	}
	drawTmuxOverlays(s, sc, st, cols, rows-1)
	if rows > 1 && sc.Prompt != nil && len(sc.Prompt.Choices) > 0 {
		drawChoices(s, sc.Prompt, st, cols, rows-2)
	}
	if sc.Help {
		drawHelp(s, sc, st, cols, rows-1)
	}
	placeCursor(s, sc, cols, rows)
	s.Show()
}

// clearGaps blanks every cell of the w x h screen that no title bar, pane
// content or separator covers, apart from the status row.
func clearGaps(s tcell.Screen, sc *Scene, b Rect, w, h int) {
	var spans [][2]int
	for y := 0; y < h; y++ {
		spans = spans[:0]
		if y == b.Y+b.H {
			spans = append(spans, [2]int{0, b.W}) // the status line draws itself
		}
		if y < b.Y+b.H {
			for i := range sc.Panes {
				// What drawTitle and drawContent write: the title row and
				// the content, not the whole frame, which might be larger.
				f := sc.Panes[i].Frame
				title := Rect{f.X, f.Y, f.W, min(f.H, 1)}
				for _, r := range [2]Rect{clip(title, b), clip(sc.Panes[i].Content, b)} {
					if y >= r.Y && y < r.Y+r.H {
						spans = append(spans, [2]int{r.X, r.X + r.W})
					}
				}
			}
			for _, sep := range sc.Separators {
				if r := clip(sep, b); y >= r.Y && y < r.Y+r.H {
					spans = append(spans, [2]int{r.X, r.X + r.W})
				}
			}
		}
		for x := 0; x < w; {
			next := w
			covered := false
			for _, sp := range spans {
				if x >= sp[0] && x < sp[1] {
					x, covered = sp[1], true
					break
				}
				if sp[0] > x && sp[0] < next {
					next = sp[0]
				}
			}
			if covered {
				continue
			}
			for ; x < next; x++ {
				s.Put(x, y, " ", tcell.StyleDefault)
			}
		}
	}
}

// clip intersects r with b.
func clip(r, b Rect) Rect {
	x0, y0 := max(r.X, b.X), max(r.Y, b.Y)
	x1, y1 := min(r.X+r.W, b.X+b.W), min(r.Y+r.H, b.Y+b.H)
	if x1 <= x0 || y1 <= y0 {
		return Rect{}
	}
	return Rect{x0, y0, x1 - x0, y1 - y0}
}

// putStr draws str from x on row y, stopping before maxX, and returns where it
// stopped. Wide runes that would straddle maxX are not drawn.
func putStr(s tcell.Screen, x, y, maxX int, str string, style tcell.Style) int {
	for _, r := range str {
		w := widths.RuneWidth(r)
		if w == 0 {
			continue // a lone combining mark or control: nothing to place
		}
		if x+w > maxX {
			break
		}
		if r < 128 {
			s.Put(x, y, asciiStr[r], style)
		} else {
			putCell(s, x, y, glyph(r), style)
		}
		x += w
	}
	return x
}

// exitText is "[exited 1]", "[exited SIGKILL]" or "[exited]".
func exitText(p *PaneView) string {
	switch {
	case p.Signal != "":
		return "[exited " + p.Signal + "]"
	case p.ExitCode != nil:
		return "[exited " + strconv.Itoa(*p.ExitCode) + "]"
	}
	return "[exited]"
}

// drawTitle draws the pane's top border: "─ 3 claude · busy ─────".
func drawTitle(s tcell.Screen, p *PaneView, st StatusStyle, b Rect) {
	f := clip(Rect{p.Frame.X, p.Frame.Y, p.Frame.W, min(1, p.Frame.H)}, b)
	if f.W == 0 {
		return
	}
	line := tcell.StyleDefault.Foreground(tcolor(st.Border))
	text := line
	if p.Focused {
		line = tcell.StyleDefault.Foreground(tcolor(st.Focus)).Bold(true)
		text = line
	}
	end := f.X + f.W
	for x := f.X; x < end; x++ {
		putCell(s, x, f.Y, "─", line)
	}
	name := p.Title
	if name == "" {
		name = p.Command
	}
	id := " " + strconv.Itoa(p.ID) + " "
	suffix := ""
	if p.Exited {
		suffix = exitText(p) + " "
	} else if p.State != "" {
		suffix = "· " + p.State + " "
	}
	// A worktree pane's changes: "+12 −3 ", added in green, deleted in red.
	added, deleted, changes := "", "", 0
	if p.Diff != nil {
		added, deleted = "+"+strconv.Itoa(p.Diff.Added), "−"+strconv.Itoa(p.Diff.Deleted)
		changes = widths.StringWidth(added) + widths.StringWidth(deleted) + 2
	}
	// When space is short the name is shortened down to a few characters,
	// then the worktree's changes go, then the state; the id and the exit
	// status always stay.
	avail := f.W - 2
	room := avail - widths.StringWidth(id) - widths.StringWidth(suffix) - changes
	if changes > 0 && room < min(widths.StringWidth(name)+1, 5) {
		room += changes
		changes = 0
	}
	if !p.Exited && room < min(widths.StringWidth(name)+1, 5) {
		suffix = ""
		room = avail - widths.StringWidth(id)
	}
	switch w := widths.StringWidth(name); {
	case name == "" || room < 2:
		name = ""
	case w+1 > room:
		name = widths.Truncate(name, room-2, "…") + " "
	default:
		name += " "
	}
	label := id + name
	if widths.StringWidth(label+suffix)+changes > avail && avail > 0 {
		label = widths.Truncate(label+suffix, avail-1, "…") + " "
		suffix, changes = "", 0
	}
	x := putStr(s, f.X+1, f.Y, end-1, label, text)
	if changes > 0 {
		x = putStr(s, x, f.Y, end-1, added, text.Foreground(tcell.PaletteColor(2)))
		x = putStr(s, x, f.Y, end-1, " ", text)
		x = putStr(s, x, f.Y, end-1, deleted, text.Foreground(tcell.PaletteColor(1)))
		x = putStr(s, x, f.Y, end-1, " ", text)
	}
	// A pane waiting on a person, or one that failed, stands out.
	if p.State == "waiting" && !p.Exited || p.Exited && (p.Signal != "" || p.ExitCode != nil && *p.ExitCode != 0) {
		text = tcell.StyleDefault.Foreground(tcolor(st.Attention)).Bold(true)
	}
	putStr(s, x, f.Y, end-1, suffix, text)
}

// drawContent draws the pane's screen (or its copy-mode view) into Content.
func drawContent(s tcell.Screen, p *PaneView, b Rect) {
	c := clip(p.Content, b)
	if c.W == 0 {
		return
	}
	var rows [][]term.Cell
	if p.Copy != nil {
		rows = p.Copy.Rows
	} else if p.Screen != nil {
		rows = p.Screen.Cells
	}
	// The content rect may be clipped on the left or top by the bounds; keep
	// screen coordinates relative to the unclipped origin.
	dx, dy := c.X-p.Content.X, c.Y-p.Content.Y
	var cache styleCache
	var text []byte
	var markBuf []uint8
	for y := 0; y < c.H; y++ {
		ry := y + dy
		var row []term.Cell
		if ry < len(rows) {
			row = rows[ry]
		}
		n := min(max(len(row)-dx, 0), c.W) // cells of this row inside the rect
		// Runs of plain ASCII cells in one style go to tcell as one string,
		// taking its lock once per run instead of once per cell. The row's
		// text is converted once; runs are substrings of it.
		text = text[:0]
		for x := 0; x < n; x++ {
			text = append(text, plainByte(&row[x+dx]))
		}
		line := string(text)
		marks := p.Copy.marks(ry, p.Content.W, markBuf)
		if marks != nil {
			markBuf = marks
		}
		sy := c.Y + y
		for x := 0; x < n; {
			rx := x + dx
			cell := &row[rx]
			style := cache.get(cell.FG, cell.BG, cell.Attr)
			mark := markOf(marks, rx)
			if mark != markNone {
				style = markStyle(style, cell.Attr, mark)
			}
			if line[x] != 0 {
				end := x + 1
				for end < n && line[end] != 0 {
					next := &row[end+dx]
					if next.FG != cell.FG || next.BG != cell.BG || next.Attr != cell.Attr || markOf(marks, end+dx) != mark {
						break
					}
					end++
				}
				run := line[x:end]
				if i, j := changedSpan(s, c.X+x, sy, run, style); i < j {
					s.PutStrStyled(c.X+x+i, sy, run[i:j], style)
				}
				x = end
				continue
			}
			sx := c.X + x
			wide := cell.Width == 2
			switch {
			case cell.Width == 0, wide && x+1 >= c.W:
				// An orphan continuation or a wide rune cut by the edge:
				// a blank keeps the columns right.
				putCell(s, sx, sy, " ", style)
			case cell.Rune == 0x7f || cell.Rune >= 0x80 && cell.Rune < 0xa0:
				putCell(s, sx, sy, " ", style) // DEL and C1 controls have no glyph
			default:
				g, pair := fitCell(row, rx, x+1 < n)
				putCell(s, sx, sy, g, style)
				wide = wide || pair
			}
			x++
			if wide && x < c.W {
				// The continuation cell (or a flag's second letter) belongs
				// to this grapheme. tcell skips it when it agrees the
				// grapheme is wide; if it measures it narrow, the blank
				// keeps last frame's text from showing.
				putCell(s, sx+1, sy, " ", style)
				x++
			}
		}
		// Past the end of the pane's screen (a resize not yet caught up).
		for x := n; x < c.W; x++ {
			putCell(s, c.X+x, sy, " ", tcell.StyleDefault)
		}
	}
	if p.Copy != nil && p.Copy.Position != "" {
		pos := p.Copy.Position
		x := c.X + c.W - widths.StringWidth(pos)
		putStr(s, max(x, c.X), c.Y, c.X+c.W, pos, tcell.StyleDefault.Reverse(true))
	}
	if p.Exited && p.Copy == nil {
		y := lastUsedRow(rows, c.H) + 1
		if y >= c.H {
			y = c.H - 1
		}
		putStr(s, c.X, c.Y+y, c.X+c.W, exitText(p), tcell.StyleDefault.Reverse(true))
	}
}

// A frame redraws every cell of every pane, and most are what the screen
// holds already: tcell's Put measures each grapheme (uniseg) before it
// compares, the larger part of a frame's cost, while reading a cell back is
// an index. So a pane's content goes to tcell only where it differs from the
// screen's buffer. Skipping a Put of what a cell holds leaves the buffer as
// the Put would (tcell marks nothing dirty for equal content); Get shows an
// empty cell as a blank, and an empty cell is drawn as one.

// changedSpan is the part [i, j) of the ASCII run that the screen does not
// hold at x, y in style; i == j when it holds all of it.
func changedSpan(s tcell.Screen, x, y int, run string, style tcell.Style) (i, j int) {
	get := s.Get
	if b, ok := s.(cellBuffered); ok {
		// One lock for the run rather than one a cell.
		cells := b.GetCells()
		b.Lock()
		defer b.Unlock()
		get = cells.Get
	}
	holds := func(k int) bool {
		str, st, w := get(x+k, y)
		return w == 1 && st == style && len(str) == 1 && str[0] == run[k]
	}
	i, j = 0, len(run)
	for i < j && holds(i) {
		i++
	}
	for j > i && holds(j-1) {
		j--
	}
	return i, j
}

// cellBuffered is what tcell's screens have beside tcell.Screen: the cell
// buffer its own Put and Get use, under the screen's lock.
type cellBuffered interface {
	GetCells() *tcell.CellBuffer
	sync.Locker
}

// boxGlyphs are the frames' and separators' runes as strings, drawn on
// every frame: tcell's SetContent would allocate two values a cell.
var boxGlyphs = map[rune]string{'─': "─", '│': "│", '┌': "┌", '┐': "┐", '└': "└", '┘': "┘",
	'├': "├", '┤': "┤", '┬': "┬", '┴': "┴", '┼': "┼"}

// glyph is the rune as a string, without allocating for a frame's runes.
func glyph(r rune) string {
	if g, ok := boxGlyphs[r]; ok {
		return g
	}
	return string(r)
}

// putCell puts one grapheme unless the screen holds it there in style.
func putCell(s tcell.Screen, x, y int, g string, style tcell.Style) {
	if str, st, _ := s.Get(x, y); str == g && st == style {
		return
	}
	s.Put(x, y, g, style)
}

// Search matches in copy mode take tmux's colours: black on cyan, the
// current one black on magenta.
var (
	matchFG   = tcell.PaletteColor(0)
	matchBG   = tcell.PaletteColor(6)
	currentBG = tcell.PaletteColor(5)
)

// markOf is the mark of cell x in a row's marks (nil: none marked).
func markOf(marks []uint8, x int) uint8 {
	if x < len(marks) {
		return marks[x]
	}
	return markNone
}

// markStyle is a copy-mode cell's style under its mark: the selection shows
// reversed, search matches in their own colours.
func markStyle(style tcell.Style, a term.Attr, mark uint8) tcell.Style {
	switch mark {
	case markSelected:
		return style.Reverse(a&term.AttrReverse == 0)
	case markMatch:
		return style.Reverse(false).Foreground(matchFG).Background(matchBG)
	case markCurrent:
		return style.Reverse(false).Foreground(matchFG).Background(currentBG)
	}
	return style
}

// plainByte is the one byte a cell draws as when it is plain ASCII (blanks
// and control characters draw as a space), or 0 when it needs its own Put:
// wide, combining, continuation and non-ASCII cells.
func plainByte(c *term.Cell) byte {
	switch {
	case c.Width != 1 || c.Comb != "" || c.Rune >= 0x7f:
		return 0
	case c.Rune <= ' ':
		return ' '
	}
	return byte(c.Rune)
}

// lastUsedRow is the index of the last row with any visible character, -1 if none.
func lastUsedRow(rows [][]term.Cell, h int) int {
	for y := min(len(rows), h) - 1; y >= 0; y-- {
		for _, c := range rows[y] {
			if c.Rune != 0 && c.Rune != ' ' {
				return y
			}
		}
	}
	return -1
}

// styleCache remembers converted styles in a small direct-mapped table:
// a screen uses few distinct styles, and converting costs far more than
// looking one up.
type styleCache struct {
	slots [64]styleSlot
}

type styleSlot struct {
	ok     bool
	fg, bg term.Color
	attr   term.Attr
	style  tcell.Style
}

func (c *styleCache) get(fg, bg term.Color, a term.Attr) tcell.Style {
	h := (uint32(fg)*0x9e3779b1 ^ uint32(bg)*0x85ebca6b ^ uint32(a)*0xc2b2ae35) >> 26
	sl := &c.slots[h]
	if !sl.ok || sl.fg != fg || sl.bg != bg || sl.attr != a {
		*sl = styleSlot{ok: true, fg: fg, bg: bg, attr: a, style: tstyle(fg, bg, a)}
	}
	return sl.style
}

// drawSeparators draws the vertical separators, joining them to the title
// bars they cross and colouring the part beside the focused pane.
func drawSeparators(s tcell.Screen, sc *Scene, st StatusStyle, b Rect) {
	plain := tcell.StyleDefault.Foreground(tcolor(st.Border))
	focus := tcell.StyleDefault.Foreground(tcolor(st.Focus))
	fp := sc.Focused()
	for _, r := range sc.Separators {
		r = clip(r, b)
		for y := r.Y; y < r.Y+r.H; y++ {
			for x := r.X; x < r.X+r.W; x++ {
				style := plain
				if fp != nil && y >= fp.Frame.Y && y < fp.Frame.Y+fp.Frame.H &&
					(fp.Frame.X+fp.Frame.W == x || fp.Frame.X == x+1) {
					style = focus
				}
				ch := joint(isBorderAt(sc, x-1, y), isBorderAt(sc, x+1, y),
					onSeparator(sc, x, y-1), onSeparator(sc, x, y+1))
				putCell(s, x, y, glyph(ch), style)
			}
		}
	}
}

// joint picks the box-drawing character for a separator cell from which
// neighbours it connects to: title bars left and right, separator above and below.
func joint(left, right, up, down bool) rune {
	switch {
	case left && right && up && down:
		return '┼'
	case left && right && down:
		return '┬'
	case left && right && up:
		return '┴'
	case left && (up || down):
		return '┤'
	case right && (up || down):
		return '├'
	}
	return '│'
}

func onSeparator(sc *Scene, x, y int) bool {
	for _, r := range sc.Separators {
		if r.Contains(x, y) {
			return true
		}
	}
	return false
}

// isBorderAt reports whether (x, y) lies on some pane's title bar.
func isBorderAt(sc *Scene, x, y int) bool {
	for i := range sc.Panes {
		f := sc.Panes[i].Frame
		if f.H > 0 && y == f.Y && x >= f.X && x < f.X+f.W {
			return true
		}
	}
	return false
}

// statusSeg is one piece of the status line. Tab is the tab index a click on
// it selects, or -1.
type statusSeg struct {
	X, W  int
	Text  string
	Style tcell.Style
	Tab   int
}

// statusLayout places the status line: session and tabs from the left,
// message after them, prefix indicator and size note on the right. Draw and
// mouse hit-testing share it so clicks land on what is shown.
func statusLayout(sc *Scene, st StatusStyle, cols int) []statusSeg {
	base := tcell.StyleDefault.Foreground(tcolor(st.FG)).Background(tcolor(st.BG))
	var segs []statusSeg
	var right []statusSeg
	if sc.PrefixActive {
		right = append(right, statusSeg{Text: " PREFIX ", Style: base.Reverse(true).Bold(true), Tab: -1})
	}
	if sc.SizeNote != "" {
		right = append(right, statusSeg{Text: " " + sc.SizeNote + " ", Style: base, Tab: -1})
	}
	rw := 0
	for _, r := range right {
		rw += widths.StringWidth(r.Text)
	}
	limit := max(cols-rw, 0)
	x := 0
	add := func(text string, style tcell.Style, tab int) {
		w := widths.StringWidth(text)
		if x+w > limit {
			text = widths.Truncate(text, limit-x, "")
			w = widths.StringWidth(text)
		}
		if w > 0 {
			segs = append(segs, statusSeg{X: x, W: w, Text: text, Style: style, Tab: tab})
			x += w
		}
	}
	add("["+sc.Session+"] ", base.Bold(true), -1)
	type tabLabel struct {
		text  string
		style tcell.Style
		index int
	}
	labels := make([]tabLabel, 0, len(sc.Tabs))
	total, active := 0, -1
	for i, t := range sc.Tabs {
		label := fmt.Sprintf("%d:%s(%d)", t.Index, t.Name, t.Panes)
		if t.Zoomed {
			label += "Z"
		}
		// A pane needing the person outranks one that finished.
		switch {
		case t.Attention:
			label += "!"
		case t.Done:
			label += "+"
		}
		style := base
		if t.Active {
			style = tcell.StyleDefault.Foreground(tcolor(st.ActiveFG)).Background(tcolor(st.ActiveBG)).Bold(true)
			label += "*"
			active = i
		}
		if t.Attention && !t.Active {
			style = style.Foreground(tcolor(st.Attention)).Bold(true)
		}
		labels = append(labels, tabLabel{label, style, t.Index})
		total += widths.StringWidth(label) + 1
	}
	// When the tabs do not fit, the list starts late enough that the
	// active tab shows, with "<" saying some are hidden.
	first := 0
	if room := limit - x; total > room && active > 0 {
		w := 2 // "< "
		for i := active; i >= 0; i-- {
			w += widths.StringWidth(labels[i].text) + 1
			if w > room {
				break
			}
			first = i
		}
		if first == 0 && widths.StringWidth(labels[active].text)+3 > room {
			first = active
		}
	}
	if first > 0 {
		add("< ", base, -1)
	}
	for _, l := range labels[first:] {
		add(l.text, l.style, l.index)
		add(" ", base, -1)
	}
	if sc.Message != "" {
		add(" "+sc.Message, base.Bold(true), -1)
	}
	x = limit
	for _, r := range right {
		r.W = widths.StringWidth(r.Text)
		if x+r.W > cols {
			break
		}
		r.X = x
		segs = append(segs, r)
		x += r.W
	}
	return segs
}

// drawStatus draws the last row: the prompt when one is open, else the status line.
func drawStatus(s tcell.Screen, sc *Scene, st StatusStyle, cols, y int) {
	base := tcell.StyleDefault.Foreground(tcolor(st.FG)).Background(tcolor(st.BG))
	for x := 0; x < cols; x++ {
		s.Put(x, y, " ", base)
	}
	if sc.Prompt != nil {
		text, _ := promptLayout(sc.Prompt, cols)
		putStr(s, 0, y, cols, text, base)
		return
	}
	for _, g := range statusLayout(sc, st, cols) {
		putStr(s, g.X, y, g.X+g.W, g.Text, g.Style)
	}
}

// drawChoices lists Tab's completions on row y, above the prompt, in the
// status line's colours with the one in the line reversed. When they do not
// all fit, the list starts late enough to show that one, "<" saying some
// are hidden, as the tabs do.
func drawChoices(s tcell.Screen, p *PromptView, st StatusStyle, cols, y int) {
	base := tcell.StyleDefault.Foreground(tcolor(st.FG)).Background(tcolor(st.BG))
	for x := 0; x < cols; x++ {
		s.Put(x, y, " ", base)
	}
	at := p.Choice
	if at >= len(p.Choices) {
		at = -1
	}
	first := 0
	if at > 0 {
		w := 2 // "< "
		for i := at; i >= 0; i-- {
			w += widths.StringWidth(p.Choices[i]) + 2
			if w > cols {
				break
			}
			first = i
		}
	}
	x := 0
	if first > 0 {
		x = putStr(s, x, y, cols, "< ", base)
	}
	for i := first; i < len(p.Choices) && x < cols; i++ {
		style := base
		if i == at {
			style = base.Reverse(true).Bold(true)
		}
		x = putStr(s, x, y, cols, p.Choices[i], style)
		x += 2
	}
}

// helpBox is the rectangle of the help overlay for a screen of cols x rows.
// helpBox sizes the help overlay: as many columns of bindings as it takes to
// show them all within the screen (each column keyw wide for the keys plus the
// longest command), one column when they fit.
func helpBox(sc *Scene, cols, rows int) (r Rect, keyw, colw, ncol int) {
	cmdw := 0
	for _, b := range sc.Bindings {
		keyw = max(keyw, widths.StringWidth(b.Keys))
		cmdw = max(cmdw, widths.StringWidth(b.Command))
	}
	colw = keyw + 2 + cmdw
	perCol := max(rows-2, 1)
	ncol = max((len(sc.Bindings)+perCol-1)/perCol, 1)
	// Never more columns than the width holds; what still does not fit is
	// counted in the last row.
	for ncol > 1 && ncol*colw+(ncol-1)*3+4 > cols {
		ncol--
	}
	h := (len(sc.Bindings)+ncol-1)/ncol + 2
	w := max(ncol*colw+(ncol-1)*3, widths.StringWidth(helpTitle)) + 4
	w, h = min(w, cols), min(h, rows)
	return Rect{(cols - w) / 2, (rows - h) / 2, w, h}, keyw, colw, ncol
}

const helpTitle = " keys (any key closes) "

// drawHelp draws the help overlay: a box listing every binding, in columns
// when one would not fit.
func drawHelp(s tcell.Screen, sc *Scene, st StatusStyle, cols, rows int) {
	r, keyw, colw, ncol := helpBox(sc, cols, rows)
	if r.W < 4 || r.H < 3 {
		return
	}
	frame := tcell.StyleDefault.Foreground(tcolor(st.Focus)).Bold(true)
	body := tcell.StyleDefault
	x1, y1 := r.X+r.W-1, r.Y+r.H-1
	for y := r.Y; y <= y1; y++ {
		for x := r.X; x <= x1; x++ {
			ch, style := ' ', body
			switch {
			case y == r.Y && x == r.X:
				ch, style = '┌', frame
			case y == r.Y && x == x1:
				ch, style = '┐', frame
			case y == y1 && x == r.X:
				ch, style = '└', frame
			case y == y1 && x == x1:
				ch, style = '┘', frame
			case y == r.Y || y == y1:
				ch, style = '─', frame
			case x == r.X || x == x1:
				ch, style = '│', frame
			}
			putCell(s, x, y, glyph(ch), style)
		}
	}
	putStr(s, r.X+2, r.Y, x1, helpTitle, frame)
	perCol := r.H - 2
	shown := perCol * ncol
	if shown < len(sc.Bindings) {
		shown-- // the last row says how many are left out
	}
	for i, b := range sc.Bindings {
		if i >= shown {
			last := r.X + 2 + (ncol-1)*(colw+3)
			putStr(s, last, y1-1, x1, fmt.Sprintf("… and %d more", len(sc.Bindings)-i), body)
			break
		}
		col, row := i/perCol, i%perCol
		x0 := r.X + 2 + col*(colw+3)
		y := r.Y + 1 + row
		x := putStr(s, x0, y, x1, b.Keys, body.Bold(true))
		x = max(x, x0+keyw+2)
		putStr(s, x, y, x1, b.Command, body)
	}
}

// promptLayout returns the part of the prompt line that fits in cols and
// the cursor's column in it: a line longer than the screen scrolls left so
// the cursor stays in view.
func promptLayout(p *PromptView, cols int) (string, int) {
	line := []rune(p.Label + p.Text)
	cur := len([]rune(p.Label)) + min(max(p.Cursor, 0), len([]rune(p.Text)))
	start, x := 0, 0
	for _, r := range line[:cur] {
		x += widths.RuneWidth(r)
	}
	for x >= cols && start < cur {
		x -= widths.RuneWidth(line[start])
		start++
	}
	return string(line[start:]), x
}

var cursorStyles = [...]tcell.CursorStyle{
	term.CursorDefault:        tcell.CursorStyleDefault,
	term.CursorBlockBlink:     tcell.CursorStyleBlinkingBlock,
	term.CursorBlock:          tcell.CursorStyleSteadyBlock,
	term.CursorUnderlineBlink: tcell.CursorStyleBlinkingUnderline,
	term.CursorUnderline:      tcell.CursorStyleSteadyUnderline,
	term.CursorBarBlink:       tcell.CursorStyleBlinkingBar,
	term.CursorBar:            tcell.CursorStyleSteadyBar,
}

// placeCursor puts the terminal cursor where the person is typing: the
// prompt, the copy-mode cursor, or the focused pane's own cursor.
func placeCursor(s tcell.Screen, sc *Scene, cols, rows int) {
	if sc.Prompt != nil && rows > 0 {
		_, x := promptLayout(sc.Prompt, cols)
		s.SetCursorStyle(tcell.CursorStyleDefault)
		s.ShowCursor(min(x, cols-1), rows-1)
		return
	}
	p := sc.Focused()
	if sc.Help || sc.Agents != nil || sc.Chooser != nil || p == nil {
		s.HideCursor()
		return
	}
	var x, y int
	shape := tcell.CursorStyleDefault
	switch {
	case p.Copy != nil:
		x, y = p.Copy.CursorX, p.Copy.CursorY
	case p.Screen != nil && p.Screen.Cursor.Visible && !p.Screen.Modes.CursorHidden && !p.Exited:
		x, y = p.Screen.Cursor.X, p.Screen.Cursor.Y
		if int(p.Screen.Cursor.Shape) < len(cursorStyles) {
			shape = cursorStyles[p.Screen.Cursor.Shape]
		}
	default:
		s.HideCursor()
		return
	}
	if x < 0 || y < 0 || x >= p.Content.W || y >= p.Content.H || p.Content.Y+y >= rows-1 || p.Content.X+x >= cols {
		s.HideCursor()
		return
	}
	s.SetCursorStyle(shape)
	s.ShowCursor(p.Content.X+x, p.Content.Y+y)
}
