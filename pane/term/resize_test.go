package term

import (
	"reflect"
	"strings"
	"testing"
)

// A shrink followed by a grow back gives the same screen, cell for cell
// (styles, wide characters, clusters included), the cursor and the pen as
// they were: the rows the shrink pushed to history come back.
func TestGrowPullsHistoryBack(t *testing.T) {
	var b strings.Builder
	for i := range 12 {
		b.WriteString("\x1b[1;31mred\x1b[m \x1b[38;2;10;200;30m中文\x1b[m e\u0301 👨\u200d👩\u200d👧 \x1b[7;44mrev\x1b[m ")
		b.WriteString(strings.Repeat("x", i))
		b.WriteString("\r\n")
	}
	b.WriteString("\x1b[4;33mpen")
	tm, _ := newTerm(40, 8, b.String())
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
