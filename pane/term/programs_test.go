package term

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// programStreams are what the model of the screen learnt from bench/corpus
// (issue 21): auto-wrap reset around a status line (watch(1)), a reverse
// index at the top bringing a wrapped row to the bottom one (less), the
// queries and replies of full-screen programs between frames (Claude Code,
// Codex, vim), and the alternate screen entered and left again and again,
// with a pen at the leave and resizes while it is shown. fastStreams takes
// them, so the fast path is compared with the plain one on them and
// FuzzFastPath starts from them.
func programStreams() map[string]string {
	out := map[string]string{}
	rng := rand.New(rand.NewSource(21))
	// watch(1): the header with auto-wrap off (a long line keeps
	// overwriting the last column), then the body with it on.
	var nowrap strings.Builder
	for i := 0; i < 60; i++ {
		fmt.Fprintf(&nowrap, "\x1b[H\x1b[?7lEvery 0.1s: %s %d\x1b[1;35H%s\x1b[?7h\x1b[3;1H", strings.Repeat("cmd ", 1+i%12), i, strings.Repeat("z", i%9))
		for j := 0; j < 3+i%5; j++ {
			fmt.Fprintf(&nowrap, "line %d %s\x1b[K\r\n", j, strings.Repeat("w", rng.Intn(60)))
		}
		switch i % 4 {
		case 0:
			nowrap.WriteString("\x1b[?7l\x1b[1;31m" + strings.Repeat("q", 50) + "日本\u0301e\x1b[m\x1b[?7h")
		case 1:
			nowrap.WriteString("\x1b[?7l" + strings.Repeat("r", 45) + "\x1b[?7hx" + strings.Repeat("s", 20))
		case 2:
			nowrap.WriteString("\x1b[?7l\x1b[2;30H" + strings.Repeat("t", 30) + "\x1b[K\x1b[2b\x1b[?25l")
		}
	}
	out["nowrap"] = nowrap.String() + "\x1b[?7l" + strings.Repeat("end ", 30)
	// less: long lines wrap, then the pager scrolls back up with reverse
	// index at the top, bringing a wrapped row down to the bottom row, and
	// text wraps on the bottom row below a scroll region.
	var ri strings.Builder
	for i := 0; i < 50; i++ {
		fmt.Fprintf(&ri, "\x1b[H\x1b[2J%s\r\nshort %d\r\n%s\r\n", strings.Repeat("long ", 10+i%7), i, strings.Repeat("x", 25+i%30))
		for j := 0; j < 1+i%6; j++ {
			fmt.Fprintf(&ri, "\x1b[H\x1bM%s%d", strings.Repeat("back ", 3+j*2), j)
		}
		fmt.Fprintf(&ri, "\x1b[99;1H\x1b[K:%s\x1b[1;%dr\x1b[99;1H%s\x1b[r", strings.Repeat(" ", i%3), 2+i%4, strings.Repeat("b", 30+i%20))
		if i%5 == 0 {
			ri.WriteString("\x1b[H\x1b[L\x1b[2T\x1b[99;1H\x1b[?25h")
		}
	}
	out["ri-wrapped"] = ri.String()
	// Queries and replies between frames: kitty keyboard, DA1, DA2, DSR,
	// CPR (also with a wrap pending), cursor shapes, DECRQM, XTMODKEYS,
	// CHT, and malformed ones the scanner ignores.
	queries := []string{"\x1b[?u", "\x1b[c", "\x1b[0c", "\x1b[1c", "\x1b[>c", "\x1b[>0c", "\x1b[5n", "\x1b[6n", "\x1b[?6n", "\x1b[0 q", "\x1b[5 q",
		"\x1b[2 q", "\x1b[9 q", "\x1b[?12$p", "\x1b[>4;2m", "\x1b[<1u", "\x1b[>7u", "\x1b[=1;1u", "\x1b[?4m", "\x1b[0%m", "\x1b[2I", "\x1b[1 2q",
		"\x1b[?1:2u", "\x1b[99999999999n", "\x1b[>1;2;3u", "\x1b[?25$p", "\x1b[ q"}
	var q strings.Builder
	for i := 0; q.Len() < scaled(12000); i++ {
		fmt.Fprintf(&q, "\x1b[%d;%dH%s%s", 1+i%9, 1+i%35, strings.Repeat("v", i%45), queries[rng.Intn(len(queries))])
		if i%3 == 0 {
			q.WriteString("\x1b[K")
		}
	}
	out["queries"] = q.String()
	// The alternate screen again and again: left with a pen (which clears
	// it so), entered again, the primary screen changed or not between.
	var alt strings.Builder
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&alt, "\x1b[?1049h\x1b[%dm", 40+i%3)
		if i%3 != 0 {
			alt.WriteString("\x1b[H\x1b[2J")
		}
		fmt.Fprintf(&alt, "\x1b[5;5Hframe %d\x1b[%dm", i, []int{0, 44, 1}[i%3])
		fmt.Fprintf(&alt, "\x1b[?1049l\r\x1b[?1l\x1b>")
		switch i % 4 {
		case 1:
			fmt.Fprintf(&alt, "shell %d\r\n", i)
		case 2:
			alt.WriteString("\x1b[2;3H\x1b[1m\x1b[m\x1b7\x1b8\x1b[?25h\x1b(B")
		}
	}
	out["alt-again"] = alt.String()
	return out
}

