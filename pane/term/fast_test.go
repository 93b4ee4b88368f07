package term

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hinshun/vt10x"
)

// twins is the same stream fed to a terminal that takes its fast paths and
// to one that never does (the plain path), in the same pieces. The tests
// that feed them whole streams run in parallel (t.Parallel): they are most
// of the package's CPU, and one after another they kept one of CI's two
// cores idle once the other packages were done. Each has its own
// terminals; the one test that changes a package variable (freezeMin in
// TestFrozenHistory) is not parallel, so it is over before they start.
type twins struct {
	fast, plain *Terminal
	replies     [2][]string
}

func newTwins(cols, rows int) *twins {
	tw := &twins{}
	tw.fast = New(cols, rows, Options{Reply: func(b []byte) { tw.replies[0] = append(tw.replies[0], string(b)) }})
	tw.plain = New(cols, rows, Options{Reply: func(b []byte) { tw.replies[1] = append(tw.replies[1], string(b)) }})
	tw.plain.fastOff = true
	tw.fast.importMin = 32 // models of the screen start often
	return tw
}

func (tw *twins) write(p []byte) {
	tw.fast.Write(p)
	tw.plain.Write(p)
}

// writeCut writes p in pieces whose sizes come from rng (1 byte to max).
func (tw *twins) writeCut(p []byte, rng *rand.Rand, max int) {
	for len(p) > 0 {
		n := min(1+rng.Intn(max), len(p))
		tw.write(p[:n])
		p = p[n:]
	}
}

// vtState is everything of a Terminal that a reader can see or that decides
// what later input does, with cluster codes replaced by their text (the two
// paths may number clusters differently).
type vtState struct {
	Screen      *Screen
	Glyphs      [][]vt10x.Glyph // as read (from the model of the screen while there is one)
	Raw         [][]vt10x.Glyph // in vt10x, the model written into it
	Texts       []string        // text of each cell holding a cluster code, in order
	Cursor      vt10x.Cursor
	Mode        vt10x.ModeFlag
	History     []histLine
	Total       uint64
	Scrolled    int
	LastPrint   string
	LastWidth   int
	Bells       uint64
	ScreenBlank bool
	TabsDefault bool
	Top, Bottom int
	Title       string
	Signals     [3]Signal // At cleared: the two paths run at different times
}

// glyphsOf reads the screen's glyphs, cluster codes replaced by
// clusterBase and their texts appended to texts.
func glyphsOf(tm *Terminal, texts *[]string) [][]vt10x.Glyph {
	var out [][]vt10x.Glyph
	for y := 0; y < tm.rows; y++ {
		g, _ := tm.readGlyphsLocked(y)
		row := append([]vt10x.Glyph(nil), g...)
		for x := range row {
			if c := row[x].Char; c >= clusterBase && c < clusterEnd {
				*texts = append(*texts, tm.clusters.text(c))
				row[x].Char = clusterBase
			}
		}
		out = append(out, row)
	}
	return out
}

func stateOf(tm *Terminal) vtState {
	s := vtState{Screen: tm.Snapshot()}
	tm.mu.Lock()
	defer tm.mu.Unlock()
	tm.flushLocked()
	s.Glyphs = glyphsOf(tm, &s.Texts)
	if tm.model != nil {
		tm.materializeLocked()
	}
	s.Raw = glyphsOf(tm, &s.Texts)
	s.Cursor = tm.vt.Cursor()
	if c := s.Cursor.Attr.Char; c >= clusterBase && c < clusterEnd {
		s.Cursor.Attr.Char = clusterBase
	}
	s.Mode = tm.vt.Mode()
	for i := 0; i < tm.h.n; i++ {
		s.History = append(s.History, *tm.h.at(i))
	}
	s.Total, s.Scrolled = tm.h.total, tm.h.scrolled
	if tm.lastPrint != 0 {
		s.LastPrint = tm.clusters.text(tm.lastPrint)
	}
	s.LastWidth, s.Bells, s.ScreenBlank, s.TabsDefault = tm.lastWidth, tm.bells, tm.screenBlank, tm.tabsDefault
	s.Top, s.Bottom = tm.top, tm.bottom
	s.Title = tm.title
	s.Signals = [3]Signal{tm.signals.Notify, tm.signals.Prompt, tm.signals.Status}
	for i := range s.Signals {
		s.Signals[i].At = time.Time{}
	}
	return s
}

