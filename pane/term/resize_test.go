package term

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
)

// styledLines is 12 lines of styles, wide characters and clusters, then a
// pen (underlined, colour 3).
func styledLines() string {
	var b strings.Builder
	for i := range 12 {
		b.WriteString("\x1b[1;31mred\x1b[m \x1b[38;2;10;200;30m中文\x1b[m e\u0301 👨\u200d👩\u200d👧 \x1b[7;44mrev\x1b[m ")
		b.WriteString(strings.Repeat("x", i))
		b.WriteString("\r\n")
	}
	return b.String() + "\x1b[4;33mpen"
}

// A shrink followed by a grow back gives the same screen, cell for cell
// (styles, wide characters, clusters included), the cursor and the pen as
// they were: the rows the shrink pushed to history come back.
func TestGrowPullsHistoryBack(t *testing.T) {
	tm, _ := newTerm(40, 8, styledLines())
	before := tm.Snapshot()
	hist := tm.HistoryLen()
	tm.Resize(40, 3)
	if tm.HistoryLen() != hist+5 {
		t.Fatalf("the shrink saved %d lines, want 5", tm.HistoryLen()-hist)
	}
	tm.Resize(40, 8)
	after := tm.Snapshot()
	if !reflect.DeepEqual(after.Cells, before.Cells) {
		for y := range before.Cells {
			if !reflect.DeepEqual(after.Cells[y], before.Cells[y]) {
				t.Errorf("row %d differs after shrink and grow:\n got %+v\nwant %+v", y, after.Cells[y], before.Cells[y])
			}
		}
	}
	if after.Cursor != before.Cursor {
		t.Errorf("cursor %+v, was %+v", after.Cursor, before.Cursor)
	}
	if tm.HistoryLen() != hist {
		t.Errorf("history has %d lines, had %d", tm.HistoryLen(), hist)
	}
	// The pen is the program's: what it prints next has its style.
	tm.Write([]byte("!"))
	c := tm.Snapshot().Cells[after.Cursor.Y][after.Cursor.X]
	if c.Rune != '!' || c.Attr != AttrUnderline || c.FG != Indexed(3) {
		t.Errorf("printed after the grow: %+v, want '!' underlined in colour 3", c)
	}
}

// Pulled-back lines are drawn in the ordinary character set, and the
// program's line-drawing set is back afterwards; wrapped lines stay wrapped.
func TestGrowKeepsCharsetAndWraps(t *testing.T) {
	long := strings.Repeat("q", 15) // wraps at 10 columns
	tm, _ := newTerm(10, 6, long+"\r\n"+long+"\r\n1\r\n2\r\n3\r\n\x1b(0")
	before := tm.Lines()
	tm.Resize(10, 2)
	tm.Resize(10, 6)
	if got := tm.Lines(); !reflect.DeepEqual(got, before) {
		t.Fatalf("after shrink and grow:\n got %q\nwant %q", got, before)
	}
	tm.Write([]byte("q"))
	if got := tm.Lines()[5]; got != "─" {
		t.Errorf("the line-drawing set is lost: %q", got)
	}
	// Scroll everything off again: the wraps are still known.
	tm.Write([]byte("\x1b(B\r\n\n\n\n\n\n"))
	tm.mu.Lock()
	var wrapped []bool
	for i := 0; i < tm.h.n; i++ {
		wrapped = append(wrapped, tm.h.at(i).wrapped)
	}
	tm.mu.Unlock()
	if want := []bool{true, false, true, false}; !reflect.DeepEqual(wrapped[:4], want) {
		t.Errorf("wrapped flags after the lines came back and left again: %v, want %v first", wrapped, want)
	}
}

// A shrink while the alternate screen is shown keeps the primary screen's
// rows: when the program leaves the alternate screen, the rows that no longer
// fit are in history, in order and once, as tmux has them, whatever row the
// program left its cursor on in the alternate screen.
func TestAltScreenShrinkKeepsPrimaryRows(t *testing.T) {
	var b strings.Builder
	var want []string
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&b, "line %d\r\n", i)
		want = append(want, fmt.Sprintf("line %d", i))
	}
	want = append(want, "$ END")
	for _, alt := range []string{"\x1b[H\x1b[2Jvim", "\x1b[H\x1b[2J\x1b[9;1Hvim", "a\r\nb\r\nc"} {
		tm, _ := newTerm(40, 10, b.String()+"$ \x1b[?1049h"+alt)
		total := tm.TextSince(math.MaxUint64).Total
		var tapped []string
		_, stop := tm.TapScrolled(func(line string, saved bool) { tapped = append(tapped, line) })
		tm.Resize(40, 7)
		tm.Resize(40, 4)
		tm.Write([]byte("\x1b[?1049lEND"))
		stop()
		got := append(tm.History(-1), tm.Lines()...)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("alternate screen %q: history and screen after leaving it:\n got %q\nwant %q", alt, got, want)
		}
		if c := tm.Cursor(); c.X != 5 || c.Y != 3 {
			t.Errorf("alternate screen %q: cursor %d,%d, want 5,3", alt, c.X, c.Y)
		}
		if since := tm.TextSince(total); !reflect.DeepEqual(since.History, want[11:17]) || !reflect.DeepEqual(tapped, want[11:17]) {
			t.Errorf("alternate screen %q: lines saved since entering: %q, tapped %q, want %q", alt, since.History, tapped, want[11:17])
		}
	}
}

