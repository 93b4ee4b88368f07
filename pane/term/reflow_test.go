package term

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// A narrowing and a widening back give the same screen and history, cell
// for cell: styles crossing the wrap points, wide characters (some pushed
// to the next row, leaving its last column empty), clusters, the cursor and
// the pen. On the way, no row is wider than the screen.
func TestReflowRoundTrip(t *testing.T) {
	var b strings.Builder
	for i := range 14 {
		fmt.Fprintf(&b, "\x1b[1;31mred\x1b[m x中文 e\u0301 👨\u200d👩\u200d👧 \x1b[7;44mrev\x1b[m \x1b[38;5;%dm%s\x1b[m\r\n", 100+i, digits("L", 20+7*i))
	}
	b.WriteString("$ \x1b[4;33m" + digits("p", 50))
	tm, _ := newTerm(40, 8, b.String())
	before := tm.Snapshot()
	hist := historyCells(tm)
	for _, cols := range []int{29, 17, 33, 40} {
		tm.Resize(cols, 8)
		for i, row := range historyCells(tm) {
			if n := len(row); n > cols {
				t.Fatalf("at %d columns history row %d is %d columns wide", cols, i, n)
			}
		}
	}
	after := tm.Snapshot()
	for y := range before.Cells {
		if !reflect.DeepEqual(after.Cells[y], before.Cells[y]) {
			t.Errorf("row %d differs after the round trip:\n got %+v\nwant %+v", y, after.Cells[y], before.Cells[y])
		}
	}
	if after.Cursor != before.Cursor {
		t.Errorf("cursor %+v, was %+v", after.Cursor, before.Cursor)
	}
	if got := historyCells(tm); !reflect.DeepEqual(got, hist) {
		t.Errorf("history differs after the round trip: %d rows, had %d", len(got), len(hist))
	}
	tm.Write([]byte("!"))
	c := tm.Snapshot().Cells[after.Cursor.Y][after.Cursor.X]
	if c.Rune != '!' || c.Attr != AttrUnderline || c.FG != Indexed(3) {
		t.Errorf("printed after the round trip: %+v, want '!' underlined in colour 3", c)
	}
}

// historyCells is every history row, its trailing blanks left out.
func historyCells(tm *Terminal) [][]Cell {
	rows := tm.HistoryCells(0, -1)
	for i, r := range rows {
		for len(r) > 0 && r[len(r)-1] == (Cell{Rune: ' ', Width: 1}) {
			r = r[:len(r)-1]
		}
		rows[i] = r
	}
	return rows
}

// A line wrapped at 40 columns is one row at 80, in history too, and two
// rows again at 40; a line cut by a shrink is wrapped, not cut.
func TestReflowHistory(t *testing.T) {
	long := digits("x", 70)
	tm, _ := newTerm(40, 4, "a\r\n"+long+"\r\nb\r\nc\r\nd\r\ne\r\n$ ")
	if got, want := tm.History(-1), []string{"a", long[:40], long[40:], "b"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("history at 40 columns %q, want %q", got, want)
	}
	tm.Resize(80, 4)
	if got, want := append(tm.History(-1), tm.Lines()...), []string{"a", long, "b", "c", "d", "e", "$"}; !reflect.DeepEqual(got, want) {
		t.Errorf("at 80 columns %q, want %q", got, want)
	}
	tm.Resize(30, 4)
	if got, want := append(tm.History(-1), tm.Lines()...), []string{"a", long[:30], long[30:60], long[60:], "b", "c", "d", "e", "$"}; !reflect.DeepEqual(got, want) {
		t.Errorf("at 30 columns %q, want %q", got, want)
	}
	if c := tm.Cursor(); c.X != 2 || c.Y != 3 {
		t.Errorf("cursor %d,%d, want 2,3 (after the prompt)", c.X, c.Y)
	}
}

// Only the newest reflowRows rows of history are laid out again; older
// rows keep their layout, and the line the bound falls in is laid out
// whole.
func TestReflowBound(t *testing.T) {
	long := digits("y", 60) // two rows at 40 columns
	var b strings.Builder
	for range reflowRows + 100 {
		b.WriteString(long + "\r\n")
	}
	tm, _ := newTerm(40, 5, b.String()+"$ ")
	n := tm.HistoryLen()
	tm.Resize(60, 5)
	hist := tm.History(-1)
	kept := n - reflowRows
	if kept%2 == 1 {
		kept++ // the bound fell inside a line: it is laid out whole
	}
	for i := 0; i < kept; i += 2 {
		if hist[i] != long[:40] || hist[i+1] != long[40:] {
			t.Fatalf("history rows %d-%d are %q, %q; want them as they were", i, i+1, hist[i], hist[i+1])
		}
	}
	for i, l := range hist[kept:] {
		if l != long {
			t.Fatalf("history row %d is %q, want the whole line", kept+i, l)
		}
	}
	// The screen's two lines and the prompt take three rows of five: two
	// lines come back from history.
	if want := kept + (n-kept)/2 + 3 - 5; len(hist) != want {
		t.Errorf("history has %d rows, want %d", len(hist), want)
	}
}