// same fails unless both terminals are in the same state, then feeds both a
// probe that depends on what is left implicit (REP's character, the cell a
// mark joins, the pen, a pending wrap, the cursor) and compares again.
func (tw *twins) same(t testing.TB, what string) {
	t.Helper()
	for round := 0; round < 2; round++ {
		a, b := stateOf(tw.fast), stateOf(tw.plain)
		if !equalStates(a, b) {
			t.Fatalf("%s (round %d): the fast path differs from the plain one:\n%s", what, round, stateDiff(a, b))
		}
		// Replies go to the PTY as one stream: how they were batched is not seen.
		if a, b := strings.Join(tw.replies[0], ""), strings.Join(tw.replies[1], ""); a != b {
			t.Fatalf("%s: replies differ: %q vs %q", what, a, b)
		}
		// The saved cursor (DECRC) too, which no reader sees directly.
		tw.write([]byte("\x1b[2bq\u0301\x1b[6nx\n\ty\r\n\x1b8z"))
	}
}

// equalStates is reflect.DeepEqual(a, b), the large parts (the screen's
// cells, the glyphs, history) compared as typed slices: reflect's walk over
// them, under the race detector and its pointer checks, cost more CPU than
// the writes the twins are compared after.
func equalStates(a, b vtState) bool {
	if !equalRows(a.Glyphs, b.Glyphs) || !equalRows(a.Raw, b.Raw) || !equalSlice(a.History, b.History) ||
		(a.Screen == nil) != (b.Screen == nil) {
		return false
	}
	if a.Screen != nil {
		if !equalRows(a.Screen.Cells, b.Screen.Cells) {
			return false
		}
		sa, sb := *a.Screen, *b.Screen
		sa.Cells, sb.Cells = nil, nil
		a.Screen, b.Screen = &sa, &sb
	}
	a.Glyphs, b.Glyphs, a.Raw, b.Raw, a.History, b.History = nil, nil, nil, nil, nil, nil
	return reflect.DeepEqual(a, b)
}

// equalRows and equalSlice tell nil from empty, as reflect.DeepEqual does.
func equalRows[T comparable](a, b [][]T) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for i := range a {
		if !equalSlice(a[i], b[i]) {
			return false
		}
	}
	return true
}

func equalSlice[T comparable](a, b []T) bool {
	return (a == nil) == (b == nil) && slices.Equal(a, b)
}

func stateDiff(a, b vtState) string {
	var out []string
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	for i := 0; i < va.NumField(); i++ {
		fa, fb := va.Field(i).Interface(), vb.Field(i).Interface()
		if reflect.DeepEqual(fa, fb) {
			continue
		}
		name := va.Type().Field(i).Name
		switch name {
		case "Screen":
			out = append(out, fmt.Sprintf("screen:\n fast %q\nplain %q\n fast cursor %+v, plain %+v", screenRows(a.Screen), screenRows(b.Screen), a.Screen.Cursor, b.Screen.Cursor))
		case "History":
			ha, hb := a.History, b.History
			for k := 0; k < max(len(ha), len(hb)); k++ {
				if k >= len(ha) || k >= len(hb) || !reflect.DeepEqual(ha[k], hb[k]) {
					var la, lb any = "none", "none"
					if k < len(ha) {
						la = ha[k]
					}
					if k < len(hb) {
						lb = hb[k]
					}
					out = append(out, fmt.Sprintf("history line %d of %d/%d:\n fast %+v\nplain %+v", k, len(ha), len(hb), la, lb))
					break
				}
			}
		case "Glyphs", "Raw":
			ga, gb := fa.([][]vt10x.Glyph), fb.([][]vt10x.Glyph)
		rows:
			for y := range ga {
				for x := range ga[y] {
					if y < len(gb) && x < len(gb[y]) && ga[y][x] != gb[y][x] {
						out = append(out, fmt.Sprintf("%s glyph %d,%d: fast %+v, plain %+v", name, x, y, ga[y][x], gb[y][x]))
						break rows
					}
				}
			}
		default:
			out = append(out, fmt.Sprintf("%s: fast %+v, plain %+v", name, fa, fb))
		}
	}
	return strings.Join(out, "\n")
}

