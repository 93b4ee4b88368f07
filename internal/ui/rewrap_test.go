package ui

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/melmux/melmux/pane/term"
)

// viewRows is the text of the rows a view shows once sc is decorated.
func viewRows(t *testing.T, in *Input, sc *Scene) []string {
	t.Helper()
	in.Decorate(sc)
	v := sc.Panes[0].Copy
	if v == nil {
		t.Fatal("the view is not shown")
	}
	var rows []string
	for _, r := range v.Rows {
		text, _ := rowText(r, 0, len(r))
		rows = append(rows, strings.TrimRight(text, " "))
	}
	return rows
}

// withWidth is sc with its one pane's content w cells wide.
func withWidth(sc *Scene, w int) *Scene {
	sc.Panes[0].Content.W = w
	return sc
}

// An output view is laid out again at the pane's new width when it changes
// (a client's resize, a split), its top staying on the same line of the
// text, at the same place in it when the top was partway through.
func TestOutputViewRewrapsOnResize(t *testing.T) {
	sc := oneScene(term.Modes{}) // pane 7: 40x10 content
	in := newIn(t, "", nil)
	var lines []string
	for i := range 20 {
		// 50 cells: two rows at 40, three at 20.
		lines = append(lines, fmt.Sprintf("%02d:", i)+strings.Repeat(string(rune('a'+i)), 47))
	}
	in.ShowOutput(strings.Join(lines, "\n")+"\n", sc)
	for range 10 {
		press(t, in, sc, "Down")
	}
	line := func(i int) string { return lines[i] }
	want40 := []string{line(5)[:40], line(5)[40:], line(6)[:40], line(6)[40:], line(7)[:40], line(7)[40:],
		line(8)[:40], line(8)[40:], line(9)[:40], line(9)[40:]}
	if got := viewRows(t, in, sc); !reflect.DeepEqual(got, want40) {
		t.Fatalf("at 40 cells, scrolled to line 5:\n%q\nwant\n%q", got, want40)
	}

	narrow := withWidth(oneScene(term.Modes{}), 20)
	want20 := []string{line(5)[:20], line(5)[20:40], line(5)[40:], line(6)[:20], line(6)[20:40], line(6)[40:],
		line(7)[:20], line(7)[20:40], line(7)[40:], line(8)[:20]}
	if got := viewRows(t, in, narrow); !reflect.DeepEqual(got, want20) {
		t.Fatalf("narrowed to 20 cells:\n%q\nwant line 5 on top, wrapped at 20:\n%q", got, want20)
	}
	if c := in.copy.Cursor(); c != (Point{0, 15}) {
		t.Errorf("the cursor is at %v after the resize, want on its line, at (0, 15)", c)
	}

	// Partway through a line: the top stays on the same cells of it.
	press(t, in, narrow, "Down", "Down") // line 5's third row: cells 40 to 49
	if got := viewRows(t, in, sc); got[0] != line(5)[40:] {
		t.Errorf("widened back to 40, the top row is %q, want line 5's second row %q", got[0], line(5)[40:])
	}
	if got := viewRows(t, in, narrow); got[0] != line(5)[40:] {
		t.Errorf("narrowed again, the top row is %q, want line 5's third row %q", got[0], line(5)[40:])
	}

	// Only the height changing keeps the rows as they were.
	short := withWidth(oneScene(term.Modes{}), 20)
	short.Panes[0].Content.H = 4
	if got := viewRows(t, in, short); !reflect.DeepEqual(got, want20[2:6]) {
		t.Errorf("4 rows high:\n%q\nwant\n%q", got, want20[2:6])
	}
}

// A diff view laid out again at a new width finds its files and hunks at
// their new rows, and keeps its colours.
func TestDiffViewRewrapsOnResize(t *testing.T) {
	sc := scene(nil, pane(1, Rect{0, 0, W, H - 1}, true, "bash"))
	in := newIn(t, "", nil)
	in.ShowDiff(sampleDiff(), sc)
	in.Decorate(sc)
	narrow := scene(nil, pane(1, Rect{0, 0, 12, H - 1}, true, "bash"))
	got := viewRows(t, in, narrow)
	rows, _, nav := diffRows(sampleDiff(), 12)
	var want []string
	for _, r := range rows[:len(got)] {
		text, _ := rowText(r, 0, len(r))
		want = append(want, strings.TrimRight(text, " "))
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("the diff at 12 cells:\n%q\nwant\n%q", got, want)
	}
	press(t, in, narrow, "n")
	if y := in.copy.Cursor().Y; y != nav.files[0] {
		t.Errorf("n went to row %d, want the first file's row at 12 cells, %d", y, nav.files[0])
	}
	in.Decorate(narrow)
	if v := narrow.Panes[0].Copy; !reflect.DeepEqual(v.Rows[v.CursorY], rows[nav.files[0]]) || v.Rows[v.CursorY][0].Attr&term.AttrBold == 0 {
		t.Errorf("the first file's header at 12 cells is %+v, want %+v, bold", v.Rows[v.CursorY], rows[nav.files[0]])
	}
}