// Rows a narrowing pushes into history are seen by a tap as saved, rows a
// widening brings back as taken back, and a reader of TextSince is given
// every line that left the screen.
func TestReflowTapsAndCounts(t *testing.T) {
	z := digits("z", 60)
	tm, _ := newTerm(40, 4, "one\r\n"+z+"\r\n$ ")
	total := tm.HistoryTotal()
	var events []string
	_, stop := tm.TapScrolled(func(line string, saved bool) { events = append(events, fmt.Sprint(saved, " ", line)) })
	defer stop()
	tm.Resize(15, 4) // the z line takes four rows: "one" and its first row go
	since := tm.TextSince(total)
	if want := []string{"one", z[:15]}; !reflect.DeepEqual(since.History, want) {
		t.Errorf("lines saved since: %q, want %q", since.History, want)
	}
	tm.Resize(40, 4) // two rows again: both come back
	want := []string{"true one", "true " + z[:15], "false " + z[:15], "false one"}
	if !reflect.DeepEqual(events, want) {
		t.Errorf("tapped %q, want %q", events, want)
	}
	if got, want := append(tm.History(-1), tm.Lines()...), []string{"one", z[:40], z[40:], "$"}; !reflect.DeepEqual(got, want) {
		t.Errorf("after widening back: %q, want %q", got, want)
	}
}

// The cursor's row counts as used up to the cursor, so that the cursor
// keeps its place after a prompt's trailing space. A cursor moved past the
// end of its line therefore stays that far into the line, where tmux 3.3a
// puts it at the end of the line's text (doc.go).
func TestReflowCursorPastText(t *testing.T) {
	tm, _ := newTerm(40, 4, "$ ab\x1b[10C")
	tm.Resize(10, 4)
	// "$ ab" and six blanks, then four blanks: two rows, the first of
	// which goes into history as the screen has four.
	if c := tm.Cursor(); c.X != 4 || c.Y != 0 || tm.History(-1)[0] != "$ ab" {
		t.Errorf("at 10 columns the cursor is at %d,%d, history %q; want 4,0 and \"$ ab\"", c.X, c.Y, tm.History(-1))
	}
	tm.Resize(40, 4)
	if c := tm.Cursor(); c.X != 14 || c.Y != 0 {
		t.Errorf("back at 40 columns the cursor is at %d,%d, want 14,0", c.X, c.Y)
	}
	tm.Write([]byte("!"))
	if got := tm.Lines()[0]; got != "$ ab          !" {
		t.Errorf("printed after: %q", got)
	}
}

// A pending wrap at the end of a line that fills the new width exactly
// stays pending: the next character starts the next row.
func TestReflowPendingWrap(t *testing.T) {
	tm, _ := newTerm(40, 4, digits("w", 40))
	tm.Resize(20, 4)
	tm.Write([]byte("!"))
	if got, want := append(tm.History(-1), tm.Lines()...), []string{digits("w", 40)[:20], digits("w", 40)[20:], "!", "", ""}; !reflect.DeepEqual(got, want) {
		t.Errorf("after printing: %q, want %q", got, want)
	}
}

// Copy mode's view of history taken before a reflow reads the lines as
// they were; one taken after reads them laid out at the new width.
func TestReflowHistoryView(t *testing.T) {
	long := digits("v", 70)
	tm, _ := newTerm(40, 3, long+"\r\na\r\nb\r\n$ ")
	before := tm.HistoryView()
	tm.Resize(25, 3)
	after := tm.HistoryView()
	if before.Len() != 2 || cellsText(before.Line(0), new([]byte)) != long[:40] || cellsText(before.Line(1), new([]byte)) != long[40:] {
		t.Errorf("the view taken before changed: %d lines", before.Len())
	}
	var got []string
	for i := range after.Len() {
		row := after.Line(i)
		if len(row) != 25 {
			t.Errorf("line %d has %d cells, want 25", i, len(row))
		}
		got = append(got, cellsText(row, new([]byte)))
	}
	if want := []string{long[:25], long[25:50], long[50:]}; !reflect.DeepEqual(got, want) {
		t.Errorf("the view after: %q, want %q", got, want)
	}
}
