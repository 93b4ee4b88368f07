package server

import (
	"fmt"
	"testing"

	"github.com/melmux/melmux/internal/webwire"
	"github.com/melmux/melmux/pane/term"
)

// The page's rows: runs of one style, default colours without their
// numbers, a wide character and the cursor's cell each alone, trailing
// blanks left out (but the cursor's).
func TestWebRow(t *testing.T) {
	cells := func(s string) []term.Cell {
		var cs []term.Cell
		for _, r := range s {
			cs = append(cs, term.Cell{Rune: r, Width: 1})
		}
		return cs
	}
	red := cells("ab")
	for i := range red {
		red[i].FG, red[i].Attr = term.Indexed(1), term.AttrBold
	}
	wide := append(cells("x"), term.Cell{Rune: '界', Width: 2}, term.Cell{Width: 0})
	rgb := cells("c")
	rgb[0].BG = term.RGB(1, 2, 3)
	for _, c := range []struct {
		cells []term.Cell
		cx    int
		want  string
	}{
		{cells("hi   "), -1, `[["hi"]]`},
		{cells("     "), -1, `[]`},
		{cells("hi   "), 3, `[["hi "],[" ",-1,-1,512]]`},
		{append(red, cells("cd")...), -1, `[["ab",1,-1,1],["cd"]]`},
		{wide, -1, `[["x"],["界",-1,-1,256]]`},
		{rgb, -1, `[["c",-1,16843267,0]]`},
		{cells(`"\`), -1, `[["\"\\"]]`},
	} {
		if got := string(webRow(c.cells, c.cx)); got != c.want {
			t.Errorf("webRow(%v, %d) = %s, want %s", c.cells, c.cx, got, c.want)
		}
	}
	scr := &term.Screen{Cols: 3, Rows: 2, Cells: [][]term.Cell{cells("ab "), cells("   ")}, Cursor: term.Cursor{X: 1, Y: 1, Visible: true}, Title: "t"}
	r := webScreen(scr)
	if r.Cursor != [3]int{1, 1, 1} || len(r.Lines) != 2 || string(r.Lines[1]) != `[[" "],[" ",-1,-1,512]]` || r.Title != "t" {
		t.Errorf("webScreen: %+v %s", r, r.Lines)
	}
}

// A page of history is rows as the screen's are, without a cursor, at
// most MaxHistoryRows of them whatever a page asks.
func TestWebHistory(t *testing.T) {
	tm := term.New(20, 3, term.Options{})
	for i := 1; i <= 700; i++ {
		fmt.Fprintf(tm, "\x1b[31mr\x1b[m%d\r\n", i)
	}
	h := webHistory(tm, webwire.HistoryParams{N: 1 << 30})
	if len(h.Lines) != webwire.MaxHistoryRows || h.Top != 698 || h.Oldest != 0 || h.First != 698-webwire.MaxHistoryRows {
		t.Fatalf("the newest page: %d rows, first %d oldest %d top %d", len(h.Lines), h.First, h.Oldest, h.Top)
	}
	if got := string(h.Lines[len(h.Lines)-1]); got != `[["r",1,-1,0],["698"]]` {
		t.Errorf("the newest row: %s", got)
	}
	h = webHistory(tm, webwire.HistoryParams{Before: 1, N: 5})
	if len(h.Lines) != 1 || string(h.Lines[0]) != `[["r",1,-1,0],["1"]]` {
		t.Errorf("the row above place 1: %s", h.Lines)
	}
	if scr := webScreenOf(tm); scr.Hist != 698 {
		t.Errorf("the screen's history place: %d, want 698", scr.Hist)
	}
}