func screenRows(s *Screen) []string {
	var rows []string
	for _, r := range s.Cells {
		var b []byte
		rows = append(rows, cellsText(r, &b))
	}
	return rows
}

// fastStreams are streams made to take the fast path in many states: long
// and wrapping lines, wide characters at the line end, marks, tabs,
// backspaces, SGR of every kind, bells, invalid and C1 bytes, LNM.
func fastStreams() map[string]string {
	rng := rand.New(rand.NewSource(7))
	pieces := []string{
		"word ", "longer-word ", "x", "\t", "\b", "\r", "\a", "\x00", "日", "本語", "e\u0301", "\u0301", "\ufe0f",
		"👍", "\x1b[1;31m", "\x1b[0m", "\x1b[m", "\x1b[7m", "\x1b[38;5;200m", "\x1b[48;2;0;0;9m", "\x1b[38:2::1:2:3m",
		"\x1b[4:3m", "\x1b[;1m", "\x1b[1;22;3;23;5;25;27m", "\x1b[93;104m", "\x1b[999999999999m", "\xff", "\xc2\x85",
		"\U0010FFFD", "\U00100000", "a\u0300\u0301\u0302\u0303\u0304\u0305\u0306\u0307\u0308",
		"\x1b[1m\x1b[7m\x1b[31mX\x1b[27m", strings.Repeat("y", 13), "\n", "\n", "\n", "\r\n", "\r\n",
		"\x1b[" + strings.Repeat(";", 70) + "m",
		"\x1b[3;5H", "\x1b[2A", "\x1b[B", "\x1b[4C", "\x1b[D", "\x1b[E", "\x1b[2F", "\x1b[7G", "\x1b[3d", "\x1b[K",
		"\x1b[1K", "\x1b[2K", "\x1b[3X", "\x1b[H", "\x1b[;5f", "\x1b[99;99H", "\x1b[0A", "\x1b[5e", "\x1b[2a", "\x1b[3`",
		"\x1b[1;31m\x1b[K", "\x1b[7m\x1b[2K\x1b[m", "\x1b[44m\x1b[5X\x1b[49m", "\x1b[9999999999A", "\x1b[5;5;5H",
		"\x1b[1:2H", "\x1b[4K", "\x1b[1m\x1b[31m\x1b[1X", "\x1b[G\x1b[2K\x1b[1A\x1b[2K\x1b[1A\x1b[2K",
	}
	// Edits of rows and of the screen, which the walk takes too: clears
	// with content (scroll-on-clear), with a coloured or bold pen, from
	// every row; regions and what scrolls them; insert and delete of lines
	// and characters; the saved cursor; and what makes the walk decline
	// (a wrap pending under a scroll, a wrap on the bottom row below the
	// region, DCH of a wrapped row, a restore of a cursor saved before).
	edits := []string{
		"\x1b[2J", "\x1b[H\x1b[2J", "\x1b[J", "\x1b[1J", "\x1b[2;5H\x1b[1J", "\x1b[0J", "\x1b[3J", "\x1b[5J", "\x1b[:2J",
		"\x1b[41m\x1b[2J\x1b[m", "\x1b[1m\x1b[J\x1b[m", "\x1b[44m\x1b[1J\x1b[m", "\x1b[H\x1b[J", "\x1b[1;31m\x1b[2J\x1b[0m",
		"\x1bD", "\x1bE", "\x1bM", "\x1bM\x1bM\x1bM", "\x1b7", "\x1b8", "\x1b[s", "\x1b[u", "\x1b[1s", "\x1b7\x1b[41m\x1b[3;4H\x1b8",
		"\x1b[L", "\x1b[2L", "\x1b[M", "\x1b[3M", "\x1b[@", "\x1b[4@", "\x1b[P", "\x1b[2P", "\x1b[S", "\x1b[2S",
		"\x1b[T", "\x1b[3T", "\x1b[99L", "\x1b[99P", "\x1b[99@", "\x1b[99S", "\x1b[99M", "\x1b[1:2L", "\x1b[99999999999L",
		"\x1b[2;3r", "\x1b[r", "\x1b[3;2r", "\x1b[1;2r", "\x1b[2;99r", "\x1b[;3r", "\x1b[2r",
		"\x1b[44m\x1bM\x1b[m", "\x1b[7m\x1b[2S\x1b[m", "\x1b[1m\x1b[L\x1b[m", "\x1b[45m\x1bD\x1b[m", "\x1b[42m\x1b[2P\x1b[3@\x1b[m",
		strings.Repeat("w", 17) + "\x1b[M", strings.Repeat("w", 17) + "\x1bM", strings.Repeat("w", 17) + "\x1b[2T",
		strings.Repeat("v", 23) + "\x1b[H\x1b[L", "\x1b[1;2r\x1b[99;1H" + strings.Repeat("u", 30), strings.Repeat("p", 25) + "\x1b[A\x1b[P",
		"\x1b[99;1H\x1bD\x1bD", "\x1b[H\x1bM", "\x1b[2;3r\x1b[3;1H\n\n\x1bM\x1bM\x1b[r",
		// A region set while what the scanner queued still waits for a
		// model to be written back: that waiting output scrolls in the
		// region the model had.
		"\x1b[?25h\x1b[2T\x1b[2;3r", "\x1b[?25l\x1b[L\x1b[r", "\x1b[?25h\x1b[3S\x1b[1;2r\x1b[3S",
		// Modes that leave the screen alone (taken: written into vt10x
		// or kept by the scanner), the alternate screen left while not
		// on it, and those declined; ESC ( B, and the line-drawing set.
		"\x1b[?25l", "\x1b[?25h", "\x1b[?2026h", "\x1b[?2026l", "\x1b[?1;2004h", "\x1b[?1l\x1b[?2004l", "\x1b[?1049l",
		"\x1b[?47l", "\x1b[?1049h", "\x1b[?1047h", "\x1b[?7l", "\x1b[?1000;1006h", "\x1b[?1002h\x1b[?1003l\x1b[?9h",
		"\x1b[?5h\x1b[?5l", "\x1b[?12h", "\x1b[?;25l", "\x1b[?25:1h", "\x1b[?99999999999h", "\x1b[?1004h", "\x1b[?1048h",
		"\x1b(B", "\x1b(0x\x1b(B", "\x1b[?6h\x1b[?6l",
	}
	// Sequences the walk does not take: they end a stretch, and whatever
	// they do must find vt10x as the plain path would have left it.
	others := []string{
		"\x1b[2J", "\x1b[H\x1b[2J", "\x1b[J", "\x1b[H\x1b[J", "\x1bc", "\x1b[41m\x1b[2J", "\x1b[1m\x1b[2J\x1b[0m",
		"\x1bD", "\x1bE", "\x1b[2J\r\n\r\n\r\n\r\n\r\n", "\x1b[3J",
		"\x1b[?1049h", "\x1b[?1049l", "\x1b[4h", "\x1b[4l", "\x1b[2;3r", "\x1b[r", "\x1b(0", "\x1b(B", "\x1b7", "\x1b8",
		"\x1b[5A", "\x1b[K", "\x1b[@", "\x1bM", "\x1b[?6h", "\x1b[?6l", "\x1b[?7l", "\x1b[?7h", "\x1b[3g", "\x1bH",
		"\u200d", "\x1b[2b", "\x1b[?2004h", "\x1b]0;title\a", "\x1b[6n",
	}
	out := map[string]string{}
	for k := 0; k < 10; k++ {
		var b strings.Builder
		for b.Len() < scaled(12000) {
			b.WriteString(pieces[rng.Intn(len(pieces))])
			if k >= 4 && k < 6 && rng.Intn(8) == 0 {
				b.WriteString(others[rng.Intn(len(others))])
			}
			if k >= 6 && rng.Intn(3) == 0 {
				b.WriteString(edits[rng.Intn(len(edits))])
			}
		}
		out[fmt.Sprintf("mix%d", k)] = b.String()
	}
	var lines strings.Builder
	for i := 0; i < scaled(800); i++ {
		fmt.Fprintf(&lines, "\x1b[%dmline %d\x1b[0m %s\r\n", 31+i%7, i, strings.Repeat("ab", i%40))
	}
	out["lines"] = lines.String()
	out["lnm"] = "\x1b[20h" + strings.Repeat("lnm line\n", 200)
	out["tabs-moved"] = "\x1b[3g\x1b[5G\x1bH\r" + strings.Repeat("a\tb\tc\n", 200)
	out["wrapped-bottom"] = "\x1b[10;1H" + strings.Repeat("z", 95) + "\x1b[9;1H\x1b[L\x1b[10;1H\r\n\b\bq" + strings.Repeat("w\r\n", 100)
	out["clears"] = strings.Repeat("\x1b[2J\r\n", 300) + strings.Repeat("\x1b[H\x1b[2Jx\n", 30) +
		strings.Repeat("\x1b[1m\x1b[2J\n\x1b[44m\x1b[2J\n\x1b[m\x1b[2J\r\n\x1b[H\x1b[J\x1bE\x1bD\x1b[20h\n\x1b[20l", 40)
	// Screens a model is made of: line-drawing glyphs, cells cleared with a
	// bold pen (no character can make them), a wrapped bottom row (IL moved
	// it there), then a redraw by cursor addressing.
	var redraw strings.Builder
	for i := 0; i < 400; i++ {
		fmt.Fprintf(&redraw, "\x1b[%d;%dH\x1b[K%d\x1b[%dX", 1+i%9, 1+i%7, i, i%4)
	}
	out["gfx"] = "\x1b[10;20H\x1b(0lqqqk\x1b(B\x1b[9;30H\x1b[1;31m\x1b[K\x1b[0m\x1b[H" + redraw.String() + redraw.String()
	out["imports"] = redraw.String() +
		"\x1b[10H" + strings.Repeat("z", 45) + "\x1b[H\x1b[L" + redraw.String() +
		"\x1b[1;34m\x1b[5;1H\x1b[2K\x1b[m" + strings.Repeat("\x1b[5;40Hx\x1b[1;31m\x1b[K\x1b[m\x1b[6;1Hy", 30) + redraw.String()
	// A pending wrap meeting an edit: ED 1 from row 1 ends it (the
	// scanner's cursor up and down), a line deleted or scrolled under it
	// brings a wrapped row to the cursor (declined), which a sequence the
	// walk does not take (?25h) then finds in vt10x.
	var pend strings.Builder
	for i := 0; i < 60; i++ {
		fmt.Fprintf(&pend, "\x1b[H\x1b[2Jtop %d\n\x1b[2;99Hk\x1b[1Jj\x1b[3;1H%[2]s\x1b[2;99Hk\x1b[%[3]dM\x1b[?25h\x1b[Hz%[5]s\x1b[3;1H%[2]s\x1b[2;99Hk\x1b[%[4]s\x1b[?25hz%[5]s\r\n", i,
			strings.Repeat("w", 45+i%7), 1+i%2, []string{"S", "T", "L", "M"}[i%4], "\x1b[9;1Ha model starts again on this")
	}
	out["pending-edits"] = pend.String()
	// Modes set and reset in the middle of a model, the last ones left set.
	var modes strings.Builder
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&modes, "\x1b[?2026h\x1b[?25l\x1b[Hframe %d\r\nline\x1b[K\r\n\x1b[?25h\x1b[?2026l\x1b[?%dh\x1b[?%dl", i,
			[]int{1, 1000, 1006, 2004, 5, 1004}[i%6], []int{1002, 9, 1, 1003, 1006, 2004}[i%6])
	}
	out["modes"] = modes.String() + "\x1b[?25l\x1b[?2026h\x1b[?1h\x1b[?1000h\x1b[?2004h" + strings.Repeat("end\r\n", 20)
	// The alternate screen: a model of it from its entry, scrolls that
	// keep nothing, clears, the saved cursor, and every way of leaving it
	// (1049 restores the cursor, 47 and 1047 keep it; each clears it with
	// the pen, which the next entry shows), with a pen, a pending wrap and
	// a region set at the leave.
	var alt strings.Builder
	for i := 0; i < 30; i++ {
		mode := []int{1049, 47, 1047}[i%3]
		fmt.Fprintf(&alt, "shell %d\r\n\x1b7\x1b[?%dh\x1b[%dm", i, mode, 41+i%3)
		for j := 0; j < 20; j++ {
			fmt.Fprintf(&alt, "\x1b[%d;%dH\x1b[K%s\x1b[m\r\n", 1+j%10, 1+j%5, strings.Repeat("a", 3+j))
		}
		alt.WriteString("\x1b[99;1H\n\n\x1bD\x1b[2S\x1b[H\x1bM\x1b[2J\x1b[3;1H\x1b[1;31m\x1b7 saved\x1b[2;4r")
		switch i % 4 {
		case 0:
			alt.WriteString("\x1b[5;1H" + strings.Repeat("w", 40) + "\x1b[44m")
		case 1:
			alt.WriteString("\x1b8\x1b[r")
		case 2:
			alt.WriteString("\x1b[?25l\x1b[J\x1b[?1049h")
		}
		fmt.Fprintf(&alt, "\x1b[?%dl\x1b[?25h\x1b[m", mode)
	}
	out["alt"] = alt.String()
	// What full-screen programs send between frames: titles and other
	// OSC strings (a reply among them), keypad modes, dropped CSIs, insert
	// mode reset, amid redraws on either screen.
	between := []string{
		"\x1b]0;title \u2807\a", "\x1b]2;t\x1b\\", "\x1b]7501;?\a", "\x1b]7501;busy\x1b\\", "\x1b]0;x\x1bq", "\x1b]9;\x18",
		"\x1b]0;" + strings.Repeat("long", 300) + "\a", "\x1b=", "\x1b>", "\x1b[>4;2m", "\x1b[>4;m", "\x1b[>0q", "\x1b[>c",
		"\x1b[22;0;0t", "\x1b[23;2t", "\x1b[4l", "\x1b[4hi\x1b[4l", "\x1b[4;20l", "\x1b[4:1l", "\x1b[2;12h", "\x1b[99999999999t",
		"\x1b[?1049h", "\x1b[?1049l", "\x1b[?1047h", "\x1b[?47l",
	}
	rng = rand.New(rand.NewSource(21))
	var frames strings.Builder
	for frames.Len() < scaled(12000) {
		frames.WriteString(pieces[rng.Intn(len(pieces))])
		if rng.Intn(3) == 0 {
			frames.WriteString(between[rng.Intn(len(between))])
		}
	}
	out["between-frames"] = frames.String()
	for name, s := range programStreams() {
		out[name] = s
	}
	out["pen-bold-reverse"] = "\x1b[1;7;32;44m" + strings.Repeat("bold reverse e\u0301 日\r\n", 100)
	return out
}

