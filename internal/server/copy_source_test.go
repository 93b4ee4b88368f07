package server

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/melmux/melmux/pane/term"
)

// fullHistory is an 80x24 terminal with 10,000 lines of history, of 70
// characters each.
func fullHistory(tb testing.TB) *term.Terminal {
	tb.Helper()
	t := term.New(80, 24, term.Options{Scrollback: 10000})
	var b strings.Builder
	for i := range 10000 + 24 {
		fmt.Fprintf(&b, "line %05d %s\r\n", i, strings.Repeat("x", 59))
	}
	if _, err := t.Write([]byte(b.String())); err != nil {
		tb.Fatal(err)
	}
	if n := t.HistoryLen(); n != 10000 {
		tb.Fatalf("%d lines of history, want 10000", n)
	}
	return t
}

// BenchmarkEnterCopy10000Lines is what entering copy mode takes (per client,
// each time) on a pane with 10,000 lines of history.
func BenchmarkEnterCopy10000Lines(b *testing.B) {
	t := fullHistory(b)
	b.ReportAllocs()
	for b.Loop() {
		src, _ := copySource(t)
		_ = src.Line(src.Len() - 1)
	}
}

// Entering copy mode on a pane with 10,000 lines of history does not copy
// them all out of their packed form (which took 30 MB a client each time):
// the lines are read as copy mode shows them.
func TestEnterCopyDoesNotCopyTheHistory(t *testing.T) {
	tm := fullHistory(t)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	src, snap := copySource(tm)
	runtime.ReadMemStats(&after)
	bytes := after.TotalAlloc - before.TotalAlloc
	t.Logf("entering copy mode over 10,000 lines of history: %d bytes", bytes)
	// 0.6 MB now; the bound leaves room for what the package's other
	// goroutines allocate meanwhile, far below the 38 MB of a full copy.
	if bytes > 8<<20 {
		t.Errorf("entering copy mode allocated %d bytes, want under 8 MB", bytes)
	}
	if n := src.Len(); n != 10000+snap.Rows {
		t.Fatalf("the copy source has %d lines, want 10000 of history and %d of screen", n, snap.Rows)
	}
	// What the pane does next does not reach the copy: more lines (the
	// ring's slots taken again), and its history cleared.
	var more strings.Builder
	for i := range 12000 {
		fmt.Fprintf(&more, "later %05d\r\n", i)
	}
	more.WriteString("\x1b[3J")
	if _, err := tm.Write([]byte(more.String())); err != nil {
		t.Fatal(err)
	}
	if n := tm.HistoryLen(); n != 0 {
		t.Fatalf("the pane's history has %d lines after ESC[3J, want none", n)
	}
	for _, i := range []int{0, 9999, 10000 + 22} {
		cells := src.Line(i)
		var text strings.Builder
		for _, c := range cells {
			text.WriteRune(c.Rune)
		}
		if want := fmt.Sprintf("line %05d ", i+1); !strings.HasPrefix(text.String(), want) {
			t.Errorf("line %d of the copy source is %q, want it to start %q", i, text.String(), want)
		}
	}
}
