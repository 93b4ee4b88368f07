package ui

import (
	"fmt"
	"reflect"
	"testing"
)

func numbered(n, w int) CellRows {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %d", i)
	}
	return CellRows(screenOf(w, n, lines...).Cells)
}

func TestCopyModeMovement(t *testing.T) {
	src := numbered(100, 20) // 100 lines, a 10-line window
	type step struct {
		name string
		do   func(c *CopyMode)
		cur  Point
		top  int
	}
	c := NewCopyMode(src, 20, 10, 3, 9)
	for _, s := range []step{
		{"start at the pane cursor", func(*CopyMode) {}, Point{3, 99}, 90},
		{"l", func(c *CopyMode) { c.Move(1, 0) }, Point{4, 99}, 90},
		{"j at the bottom stays", func(c *CopyMode) { c.Move(0, 1) }, Point{4, 99}, 90},
		{"k", func(c *CopyMode) { c.Move(0, -1) }, Point{4, 98}, 90},
		{"h past the left edge stops", func(c *CopyMode) { c.Move(-10, 0) }, Point{0, 98}, 90},
		{"l past the right edge stops", func(c *CopyMode) { c.Move(50, 0) }, Point{19, 98}, 90},
		{"$", func(c *CopyMode) { c.LineEnd() }, Point{6, 98}, 90},
		{"0", func(c *CopyMode) { c.LineStart() }, Point{0, 98}, 90},
		{"k out of view scrolls", func(c *CopyMode) { c.Move(0, -9) }, Point{0, 89}, 89},
		{"page up", func(c *CopyMode) { c.Page(-1) }, Point{0, 79}, 79},
		{"half page up", func(c *CopyMode) { c.HalfPage(-1) }, Point{0, 74}, 74},
		{"half page down", func(c *CopyMode) { c.HalfPage(1) }, Point{0, 79}, 79},
		{"g", func(c *CopyMode) { c.GoTop() }, Point{0, 0}, 0},
		{"page up at the top", func(c *CopyMode) { c.Page(-1) }, Point{0, 0}, 0},
		{"wheel down keeps the screen row", func(c *CopyMode) { c.Move(0, 2); c.Scroll(3) }, Point{0, 5}, 3},
		{"wheel up past the top clamps", func(c *CopyMode) { c.Scroll(-10) }, Point{0, 2}, 0},
		{"G", func(c *CopyMode) { c.GoBottom() }, Point{0, 99}, 90},
		{"page down at the bottom", func(c *CopyMode) { c.Page(1) }, Point{0, 99}, 90},
	} {
		s.do(c)
		if c.Cursor() != s.cur || c.Top() != s.top {
			t.Errorf("%s: cursor %v top %d, want %v top %d", s.name, c.Cursor(), c.Top(), s.cur, s.top)
		}
	}
	if !c.AtBottom() {
		t.Error("AtBottom false at the bottom")
	}
	v := c.View()
	if len(v.Rows) != 10 || v.CursorY != 9 || v.Position != "[0/90]" {
		t.Errorf("view: %d rows, cursor y %d, position %q", len(v.Rows), v.CursorY, v.Position)
	}
}

func TestCopyModeWords(t *testing.T) {
	src := CellRows(screenOf(30, 4, "foo.bar  baz_1 (x)", "  next line", "", "last").Cells)
	c := NewCopyMode(src, 30, 4, 0, 0)
	c.GoTop()
	var got []Point
	for range 8 {
		c.WordForward()
		got = append(got, c.Cursor())
	}
	want := []Point{{3, 0}, {4, 0}, {9, 0}, {15, 0}, {16, 0}, {17, 0}, {2, 1}, {7, 1}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("w: %v\nwant %v", got, want)
	}
	c.WordForward()
	if c.Cursor() != (Point{0, 3}) {
		t.Errorf("w over an empty line: %v", c.Cursor())
	}
	c.WordForward() // at the last word: stays
	if c.Cursor() != (Point{0, 3}) {
		t.Errorf("w at the end: %v", c.Cursor())
	}
	got = nil
	for range 4 {
		c.WordBack()
		got = append(got, c.Cursor())
	}
	want = []Point{{7, 1}, {2, 1}, {17, 0}, {16, 0}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("b: %v\nwant %v", got, want)
	}
	c.GoTop()
	c.WordBack()
	if c.Cursor() != (Point{0, 0}) {
		t.Errorf("b at the start: %v", c.Cursor())
	}
}