// scaled shortens a test stream under the race detector.
func scaled(n int) int {
	if raceBuild {
		return n / 4
	}
	return n
}

var twinSizes = [][2]int{{10, 4}, {7, 3}, {1, 1}, {2, 2}, {3, 1}, {40, 10}, {13, 5}}

func TestFastPathMatchesPlainPath(t *testing.T) {
	t.Parallel()
	for name, s := range fastStreams() {
		var fast, bytes, all uint64
		for _, sz := range twinSizes {
			for _, cut := range []int{0, 5, 300, 5000} {
				what := fmt.Sprintf("%s at %dx%d, pieces up to %d", name, sz[0], sz[1], cut)
				tw := newTwins(sz[0], sz[1])
				if cut == 0 {
					tw.write([]byte(s))
				} else {
					tw.writeCut([]byte(s), rand.New(rand.NewSource(int64(cut))), cut)
				}
				fast += tw.fast.fastLines
				bytes += tw.fast.fastBytes
				all += uint64(len(s))
				tw.same(t, what)
			}
		}
		// Every stream must have taken the fast path, or this compared
		// the plain path with itself.
		if bytes == 0 && name != "clears" && name != "tabs-moved" {
			t.Errorf("%s: the fast path never ran", name)
		}
		t.Logf("%s: the model took %d%% of the input and sent %d lines to history", name, bytes*100/all, fast)
	}
}

