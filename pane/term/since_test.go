package term

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
)

// TextSince gives every line once: still on the screen, or in the history
// saved since the count the reader kept.
func TestTextSince(t *testing.T) {
	term := New(20, 3, Options{})
	fmt.Fprint(term, "one\r\ntwo\r\nthree")
	first := term.TextSince(math.MaxUint64)
	if first.History != nil || !reflect.DeepEqual(first.Lines, []string{"one", "two", "three"}) || first.CursorY != 2 {
		t.Fatalf("first look: %+v", first)
	}
	fmt.Fprint(term, "\r\nfour\r\nfive")
	next := term.TextSince(first.Total)
	if !reflect.DeepEqual(next.History, []string{"one", "two"}) || !reflect.DeepEqual(next.Lines, []string{"three", "four", "five"}) {
		t.Fatalf("after two lines scrolled off: %+v", next)
	}
	if again := term.TextSince(next.Total); again.History != nil || again.Total != next.Total {
		t.Fatalf("nothing scrolled since: %+v", again)
	}
	fmt.Fprint(term, "\033[?25l")
	if hidden := term.TextSince(math.MaxUint64); !hidden.CursorHidden {
		t.Fatal("the program hid the cursor: CursorHidden should say so")
	}
}

// lines is "1\r\n2\r\n...n" (no line feed after the last).
func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteString("\r\n")
		}
		fmt.Fprint(&b, i)
	}
	return b.String()
}

// A line a grow takes back from history and that scrolls off again keeps
// its place in the stream of saved lines: a reader keeping the count gets it
// once, whether it scrolls off by a shrink or a line feed, and a reader
// further behind gets the right lines after it.
func TestPulledLinesCountOnce(t *testing.T) {
	term := New(20, 5, Options{})
	fmt.Fprint(term, numbered(10)) // 1..5 in history, 6..10 shown
	first := term.TextSince(math.MaxUint64)
	if first.Total != 5 {
		t.Fatalf("total %d after 5 lines scrolled off", first.Total)
	}
	term.Resize(20, 8) // 3, 4 and 5 come back
	if got := term.TextSince(first.Total); got.History != nil || got.Total != 5 || got.Lines[0] != "3" {
		t.Fatalf("after the grow: %+v", got)
	}
	if got := term.TextSince(2).History; got != nil {
		t.Fatalf("lines at places 2.. are on the screen, not in history: %q", got)
	}
	term.Resize(20, 5) // and scroll off again
	if got := term.TextSince(first.Total); got.History != nil || got.Total != 5 {
		t.Fatalf("3, 4 and 5 scrolled off again: seen twice by a reader that had them: %+v", got)
	}
	term.Resize(20, 7)
	fmt.Fprint(term, "\r\n11\r\n12\r\n13") // 4, 5 and 6 scroll off by line feeds
	got := term.TextSince(first.Total)
	if !reflect.DeepEqual(got.History, []string{"6"}) || got.Total != 6 {
		t.Fatalf("after line feeds: %+v, want only 6 new", got)
	}
	if got := term.TextSince(2).History; !reflect.DeepEqual(got, []string{"3", "4", "5", "6"}) {
		t.Fatalf("a reader at place 2: %q", got)
	}
	if all := term.History(-1); !reflect.DeepEqual(all, []string{"1", "2", "3", "4", "5", "6"}) {
		t.Fatalf("history %q", all)
	}
}

// A line taken back that the program changes is new when it scrolls off;
// the unchanged lines after it that were taken back too are seen again (a
// reader may see a line twice then, never miss one), and places stay right.
func TestChangedPulledLineIsNew(t *testing.T) {
	term := New(20, 5, Options{})
	fmt.Fprint(term, numbered(10))
	term.Resize(20, 8)                      // 3, 4, 5 back on rows 0-2
	fmt.Fprint(term, "\x1b[1;1HX\x1b[8;3H") // 3 becomes X
	term.Resize(20, 5)
	got := term.TextSince(5)
	if !reflect.DeepEqual(got.History, []string{"X", "4", "5"}) || got.Total != 8 {
		t.Fatalf("after a changed line scrolled off: %+v", got)
	}
	if got := term.TextSince(2).History; !reflect.DeepEqual(got, []string{"X", "4", "5"}) {
		t.Fatalf("a reader at place 2 (places 2-4 are holes now): %q", got)
	}
	if got := term.TextSince(1).History; !reflect.DeepEqual(got, []string{"2", "X", "4", "5"}) {
		t.Fatalf("a reader at place 1: %q", got)
	}
	// Pull the new lines back over the holes and push them again.
	term.Resize(20, 10)
	if got := term.Lines()[:5]; !reflect.DeepEqual(got, []string{"1", "2", "X", "4", "5"}) {
		t.Fatalf("pulled back: %q", got)
	}
	term.Resize(20, 5)
	if got := term.TextSince(0); got.Total != 8 || !reflect.DeepEqual(got.History, []string{"1", "2", "X", "4", "5"}) {
		t.Fatalf("after a second round: %+v", got)
	}
	if got := term.TextSince(6).History; !reflect.DeepEqual(got, []string{"4", "5"}) {
		t.Fatalf("a reader at place 6: %q", got)
	}
}

// A tap sees a line taken back from history as such, and again when it
// scrolls off: lines saved minus lines taken back, plus the screen, is each
// line once.
func TestTapSeesLinesTakenBack(t *testing.T) {
	term := New(20, 5, Options{})
	fmt.Fprint(term, numbered(7))
	var events []string
	screen, stop := term.TapScrolled(func(line string, saved bool) {
		if saved {
			events = append(events, "+"+line)
		} else {
			events = append(events, "-"+line)
		}
	})
	defer stop()
	if !reflect.DeepEqual(screen, []string{"3", "4", "5", "6", "7"}) {
		t.Fatalf("screen %q", screen)
	}
	term.Resize(20, 3)
	term.Resize(20, 6)
	term.Resize(20, 5)
	want := []string{"+3", "+4", "-2", "-3", "-4", "+2"}
	if !reflect.DeepEqual(events, want) {
		t.Fatalf("tap saw %q, want %q", events, want)
	}
}