func TestCopyModeWideAndSelection(t *testing.T) {
	src := CellRows(screenOf(10, 3, "a日本b", "x", "e\u0301te").Cells)
	c := NewCopyMode(src, 10, 3, 0, 0)
	var xs []int
	for range 5 {
		c.Move(1, 0)
		xs = append(xs, c.Cursor().X)
	}
	if fmt.Sprint(xs) != "[1 3 5 6 7]" { // the continuation columns 2 and 4 are skipped
		t.Errorf("l over wide runes: %v", xs)
	}
	c.cur = Point{3, 0}
	c.StartSelection()
	if got := c.Selection(); got != "本" {
		t.Errorf("selection of one wide rune: %q", got)
	}
	// A selection made backwards is the same text.
	c.cur = Point{2, 2}
	c.StartSelection()
	c.StartSelection()
	c.cur = Point{0, 0}
	if got := c.Selection(); got != "a日本b\nx\ne\u0301te" {
		t.Errorf("backward selection: %q", got)
	}
	v := c.View()
	if !v.Selecting || v.SelFrom != (Point{0, 0}) || v.SelTo != (Point{2, 2}) {
		t.Errorf("view selection %+v", v)
	}
	if from, to := v.selection(1, 10); from != 0 || to != 10 {
		t.Errorf("middle row selection %d..%d", from, to)
	}
	c.StartSelection()
	if c.Selection() != "" {
		t.Error("cleared selection still has text")
	}
}

func TestCopyModeSearch(t *testing.T) {
	src := CellRows(screenOf(20, 4, "Error: one", "ok", "error two", "日本 error").Cells)
	c := NewCopyMode(src, 20, 4, 0, 0)
	c.GoTop()
	if !c.Search("error", false) || c.Cursor() != (Point{0, 2}) {
		t.Errorf("lower-case query matches case-sensitively past the cursor? cursor %v", c.Cursor())
	}
	if !c.SearchNext(false) || c.Cursor() != (Point{5, 3}) { // column counts cells: 日本 is four
		t.Errorf("next: %v", c.Cursor())
	}
	if !c.SearchNext(false) || c.Cursor() != (Point{0, 0}) { // wraps, and "Error" matches "error"
		t.Errorf("wrap: %v", c.Cursor())
	}
	if !c.Search("Error", false) || c.Cursor() != (Point{0, 0}) { // upper case: exact, only itself
		t.Errorf("exact case: %v", c.Cursor())
	}
	if c.Search("missing", true) {
		t.Error("found what is not there")
	}
	empty := NewCopyMode(CellRows{}, 10, 3, 0, 0)
	if empty.Search("x", false) || empty.Selection() != "" {
		t.Error("empty source")
	}
	empty.Move(1, 1)
	empty.WordForward()
	empty.WordBack()
	empty.LineEnd()
	_ = empty.View()
}

func TestCopyModeFollowsPaneResize(t *testing.T) {
	sc, src := copyScene()
	in := newIn(t, "", nil)
	EnterCopy{Pane: 3}.Start(in, src, 20, 4, 0, 3) // cursor on the last line
	sc.Panes[0].Content.H = 2
	in.Decorate(sc)
	v := sc.Panes[0].Copy
	if v == nil || len(v.Rows) != 2 || v.CursorY < 0 || v.CursorY > 1 {
		t.Fatalf("after shrinking to 2 rows: %+v", v)
	}
	if in.copy.Cursor() != (Point{0, 7}) || !in.copy.AtBottom() {
		t.Errorf("cursor %v, at bottom %v", in.copy.Cursor(), in.copy.AtBottom())
	}
	sc.Panes[0].Content.W, sc.Panes[0].Content.H = 3, 8
	in.copy.Move(10, 0)
	in.Decorate(sc)
	if in.copy.Cursor().X != 2 || len(sc.Panes[0].Copy.Rows) != 8 {
		t.Errorf("after narrowing: cursor %v, %d rows", in.copy.Cursor(), len(sc.Panes[0].Copy.Rows))
	}
}