// TestFastPathOnCorpus runs the tmux agreement corpus and the benchmark
// streams through both paths.
func TestFastPathOnCorpus(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "corpus", "*.in"))
	if err != nil || len(files) == 0 {
		t.Fatalf("corpus: %v", err)
	}
	for _, f := range files {
		m := corpusName.FindStringSubmatch(f)
		var cols, rows int
		fmt.Sscanf(m[1]+" "+m[2], "%d %d", &cols, &rows)
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		in := onlcr(raw)
		for _, sz := range append([][2]int{{cols, rows}}, twinSizes...) {
			for _, cut := range []int{0, 3, 64} {
				tw := newTwins(sz[0], sz[1])
				if cut == 0 {
					tw.write(in)
				} else {
					tw.writeCut(in, rand.New(rand.NewSource(int64(cut))), cut)
				}
				tw.same(t, fmt.Sprintf("%s at %dx%d, pieces up to %d", filepath.Base(f), sz[0], sz[1], cut))
			}
		}
	}
	for name, s := range benchStreams() {
		if name == "clears" {
			s = s[:scaled(16<<10)] // the plain path scans the screen at each clear
		} else {
			s = s[:scaled(256<<10)]
		}
		for _, chunk := range []int{4096, 64 << 10} {
			tw := newTwins(200, 50)
			for p := s; len(p) > 0; {
				n := min(chunk, len(p))
				tw.write(p[:n])
				p = p[n:]
			}
			tw.same(t, fmt.Sprintf("benchmark stream %s in %d-byte writes", name, chunk))
		}
	}
}