// TestFastPathTakesPrograms checks that the model takes what bench/corpus's
// full-screen programs send, so that programStreams compare two paths.
func TestFastPathTakesPrograms(t *testing.T) {
	streams := programStreams()
	for _, c := range []struct {
		name       string
		cols, rows int
		want       int // per cent of the input the model takes at least
	}{
		{"nowrap", 40, 10, 90},
		{"ri-wrapped", 40, 10, 90},
		{"queries", 40, 10, 90},
	} {
		tm := New(c.cols, c.rows, Options{Reply: func([]byte) {}})
		tm.importMin = 32
		in := streams[c.name]
		tm.Write([]byte(in))
		if got := int(tm.fastBytes * 100 / uint64(len(in))); got < c.want {
			t.Errorf("%s: the model took %d%% of the input, want at least %d%%", c.name, got, c.want)
		}
	}
}

// TestFastPathStartsOnAltScreenEntry checks that a model of the alternate
// screen starts right after the program entered it, not a piece of the
// write (4 KB) later, and that entering it again after a leave neither
// reads the alternate screen (the leave cleared it with the pen) nor, when
// the primary screen did not change, the primary one.
func TestFastPathStartsOnAltScreenEntry(t *testing.T) {
	var frames strings.Builder
	for i := 0; frames.Len() < 8000; i++ {
		fmt.Fprintf(&frames, "\x1b[%d;1H\x1b[1mrow %d\x1b[m\x1b[K", 1+i%10, i)
	}
	tm := New(40, 10, Options{})
	in := "$ prompt\x1b[?1049h" + frames.String()
	tm.Write([]byte(in))
	if got, want := tm.fastBytes, uint64(frames.Len()); got < want {
		t.Fatalf("the model took %d bytes after the entry, want all %d", got, want)
	}
	tm.Write([]byte("\x1b[44m\x1b[?1049l\r\x1b[?1l\x1b>"))
	tm.mu.Lock()
	known, cached := tm.altBlankKnown, tm.primary.cached
	tm.mu.Unlock()
	if !known || !cached {
		t.Fatalf("after the leave: the alternate screen's blank known %v, the primary screen's copy kept %v; want both", known, cached)
	}
	tm.Write([]byte("\x1b[?1049h"))
	tm.mu.Lock()
	uniform, lines := tm.altUniform, len(tm.primary.lines)
	tm.mu.Unlock()
	if !uniform || lines != 10 {
		t.Fatalf("after entering again: the alternate screen uniform %v, %d primary rows kept; want true and 10", uniform, lines)
	}
	tw := newTwins(40, 10)
	tw.write([]byte(in + "\x1b[44m\x1b[?1049l\r\x1b[?1h\x1b[?1049h" + frames.String() + "\x1b[?1049l"))
	tw.same(t, "the alternate screen entered again")
}