// Leaving the alternate screen by ?47l, ?1047l or RIS after a shrink keeps
// every row of the primary screen too (tmux drops the rows below the cursor
// the program left for ?1047l; see savedPrimary).
func TestAltScreenShrinkKeepsPrimaryRowsOtherModes(t *testing.T) {
	var want []string
	for i := 1; i <= 20; i++ {
		want = append(want, fmt.Sprintf("line %d", i))
	}
	want = append(want, "$")
	for _, c := range []struct{ enter, leave string }{
		{"\x1b[?47h", "\x1b[?47l"}, {"\x1b[?1047h", "\x1b[?1047l"}, {"\x1b[?1049h", "\x1bc"}, {"\x1b[?1047h", "\x1bc"},
	} {
		tm, _ := newTerm(40, 10, strings.Join(want, "\r\n")+" "+c.enter+"\x1b[Halt\x1b[3;1H")
		tm.Resize(40, 4)
		tm.Write([]byte(c.leave))
		if got := append(tm.History(-1), tm.Lines()...); !reflect.DeepEqual(got[:len(want)], want) || strings.Join(got[len(want):], "") != "" {
			t.Errorf("%q then %q: history and screen %q, want %q", c.enter, c.leave, got, want)
		}
	}
}

// A shrink and a grow back while the alternate screen is shown leave the
// primary screen as it was, cell for cell, with its cursor and pen, and
// history as it was.
func TestAltScreenShrinkAndGrowRestores(t *testing.T) {
	tm, _ := newTerm(40, 8, styledLines())
	before := tm.Snapshot()
	hist := tm.History(-1)
	tm.Write([]byte("\x1b[?1049h\x1b[m\x1b[H\x1b[2J\x1b[3;1Hvim"))
	tm.Resize(40, 3)
	tm.Resize(40, 8)
	tm.Write([]byte("\x1b[?1049l"))
	after := tm.Snapshot()
	for y := range before.Cells {
		if !reflect.DeepEqual(after.Cells[y], before.Cells[y]) {
			t.Errorf("row %d differs after leaving:\n got %+v\nwant %+v", y, after.Cells[y], before.Cells[y])
		}
	}
	if after.Cursor != before.Cursor {
		t.Errorf("cursor %+v, was %+v", after.Cursor, before.Cursor)
	}
	if got := tm.History(-1); !reflect.DeepEqual(got, hist) {
		t.Errorf("history %q, was %q", got, hist)
	}
	tm.Write([]byte("!"))
	if c := tm.Snapshot().Cells[after.Cursor.Y][after.Cursor.X]; c.Rune != '!' || c.Attr != AttrUnderline || c.FG != Indexed(3) {
		t.Errorf("printed after leaving: %+v, want '!' underlined in colour 3", c)
	}
}

// A pending wrap (a line filled to the last column, the cursor waiting past
// it) survives a change of height, and after a widening the next character
// goes to the column after the old last one, as in tmux 3.3a; the last
// cell keeps its character and style, and the program keeps its pen and
// character set.
func TestResizeKeepsPendingWrap(t *testing.T) {
	full := "a\r\nb\r\n" + strings.Repeat("x", 39) + "\x1b[1;31mz\x1b[0;4;32m\x1b(0"
	for _, c := range []struct {
		cols, rows int
		want       []string
		x, y       int
	}{
		{40, 5, []string{"a", "b", strings.Repeat("x", 39) + "z", "─", ""}, 1, 3},
		{40, 2, []string{strings.Repeat("x", 39) + "z", "─"}, 1, 1},
		{40, 12, []string{"a", "b", strings.Repeat("x", 39) + "z", "─"}, 1, 3},
		{50, 10, []string{"a", "b", strings.Repeat("x", 39) + "z─"}, 41, 2},
	} {
		tm, _ := newTerm(40, 10, full)
		tm.Resize(c.cols, c.rows)
		tm.Write([]byte("q"))
		got := tm.Lines()
		if len(got) > len(c.want) {
			got = got[:len(c.want)]
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("at %dx%d: %q, want %q", c.cols, c.rows, got, c.want)
		}
		s := tm.Snapshot()
		if cur := s.Cursor; cur.X != c.x || cur.Y != c.y {
			t.Errorf("at %dx%d: cursor %d,%d, want %d,%d", c.cols, c.rows, cur.X, cur.Y, c.x, c.y)
		}
		if z := s.Cells[c.y-1+boolInt(c.cols > 40)][39]; z.Rune != 'z' || z.Attr != AttrBold || z.FG != Indexed(9) {
			t.Errorf("at %dx%d: the last cell is %+v, want a bold bright red z", c.cols, c.rows, z)
		}
		if q := s.Cells[c.y][c.x-1]; q.Attr != AttrUnderline || q.FG != Indexed(2) {
			t.Errorf("at %dx%d: printed after: %+v, want underlined in colour 2", c.cols, c.rows, q)
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