// TestFastPathAcrossResizes resizes while the screen is modelled.
func TestFastPathAcrossResizes(t *testing.T) {
	in := []byte(fastStreams()["lines"])
	for _, sz := range [][2]int{{10, 4}, {40, 12}, {3, 1}, {80, 30}} {
		tw := newTwins(20, 6)
		rng := rand.New(rand.NewSource(int64(sz[0])))
		for p := in; len(p) > 0; {
			n := min(1+rng.Intn(3000), len(p))
			tw.write(p[:n])
			p = p[n:]
			if rng.Intn(3) == 0 {
				c, r := 1+rng.Intn(sz[0]), 1+rng.Intn(sz[1])
				tw.fast.Resize(c, r)
				tw.plain.Resize(c, r)
			}
		}
		tw.same(t, fmt.Sprintf("lines with resizes up to %dx%d", sz[0], sz[1]))
	}
}

// TestFastPathIsTaken checks that a flood really goes around vt10x, so that
// the comparisons above compare two different paths.
func TestFastPathIsTaken(t *testing.T) {
	tm := New(40, 10, Options{})
	var b strings.Builder
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&b, "\x1b[32mline\x1b[0m %d\r\n", i)
	}
	tm.Write([]byte(b.String()))
	tm.mu.Lock()
	lazy := tm.model != nil
	tm.mu.Unlock()
	if !lazy {
		t.Fatal("after a flood of simple lines the screen is not modelled")
	}
	if tm.fastLines < 900 {
		t.Fatalf("the fast path laid out %d of 1000 lines, want most of them", tm.fastLines)
	}
	if got := tm.Lines()[8]; got != "line 999" {
		t.Fatalf("row 8 = %q, want line 999", got)
	}
	if h := tm.History(-1); len(h) != 991 || h[0] != "line 0" || h[990] != "line 990" {
		t.Fatalf("history has %d lines (%q ... ), want line 0 to line 990", len(h), h[:min(3, len(h))])
	}
}

