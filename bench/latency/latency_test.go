package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"

	"github.com/melmux/melmux/internal/testreq"
)

func TestMarkersAreDistinctOneCellTwoBytes(t *testing.T) {
	m, err := markers(400)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, k := range m {
		r, size := utf8.DecodeRuneInString(k)
		if size != 2 || len(k) != 2 {
			t.Errorf("%q: %d bytes, want one two-byte rune", k, len(k))
		}
		if w := runewidth.RuneWidth(r); w != 1 {
			t.Errorf("%q (U+%04X): width %d, want 1", k, r, w)
		}
		if seen[k] {
			t.Errorf("%q repeated", k)
		}
		seen[k] = true
	}
}

func TestMarkersRefuseMoreThanTheAlphabet(t *testing.T) {
	_, err := markers(100000)
	if !errors.Is(err, ErrTooManyKeys) {
		t.Fatalf("err = %v, want ErrTooManyKeys", err)
	}
	if !strings.Contains(err.Error(), "100000") {
		t.Errorf("error %q does not name the count asked for", err)
	}
}

func TestSummarizeNearestRank(t *testing.T) {
	var d []time.Duration
	for i := 100; i >= 1; i-- { // unsorted on purpose
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	s := summarize(d, 3)
	want := summary{N: 100, Lost: 3, P50: 50 * time.Millisecond, P90: 90 * time.Millisecond,
		P99: 99 * time.Millisecond, Max: 100 * time.Millisecond, Avg: 50500 * time.Microsecond}
	if s != want {
		t.Errorf("summarize = %+v, want %+v", s, want)
	}
	if d[0] != 100*time.Millisecond {
		t.Error("summarize sorted the caller's slice")
	}
	if got := summarize([]time.Duration{7 * time.Millisecond}, 0); got.P50 != 7*time.Millisecond || got.P99 != 7*time.Millisecond {
		t.Errorf("one value: %+v", got)
	}
	if got := summarize(nil, 2); got.N != 0 || got.Lost != 2 || got.P99 != 0 {
		t.Errorf("no values: %+v", got)
	}
}

func TestRatioAndFormatting(t *testing.T) {
	if got := ratio(3*time.Millisecond, 2*time.Millisecond); got != "1.50" {
		t.Errorf("ratio = %q", got)
	}
	if got := ratio(time.Millisecond, 0); got != "n/a" {
		t.Errorf("ratio by zero = %q", got)
	}
	if got := ms(12345 * time.Microsecond); got != "12.3" {
		t.Errorf("ms = %q", got)
	}
	if got := rate(3<<20, 2*time.Second); got != "1.5 MiB" {
		t.Errorf("rate = %q", got)
	}
}

func TestContainsAcross(t *testing.T) {
	want := []byte("Ā") // 0xC4 0x80
	cases := []struct {
		name        string
		tail, chunk string
		found       bool
	}{
		{"inside the chunk", "abc", "x\u0100y", true},
		{"split over reads", "ab\xc4", "\x80cd", true},
		{"lead byte alone", "ab\xc4", "cd", false},
		{"other letter", "ab", "\u0101", false},
		{"empty chunk", "\xc4", "", false},
	}
	for _, c := range cases {
		if got := containsAcross([]byte(c.tail), []byte(c.chunk), want); got != c.found {
			t.Errorf("%s: containsAcross = %v, want %v", c.name, got, c.found)
		}
	}
}

func TestScanFindsAMarkerSplitAcrossReads(t *testing.T) {
	term := &terminal{seen: make(chan time.Time, 1), done: make(chan struct{})}
	term.expect([]byte("Ā"))
	t0 := time.Now()
	term.scan([]byte("\x1b[2;5H\xc4"), t0)
	select {
	case <-term.seen:
		t.Fatal("seen after only the lead byte")
	default:
	}
	t1 := t0.Add(time.Millisecond)
	term.scan([]byte("\x80\x1b[m"), t1)
	got, err := term.await(time.Second)
	if err != nil || !got.Equal(t1) {
		t.Fatalf("await = %v, %v; want the second read's time %v", got, err, t1)
	}
	if n := term.bytesSeen(); n != int64(len("\x1b[2;5H\xc4")+len("\x80\x1b[m")) {
		t.Errorf("bytesSeen = %d", n)
	}
	// A long chunk keeps only the last tailKeep bytes.
	term.scan([]byte(strings.Repeat("x", 100)), t1)
	if len(term.tail) != tailKeep {
		t.Errorf("tail holds %d bytes, want %d", len(term.tail), tailKeep)
	}
}

func TestAwaitTimesOutAndDisarms(t *testing.T) {
	term := &terminal{seen: make(chan time.Time, 1), done: make(chan struct{})}
	term.expect([]byte("ā"))
	if _, err := term.await(10 * time.Millisecond); !errors.Is(err, ErrEchoTimeout) {
		t.Fatalf("await = %v, want ErrEchoTimeout", err)
	}
	// The late echo must not count for the next key.
	term.scan([]byte("ā"), time.Now())
	term.expect([]byte("Ă"))
	if _, err := term.await(10 * time.Millisecond); !errors.Is(err, ErrEchoTimeout) {
		t.Fatalf("a late echo of the previous key was taken for this one: %v", err)
	}
}

// TestTerminalEchoThroughAPTY types into cat on a real PTY, whose line
// discipline echoes the key at once.
func TestTerminalEchoThroughAPTY(t *testing.T) {
	testreq.Tool(t, "cat")
	term, err := startTerminal(exec.Command("cat"), 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	term.expect([]byte("Ā"))
	sent, err := term.typeKey([]byte("Ā"))
	if err != nil {
		t.Fatal(err)
	}
	at, err := term.await(5 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if at.Before(sent) {
		t.Errorf("echo at %v is before the key at %v", at, sent)
	}
	_ = term.cmd.Process.Kill()
	if err := term.close(); err != nil {
		t.Errorf("close: %v", err)
	}
}

func TestParseStatTimes(t *testing.T) {
	// The command name may hold spaces and parentheses.
	line := "1234 (a (b) c) S 1 2 3 4 5 6 7 8 9 10 111 222 0 0 20 0 1 0 5 6 7\n"
	u, s, err := parseStatTimes([]byte(line))
	if err != nil || u != 111 || s != 222 {
		t.Errorf("parseStatTimes = %d, %d, %v; want 111, 222", u, s, err)
	}
	for _, bad := range []string{"1234 no parens", "1 (x) S 1 2", "1 (x) S 1 2 3 4 5 6 7 8 9 10 u s 0"} {
		if _, _, err := parseStatTimes([]byte(bad)); err == nil {
			t.Errorf("parseStatTimes(%q): no error", bad)
		}
	}
}

func TestParseSchedstatAndStatus(t *testing.T) {
	run, slices, err := parseSchedstat([]byte("189070836 19108519 121\n"))
	if err != nil || run != 189070836 || slices != 121 {
		t.Errorf("parseSchedstat = %v, %d, %v", run, slices, err)
	}
	if _, _, err := parseSchedstat([]byte("1 2")); err == nil {
		t.Error("two fields: no error")
	}
	v, iv, err := parseCtxtSwitches([]byte("Name:\tx\nvoluntary_ctxt_switches:\t5\nnonvoluntary_ctxt_switches:\t119\n"))
	if err != nil || v != 5 || iv != 119 {
		t.Errorf("parseCtxtSwitches = %d, %d, %v", v, iv, err)
	}
	if _, _, err := parseCtxtSwitches([]byte("voluntary_ctxt_switches:\t5\n")); err == nil {
		t.Error("one counter: no error")
	}
	if _, _, err := parseCtxtSwitches([]byte("voluntary_ctxt_switches:\tx\nnonvoluntary_ctxt_switches:\t1\n")); err == nil {
		t.Error("not a number: no error")
	}
}

func TestSampleProcOfThisProcess(t *testing.T) {
	a, err := sampleProc("/proc", os.Getpid())
	if err != nil {
		testreq.Skip(t, fmt.Sprintf("no /proc here: %v", err))
	}
	if a.Threads < 1 {
		t.Errorf("threads = %d", a.Threads)
	}
	x := 0
	for i := 0; i < 5e7; i++ { // burn some CPU so run time moves
		x += i
	}
	_ = x
	b, err := sampleProc("/proc", os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	d := a.to(b)
	if d.RunTime <= 0 || d.Span <= 0 {
		t.Errorf("delta %+v: run time and span should grow", d)
	}
	if _, err := sampleProc("/proc", 1<<30); err == nil {
		t.Error("a process that does not exist: no error")
	}
}

func TestParseFlags(t *testing.T) {
	c, err := parseFlags(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.keys != 300 || c.idlePanes != 20 || c.cols != 120 || c.rows != 40 || strings.Join(c.cases, ",") != "idle,flood,flood4" ||
		strings.Join(c.muxes, ",") != "melmux,tmux" {
		t.Errorf("defaults: %+v", c)
	}
	bad := map[string][]string{
		"-n 0":          {"-n", "0"},
		"unknown case":  {"-cases", "idle,storm"},
		"unknown mux":   {"-mux", "screen"},
		"no mux":        {"-mux", ","},
		"too many keys": {"-n", "100000"},
		"nothing":       {"-cases", "", "-idle-panes", "0"},
		"argument":      {"stray"},
		"tiny window":   {"-idle-window", "10ms"},
		"tiny terminal": {"-cols", "10"},
	}
	for name, args := range bad {
		if _, err := parseFlags(args, io.Discard); err == nil {
			t.Errorf("%s (%q): no error", name, args)
		}
	}
	c, err = parseFlags([]string{"-cases", "flood,flood", "-mux", "tmux"}, io.Discard)
	if err != nil || strings.Join(c.cases, ",") != "flood" || strings.Join(c.muxes, ",") != "tmux" {
		t.Errorf("dedup: %+v, %v", c, err)
	}
}

func TestShellLineQuotes(t *testing.T) {
	got := shellLine([]string{"sh", "/tmp/it's here.sh"})
	if want := `exec 'sh' '/tmp/it'\''s here.sh'`; got != want {
		t.Errorf("shellLine = %s, want %s", got, want)
	}
}

func TestReportVerdicts(t *testing.T) {
	cfg, err := parseFlags([]string{"-rounds", "1"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	r := &report{cfg: cfg, lat: map[string]map[string]*latencyAgg{}, idle: map[string]idleResult{}}
	fast := make([]time.Duration, 100)
	slow := make([]time.Duration, 100)
	for i := range fast {
		fast[i] = time.Duration(i+1) * 100 * time.Microsecond // p99 9.9 ms
		slow[i] = time.Duration(i+1) * time.Millisecond       // p99 99 ms
	}
	span := procDelta{Span: time.Second, RunTime: 500 * time.Millisecond}
	r.addLatency("idle", "melmux", latencyResult{lat: fast, server: span})
	r.addLatency("idle", "tmux", latencyResult{lat: slow, server: span})
	r.addLatency("flood", "melmux", latencyResult{lat: slow, lost: 1, server: span})
	r.addLatency("flood", "tmux", latencyResult{lat: fast, server: span})
	r.idle["melmux"] = idleResult{layout: "20 panes", server: procDelta{Span: 10 * time.Second}}
	var b strings.Builder
	r.write(&b)
	out := b.String()
	for _, want := range []string{
		"| idle | melmux | 100 | 0 | 5.0 | 9.0 | 9.9 | 10.0 |",
		"| flood | melmux | 100 | 1 | 50.0 | 90.0 | 99.0 | 100.0 |",
		"| idle | 0.10 | 0.10 | 0.10 | 0.10 |",
		"neighbour idle: melmux p99 9.9 ms, target <= 30.0 ms: met; below tmux's 99.0 ms: yes",
		"neighbour flood: melmux p99 99.0 ms, target <= 30.0 ms: NOT met; below tmux's 9.9 ms: NO; keys lost: melmux 1",
		"| melmux | 20 panes | 0s | 0s | 0 (0.0/s) |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

// Every case opens the typed-into pane last (so it has the focus), splits
// only panes already open, and runs the same programs in the same places
// whichever multiplexer lays it out.
func TestCaseLayouts(t *testing.T) {
	layouts := caseLayouts("/w")
	for _, cs := range caseNames {
		steps, ok := layouts[cs]
		if !ok {
			t.Errorf("case %s has no layout", cs)
			continue
		}
		if last := steps[len(steps)-1].cmd; strings.Join(last, " ") != "sh /w/echo.sh" {
			t.Errorf("case %s: the last pane runs %q, want the echo", cs, last)
		}
		for i, st := range steps[1:] {
			if st.split < 0 || st.split > i || (st.dir != "right" && st.dir != "down") {
				t.Errorf("case %s step %d: split %d %q, want an earlier step and right or down", cs, i+1, st.split, st.dir)
			}
		}
	}
	floods := 0
	for _, st := range layouts["flood4"] {
		if strings.Join(st.cmd, " ") == "sh /w/flood.sh" {
			floods++
		}
	}
	if floods != 4 {
		t.Errorf("flood4 has %d flooding panes, want 4", floods)
	}
}
