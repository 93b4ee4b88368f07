package ui

import (
	"slices"
	"strconv"
	"sync"

	"github.com/gdamore/tcell/v2"

	"github.com/melmux/melmux/pane/term"
)

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
	// Each cell is written once a frame: tcell marks a cell whose text
	// changes as to be sent even when a later write puts back what the
	// terminal shows, so a rule drawn under the title sent the whole title
	// again with every keystroke's echo. The rule goes where the title is not.
	putCell(s, f.X, f.Y, "─", line)
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
	if (p.State == "waiting" || p.Alert) && !p.Exited || p.Exited && (p.Signal != "" || p.ExitCode != nil && *p.ExitCode != 0) {
		text = tcell.StyleDefault.Foreground(tcolor(st.Attention)).Bold(true)
	}
	x = putStr(s, x, f.Y, end-1, suffix, text)
	for ; x < end; x++ {
		putCell(s, x, f.Y, "─", line)
	}
}

// drawContent draws the pane's screen (or its copy-mode view) into Content.
// Rows equal to prev's, the rows the screen shows there already, are left
// as they are (prev nil: every row is drawn).
func drawContent(s tcell.Screen, p *PaneView, b Rect, prev [][]term.Cell) {
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
		if ry < len(prev) && len(row) == len(prev[ry]) && slices.Equal(row, prev[ry]) {
			continue
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
