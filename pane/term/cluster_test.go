package term

import (
	"reflect"
	"strings"
	"testing"
)

// A zero width joiner joins the next non-ASCII character to the cell before
// the cursor, whatever its width, and the cell keeps its width: cursor
// positions as tmux 3.3a reports them (the corpus file zwj_30x8 checks the
// screens against tmux itself).
func TestJoinedClustersKeepTheirWidth(t *testing.T) {
	for _, c := range []struct {
		in    string
		x     int
		line  string
		cells int // the column of the cell holding what joined
	}{
		{"C👨\u200d👩\u200d👧", 3, "C👨\u200d👩\u200d👧", 1},
		{"Ce\u200d👩", 2, "Ce\u200d👩", 1},
		{"C👨\u200dx👩X", 5, "C👨x\u200d👩X", 3},                          // ASCII between does not end the join
		{"C👨\u200d\u0301👩", 5, "C👨\u200d\u0301👩", 1},                  // a mark ends it
		{"C👨\u200d\u200d👩", 3, "C👨\u200d\u200d👩", 1},                  // a second joiner is held too
		{"\u200d👩X", 1, "X", -1},                                      // nothing to join: both dropped
		{"C👨\u200d", 3, "C👨", -1},                                     // a joiner nothing follows is not kept
		{"C👨\u200d👩\u200d👧\u200d👦X", 4, "C👨\u200d👩\u200d👧\u200dX", 1}, // 21 bytes a cell, as tmux
		{"A🇫🇷B", 4, "A🇫🇷B", -1},                                       // regional indicators: one column each, as tmux 3.3a
	} {
		tm, _ := newTerm(30, 3, c.in)
		if got := tm.Cursor().X; got != c.x {
			t.Errorf("%q: cursor at column %d, want %d (tmux)", c.in, got, c.x)
		}
		if got := tm.Lines()[0]; got != c.line {
			t.Errorf("%q: line %q, want %q", c.in, got, c.line)
		}
	}
}

// A line leaving the screen keeps its cells exactly in history, joined
// clusters included, whatever the widths of the characters they hold.
func TestHistoryKeepsJoinedCells(t *testing.T) {
	lines := []string{
		"A👨\u200d👩\u200d👧B e\u0301 中x",
		"C👨\u200dx👩X\x1b[1m😀\x1b[m\u4e2d\u200d\u4e2dZ",
		"plain ascii line",
		"C👨\u200d👩\u200d👧\u200d👦X🇫🇷",
	}
	for _, l := range lines {
		tm, _ := newTerm(30, 2, l)
		want := tm.Snapshot().Cells[0]
		tm.Write([]byte("\r\n\n"))
		if tm.HistoryLen() != 1 {
			t.Fatalf("%q: %d history lines", l, tm.HistoryLen())
		}
		got := tm.HistoryCells(0, 1)[0]
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q:\nhistory %+v\nscreen  %+v", l, got, want)
		}
	}
}

// A cursor position query after a ZWJ family answers as tmux does: the
// family takes the two columns of its first character.
func TestCursorReportAfterJoinedCluster(t *testing.T) {
	_, replies := newTerm(30, 3, "C👨\u200d👩\u200d👧\x1b[6n")
	if got := strings.Join(*replies, ""); got != "\x1b[1;4R" {
		t.Fatalf("CPR after C👨‍👩‍👧: %q, want %q (tmux)", got, "\x1b[1;4R")
	}
}

// distinctClusters returns n different clusters: a letter and two marks.
func distinctClusters(n int) []string {
	out := make([]string, 0, n)
	for i := 0; len(out) < n; i++ {
		out = append(out, string(rune('a'+i%26))+string(rune(0x300+i/26%112))+string(rune(0x300+i/26/112%112)))
	}
	return out
}

// Combining marks keep working however many distinct clusters a pane has
// shown: codes nothing holds any more are reclaimed, while the clusters on
// the screen, on the primary screen hidden behind the alternate one, and in
// history stay what they were.
func TestClusterCodesAreReclaimed(t *testing.T) {
	tm, _ := newTerm(80, 24, "")
	tm.Write([]byte("keep e\u0301 \u4e2d\u0301\r\n"))
	history := "hist o\u0308"
	tm.Write([]byte(history + "\r\n"))
	const n = 150000
	var b strings.Builder
	for i, c := range distinctClusters(n) {
		b.WriteString(c)
		if i%40 == 39 {
			b.WriteString("\r\n")
		}
		if i%20000 == 10000 {
			// An alternate screen of clusters comes and goes, the primary
			// screen hidden behind it meanwhile.
			b.WriteString("\x1b[?1049h\x1b[Hq\u0307 alt\r\n")
			for _, c := range distinctClusters(5000) {
				b.WriteString(c)
			}
			b.WriteString("\x1b[?1049l")
		}
	}
	tm.Write([]byte(b.String()))
	tm.Write([]byte("\r\nlast e\u0301"))
	lines := tm.Lines()
	if got := lines[len(lines)-1]; got != "last e\u0301" {
		t.Fatalf("after %d distinct clusters a combining mark is lost: %q", n, got)
	}
	hist := tm.History(-1)
	found := false
	for _, l := range hist {
		if l == history {
			found = true
		}
	}
	if !found {
		t.Errorf("the history line %q changed", history)
	}
	tm.mu.Lock()
	size, used := len(tm.clusters.texts), tm.clusters.inUse()
	tm.mu.Unlock()
	if size > 3*minReclaim {
		t.Errorf("the cluster table holds %d codes (%d in use) after %d distinct clusters", size, used, n)
	}
	t.Logf("%d distinct clusters: table of %d codes, %d in use", n, size, used)
}

// The primary screen's clusters survive clusters churning on the alternate
// screen in front of it.
func TestHiddenScreenKeepsItsClusters(t *testing.T) {
	tm, _ := newTerm(40, 5, "prim e\u0301 x\u0323\u0307")
	want := tm.Lines()
	var b strings.Builder
	b.WriteString("\x1b[?1049h")
	for i, c := range distinctClusters(30000) {
		b.WriteString(c)
		if i%30 == 29 {
			b.WriteString("\x1b[H")
		}
	}
	b.WriteString("\x1b[?1049l")
	tm.Write([]byte(b.String()))
	if got := tm.Lines(); !reflect.DeepEqual(got, want) {
		t.Fatalf("primary screen after the alternate one churned clusters:\n got %q\nwant %q", got, want)
	}
}
