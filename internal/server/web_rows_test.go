package server

import (
	"testing"

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
