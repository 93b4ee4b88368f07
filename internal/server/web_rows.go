package server

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/melmux/melmux/internal/webwire"
	"github.com/melmux/melmux/pane/term"
)

// A pane's screen as the web page draws it: the session encodes its rows,
// so the web server's process never links the emulator; it compares the
// rows as strings and sends a page those that changed.

// Run flags beside term.Attr's bits (which fit in the low byte).
const (
	webFlagWide   = 1 << 8 // one wide character, two columns
	webFlagCursor = 1 << 9 // the cursor's cell
)

// webScreen is scr in the page's rows.
func webScreen(scr *term.Screen) *webwire.ScreenResult {
	cur := scr.Cursor
	vis := 0
	if cur.Visible {
		vis = 1
	}
	r := &webwire.ScreenResult{Cols: scr.Cols, Rows: scr.Rows, Title: scr.Title, Cursor: [3]int{cur.X, cur.Y, vis},
		Lines: make([]json.RawMessage, len(scr.Cells))}
	for y, cells := range scr.Cells {
		cx := -1
		if cur.Visible && cur.Y == y {
			cx = cur.X
		}
		r.Lines[y] = webRow(cells, cx)
	}
	return r
}

// webRow is a row as runs of one style: ["text"] in default colours, else
// ["text", fg, bg, flags], a colour being -1 (default), 0-255 (palette) or
// 0x1000000+RGB. A wide character and the cursor's cell are runs of their
// own, so the page can give each its columns; trailing blanks are left out.
func webRow(cells []term.Cell, cursorX int) json.RawMessage {
	end := len(cells)
	for end > 0 && end-1 != cursorX && webBlank(cells[end-1]) {
		end--
	}
	b := []byte{'['}
	var text []byte
	fg, bg, fl := 0, 0, -1
	flush := func() {
		if fl < 0 {
			return
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, '[')
		s, _ := json.Marshal(string(text))
		b = append(b, s...)
		if fg != -1 || bg != -1 || fl != 0 {
			b = append(b, ',')
			b = strconv.AppendInt(b, int64(fg), 10)
			b = append(b, ',')
			b = strconv.AppendInt(b, int64(bg), 10)
			b = append(b, ',')
			b = strconv.AppendInt(b, int64(fl), 10)
		}
		b = append(b, ']')
		text, fl = text[:0], -1
	}
	for x := 0; x < end; x++ {
		c := cells[x]
		if c.Width == 0 {
			continue // a wide character's second column
		}
		f := int(c.Attr) & 0xff
		if c.Width == 2 {
			f |= webFlagWide
		}
		if x == cursorX {
			f |= webFlagCursor
		}
		cf, cb := webColor(c.FG), webColor(c.BG)
		alone := f&(webFlagWide|webFlagCursor) != 0
		if alone || fl < 0 || cf != fg || cb != bg || f != fl {
			flush()
			fg, bg, fl = cf, cb, f
		}
		r := c.Rune
		if r == 0 {
			r = ' '
		}
		text = utf8.AppendRune(text, r)
		text = append(text, c.Comb...)
		if alone {
			flush()
		}
	}
	flush()
	return append(b, ']')
}

func webBlank(c term.Cell) bool {
	return (c.Rune == 0 || c.Rune == ' ') && c.Comb == "" && c.BG.IsDefault() && c.Attr&(term.AttrReverse|term.AttrUnderline|term.AttrStrike) == 0
}

func webColor(c term.Color) int {
	if i, ok := c.Index(); ok {
		return int(i)
	}
	if r, g, b, ok := c.RGB(); ok {
		return 1<<24 | int(r)<<16 | int(g)<<8 | int(b)
	}
	return -1
}

// webHistory is a page of t's history in the page's rows (no cursor).
func webHistory(t *term.Terminal, p webwire.HistoryParams) *webwire.HistoryResult {
	n := min(max(p.N, 1), webwire.MaxHistoryRows)
	rows, first, oldest, top := t.HistoryPage(p.Before, p.After, n)
	r := &webwire.HistoryResult{First: first, Oldest: oldest, Top: top, Lines: make([]json.RawMessage, len(rows))}
	for i, cells := range rows {
		r.Lines[i] = webRow(cells, -1)
	}
	return r
}

// webScreenOf is pane terminal t's screen for the page, with the place
// above its history's newest line.
func webScreenOf(t *term.Terminal) *webwire.ScreenResult {
	r := webScreen(t.Snapshot())
	r.Hist = t.HistoryTotal()
	return r
}