// TestFastPathTakesAltScreen checks that the model takes a full-screen
// program's redraws on the alternate screen from its entry, and that
// scrolling there keeps nothing.
func TestFastPathTakesAltScreen(t *testing.T) {
	tm := New(40, 10, Options{})
	var b strings.Builder
	b.WriteString("prompt\r\n\x1b[?1049h")
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&b, "\x1b[%d;1H\x1b[7mrow %d\x1b[m\x1b[K\x1b[10;1H\n", 1+i%10, i)
	}
	tm.Write([]byte(b.String()))
	tm.mu.Lock()
	modelled, fast := tm.model != nil, tm.fastBytes
	tm.mu.Unlock()
	if !modelled || fast < uint64(b.Len())*9/10 {
		t.Fatalf("model up %v, took %d of %d bytes on the alternate screen, want most of them", modelled, fast, b.Len())
	}
	if h := tm.History(-1); len(h) != 0 {
		t.Fatalf("the alternate screen scrolled %d lines into history", len(h))
	}
	tm.Write([]byte("\x1b[?1049l"))
	if got := tm.Lines()[0]; got != "prompt" {
		t.Fatalf("row 0 after leaving = %q, want prompt", got)
	}
}

// TestFastPathTakesFrameSequences checks that what full-screen programs
// send between frames (titles, keypad modes, dropped CSIs) keeps a model
// going, and that one starts again after insert mode was set and reset.
func TestFastPathTakesFrameSequences(t *testing.T) {
	tm := New(40, 10, Options{})
	var b strings.Builder
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&b, "\x1b]0;title %d\a\x1b=\x1b[>4;m\x1b[23;2t\x1b[Hrow %d\x1b[K\x1b>\r\n", i, i)
	}
	frames := b.String()
	in := frames + "\x1b[4hi\x1b[4l" + frames
	tm.Write([]byte(in))
	tm.mu.Lock()
	fast := tm.fastBytes
	tm.mu.Unlock()
	if fast < uint64(len(in))*9/10 {
		t.Fatalf("the model took %d of %d bytes, want most of them", fast, len(in))
	}
	if got := tm.Title(); got != "title 999" {
		t.Fatalf("title %q, want title 999", got)
	}
	tw := newTwins(40, 10)
	in = strings.Repeat("word word\r\nmore\r\n\x1b[4hi\x1b[4lafter\r\n", 3)
	tw.write([]byte(in))
	if tw.fast.fastBytes < uint64(len(in))/2 {
		t.Fatalf("after insert mode the model took %d of %d bytes, want most of them", tw.fast.fastBytes, len(in))
	}
	tw.same(t, "insert mode set and reset")
}