func TestCopyModeViMotions(t *testing.T) {
	src := CellRows(screenOf(30, 5, "foo.bar  baz_1 (x)", "   indented text", "", "fourth", "fifth").Cells)
	c := NewCopyMode(src, 30, 5, 0, 0)
	c.GoTop()
	var got []Point
	for range 5 {
		c.WordEnd()
		got = append(got, c.Cursor())
	}
	// e: foo . bar baz_1 ( — each word's last cell.
	want := []Point{{2, 0}, {3, 0}, {6, 0}, {13, 0}, {15, 0}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("e: %v\nwant %v", got, want)
	}
	c.Move(0, 1)
	c.LineEnd()
	c.FirstNonBlank()
	if c.Cursor() != (Point{3, 1}) {
		t.Errorf("^ on an indented line: %v", c.Cursor())
	}
	c.Move(0, 1)
	c.FirstNonBlank()
	if c.Cursor() != (Point{0, 2}) {
		t.Errorf("^ on an empty line: %v", c.Cursor())
	}
	c.ViewLine(0)
	if c.Cursor().Y != 0 {
		t.Errorf("H: %v", c.Cursor())
	}
	c.ViewLine(1)
	if c.Cursor().Y != 2 {
		t.Errorf("M: %v", c.Cursor())
	}
	c.ViewLine(2)
	if c.Cursor() != (Point{0, 4}) {
		t.Errorf("L: %v", c.Cursor())
	}
	// o swaps the selection's ends; the selected text is the same.
	c.GoTop()
	c.StartSelection()
	c.WordEnd()
	before := c.Selection()
	c.SwapEnds()
	if c.Cursor() != (Point{0, 0}) || c.Selection() != before || before != "foo" {
		t.Errorf("o: cursor %v, selection %q then %q", c.Cursor(), before, c.Selection())
	}
}

func TestCopyModeSearchMatchesInView(t *testing.T) {
	src := CellRows(screenOf(20, 5, "error: err", "fine", "日本 Error", "aaa", "error").Cells)
	c := NewCopyMode(src, 20, 4, 0, 0)
	if v := c.View(); v.Matches != nil {
		t.Errorf("matches before any search: %+v", v.Matches)
	}
	check := func(what string, want ...Match) {
		t.Helper()
		if got := c.View().Matches; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: matches %+v, want %+v", what, got, want)
		}
	}
	c.GoTop()
	if !c.Search("error", false) || c.Cursor() != (Point{5, 2}) {
		t.Fatalf("search: cursor %v", c.Cursor())
	}
	// Lines 0-3 shown: 日本 takes four cells, "Error" matches a lower-case
	// query, the match the cursor is on is the current one.
	check("from the top", Match{Y: 0, From: 0, To: 5}, Match{Y: 2, From: 5, To: 10, Current: true})
	c.GoBottom() // lines 1-4 shown, the cursor on line 4's match
	check("at the bottom", Match{Y: 1, From: 5, To: 10}, Match{Y: 3, From: 0, To: 5, Current: true})
	c.Move(0, -1) // on "aaa": no match is current
	check("cursor off the matches", Match{Y: 1, From: 5, To: 10}, Match{Y: 3, From: 0, To: 5})
	// Overlapping matches: the current one is the one starting at the cursor.
	if !c.Search("aa", false) || c.Cursor() != (Point{1, 3}) {
		t.Fatalf("aa: cursor %v", c.Cursor())
	}
	check("overlapping", Match{Y: 2, From: 0, To: 2}, Match{Y: 2, From: 1, To: 3, Current: true})
	// A wide rune ending a match is covered whole.
	c = NewCopyMode(CellRows(screenOf(10, 1, "x日y").Cells), 10, 1, 0, 0)
	c.Search("x日", false)
	check("wide", Match{Y: 0, From: 0, To: 3, Current: true})
}
