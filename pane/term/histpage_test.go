package term

import (
	"fmt"
	"strings"
	"testing"
)

func pageText(rows [][]Cell) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		var b strings.Builder
		for _, c := range r {
			if c.Rune != 0 {
				b.WriteRune(c.Rune)
			}
		}
		out[i] = strings.TrimRight(b.String(), " ")
	}
	return out
}

// A line keeps its place while newer lines are saved and the oldest
// dropped: a reader paging back through a history that grows meanwhile
// reads each line once.
func TestHistoryPageKeepsPlaces(t *testing.T) {
	tm := New(20, 5, Options{Scrollback: 50})
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(tm, "l%d\r\n", i)
	}
	// 40 lines and the empty one the cursor is on: 36 scrolled off.
	rows, first, oldest, top := tm.HistoryPage(0, 0, 10)
	if got := pageText(rows); oldest != 0 || top != 36 || first != 26 || got[0] != "l27" || got[9] != "l36" {
		t.Fatalf("the newest 10: first %d oldest %d top %d %q", first, oldest, top, got)
	}
	for i := 41; i <= 70; i++ {
		fmt.Fprintf(tm, "l%d\r\n", i)
	}
	// 66 saved, 50 kept: the oldest 16 dropped.
	rows, first2, oldest, top := tm.HistoryPage(first, 0, 10)
	if got := pageText(rows); oldest != 16 || top != 66 || first2 != 16 || got[0] != "l17" || got[9] != "l26" {
		t.Fatalf("the 10 above place %d after more output: first %d oldest %d top %d %q", first, first2, oldest, top, got)
	}
	rows, first, _, _ = tm.HistoryPage(first2, 0, 10)
	if len(rows) != 0 || first != 16 {
		t.Errorf("above the oldest: %q at %d, want nothing", pageText(rows), first)
	}
	rows, first, _, _ = tm.HistoryPage(0, 60, 10)
	if got := pageText(rows); first != 60 || len(got) != 6 || got[0] != "l61" || got[5] != "l66" {
		t.Errorf("from place 60 on: %d %q", first, got)
	}
	rows, first, _, _ = tm.HistoryPage(0, 3, 2)
	if got := pageText(rows); first != 16 || len(got) != 2 || got[0] != "l17" {
		t.Errorf("from a place dropped: %d %q, want the oldest held", first, got)
	}
}
