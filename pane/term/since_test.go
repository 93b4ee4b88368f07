package term

import (
	"fmt"
	"math"
	"reflect"
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