// FuzzFastPath feeds arbitrary input, in arbitrary pieces, to a terminal that
// takes its fast paths and to one that never does; they must not differ.
//
// Run: go test ./pane/term -run '^$' -fuzz FuzzFastPath -fuzztime 5m
func FuzzFastPath(f *testing.F) {
	for _, s := range fastStreams() {
		f.Add([]byte(s[:min(2000, len(s))]), []byte{200, 13, 77}, uint8(10), uint8(4))
	}
	for _, s := range []string{"a\nb\nc\nd\ne\n", "\x1b[1m日本\n\u0301x\n\t\b\n\n\n", strings.Repeat("abcdefg", 20) + "\n\n"} {
		f.Add([]byte(s), []byte{}, uint8(3), uint8(2))
	}
	f.Add([]byte(strings.Repeat("resize me\n", 30)), []byte{40, 0x80 | 9, 200}, uint8(12), uint8(4))
	f.Fuzz(func(t *testing.T, data, cuts []byte, cols, rows uint8) {
		tw := newTwins(int(cols%40)+1, int(rows%8)+1)
		for i := 0; len(data) > 0; i++ {
			n := len(data)
			if i < len(cuts) {
				n = min(int(cuts[i]&0x7f)+1, len(data))
				if cuts[i]&0x80 != 0 {
					// Now and then a resize between writes.
					tw.fast.Resize(int(cuts[i]%37)+1, int(cuts[i]%7)+1)
					tw.plain.Resize(int(cuts[i]%37)+1, int(cuts[i]%7)+1)
				}
			}
			tw.write(data[:n])
			data = data[n:]
		}
		tw.same(t, "fuzzed input")
	})
}
