package toolexec

import (
	"bytes"
	"context"
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var dfaPatterns = []string{
	``, `a`, `^`, `$`, `^$`, `^a`, `a$`, `^a$`, `\bfoo\b`, `\Bo\B`, `\b`, `\B`, `x*`, `a+b`, `(?i)hello`,
	`(?i)straße`, `[[:upper:]][[:lower:]]+[0-9]{2}`, `\pL+\d`, `é+`, `日本`, `[^a-z]`, `.`, `(?s).`, `a|b|^c`,
	`(foo|bar)baz`, `\Afoo`, `foo\z`, `(?m)^foo$`, `(?U)a+?`, `a{2,3}`, `[\x00-\x08]`, `\x{FFFD}`, `ab*c?d`,
	`(a|ab)(c|bcd)(d*)`, `\w+\s\w+`, `^\s*$`, `[a-c]+\b`, `(?i)Σ`, `a.c`, `\.\*`,
	`(?i)hello`, `(?i)deadline`, `x(?i:hello)`, `(?i)hello\s+foo`, `(?i)foo+bar`, `(?i)abc|x`,
}

// TestMatcherStrategy pins which search each kind of pattern gets, so the
// fast paths above are really the ones exercised.
func TestMatcherStrategy(t *testing.T) {
	for _, tc := range []struct {
		pattern, literal string
		pure, fold       bool
	}{
		{"TODO", "TODO", true, false},
		{`func \w+Error\(`, "Error(", false, false},
		{`(?i)deadline`, "deadline", false, true},
		{`(?i)Deadline\d+ xyz`, "deadline", false, true},
		{`(?i)dead(?-i)Line`, "Line", false, false},
		{`(?i)kelvin`, "", false, false}, // K also folds to U+212A
		{`[A-Z][a-z]+[0-9]{3}`, "", false, false},
		{`a|bc`, "", false, false},
		{`\x{FFFD}`, "", false, false},
	} {
		m, err := newMatcher(tc.pattern)
		if err != nil {
			t.Fatal(err)
		}
		if string(m.literal) != tc.literal || m.pure != tc.pure || m.fold != tc.fold {
			t.Errorf("%q: literal %q pure %v fold %v; want %q %v %v", tc.pattern, m.literal, m.pure, m.fold,
				tc.literal, tc.pure, tc.fold)
		}
	}
}

var dfaAlphabet = []string{"a", "b", "c", "d", "o", "f", "x", "A", "Z", "1", "9", " ", "\t", "_", ".", "*",
	"é", "日", "本", "ß", "Σ", "σ", "\xff", "\x00", "foo", "bar", "baz", "hello", "HELLO", "HeLLo", "deadLINE", "\u212A", "kelvin", "Straße", "\r"}

func randomLine(r *rand.Rand) string {
	var b strings.Builder
	n := r.Intn(12)
	for i := 0; i < n; i++ {
		b.WriteString(dfaAlphabet[r.Intn(len(dfaAlphabet))])
	}
	return b.String()
}

// TestDFAMatchesRegexp checks the DFA against Go's regexp on every pattern
// with thousands of generated lines, one at a time and as whole buffers.
func TestDFAMatchesRegexp(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, p := range dfaPatterns {
		m, err := newMatcher(p)
		if err != nil {
			t.Fatalf("%q: %v", p, err)
		}
		re := regexp.MustCompile(p)
		d := m.newDFA()
		var lines []string
		for i := 0; i < map[bool]int{false: 3000, true: 500}[raceEnabled]; i++ {
			line := randomLine(r)
			lines = append(lines, line)
			if got, want := d.matchLine([]byte(line)), re.MatchString(line); got != want {
				t.Errorf("pattern %q line %q: dfa %v, regexp %v", p, line, got, want)
			}
		}
		checkScan(t, m, re, strings.Join(lines, "\n"))
		checkScan(t, m, re, strings.Join(lines, "\n")+"\n")
	}
}

// checkScan compares matcher.scan over buf with a line-by-line regexp.
func checkScan(t *testing.T, m *matcher, re *regexp.Regexp, buf string) {
	t.Helper()
	checkScanWith(t, m, m.newDFA(), re, buf)
}

// checkScanWith is checkScan with a given DFA.
func checkScanWith(t *testing.T, m *matcher, d *lineDFA, re *regexp.Regexp, buf string) {
	t.Helper()
	var want []lineSpan
	start := 0
	for no := 1; start < len(buf); no++ {
		end := strings.IndexByte(buf[start:], '\n')
		if end < 0 {
			end = len(buf)
		} else {
			end += start
		}
		if re.MatchString(buf[start:end]) {
			want = append(want, lineSpan{no: no, start: start, end: end})
		}
		start = end + 1
	}
	var lower []byte
	got := m.scan([]byte(buf), nil, d, &lower)
	if len(got) != len(want) {
		t.Errorf("pattern %q: scan found %d lines, regexp %d", re, len(got), len(want))
		return
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("pattern %q: line %d: scan %+v, regexp %+v", re, i, got[i], want[i])
			return
		}
	}
}

func TestDFACacheReset(t *testing.T) {
	// (a|b)*a(a|b){12} needs thousands of states: force resets with a small
	// cache and check the answers stay right.
	p := `(a|b)*a(a|b){12}`
	m, _ := newMatcher(p)
	re := regexp.MustCompile(p)
	d := m.newDFA()
	d.maxSize = 64
	r := rand.New(rand.NewSource(2))
	for i := 0; i < 2000; i++ {
		var b strings.Builder
		for j := 0; j < 5+r.Intn(30); j++ {
			b.WriteByte("ab"[r.Intn(2)])
		}
		if got, want := d.matchLine([]byte(b.String())), re.MatchString(b.String()); got != want {
			t.Fatalf("line %q: dfa %v, regexp %v", b.String(), got, want)
		}
	}
	if d.resets == 0 {
		t.Error("the cache never reset; the test did not exercise it")
	}
}

func FuzzDFA(f *testing.F) {
	f.Add(`\bfoo\b`, "a foo\nfoo_bar\n")
	f.Add(`(?i)^a.c$`, "ABC\nabc\r\nxabc")
	f.Add(`[^\n]x*`, "\n\n\xff\n")
	f.Fuzz(func(t *testing.T, pattern, text string) {
		re, err := regexp.Compile(pattern)
		if err != nil || len(pattern) > 60 {
			return
		}
		m, err := newMatcher(pattern)
		if err != nil {
			t.Fatalf("regexp compiles but matcher does not: %v", err)
		}
		checkScan(t, m, re, text)
		for _, line := range bytes.Split([]byte(text), []byte("\n")) {
			if got, want := m.newDFA().matchLine(line), re.Match(line); got != want {
				t.Fatalf("line %q: dfa %v, regexp %v", line, got, want)
			}
		}
	})
}

func TestToLowerASCII(t *testing.T) {
	var all []byte
	for i := 0; i < 256; i++ {
		all = append(all, byte(i))
	}
	for off := 0; off < 9; off++ {
		in := all[off:]
		got := toLowerASCII(nil, in)
		for i, b := range in {
			if got[i] != lowerASCII[b] {
				t.Fatalf("offset %d byte %#x: got %#x want %#x", off, b, got[i], lowerASCII[b])
			}
		}
	}
}

// A pattern whose automaton has more states than the cache holds makes the
// DFA thrash; it gives up and steps positions instead (RE2's rule), with the
// same answers. [a-q][^u-z]{13}x needs about 2^13 states: over an 8 MB file
// this took more than a minute before the DFA gave up on thrashing.
func TestDFAGivesUpWhenThrashing(t *testing.T) {
	p := `[a-q][^u-z]{13}x`
	m, _ := newMatcher(p)
	re := regexp.MustCompile(p)
	d := m.newDFA()
	checkScanWith(t, m, d, re, randomLines(1<<20))
	if !d.bailed {
		t.Error("the DFA did not give up; the test did not exercise the fallback")
	}
}

// The work budget stops a search, and so does its context, from inside the
// scan of one file.
func TestGrepWorkBudget(t *testing.T) {
	dir := t.TempDir()
	text := randomLines(1 << 20)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte(text), 0o644)
	m, _ := newMatcher(`[a-q][^u-z]{13}x`)
	_, err := grepTreeBudget(context.Background(), dir, m, 1, 1<<20)
	if !errors.Is(err, errTooCostly) || !strings.Contains(err.Error(), "stopped after 1048576 units of matching work") {
		t.Errorf("over budget: %v", err)
	}
	c, err := grepTreeBudget(context.Background(), dir, m, 1, grepWorkBudget)
	if err != nil || c.work == 0 {
		t.Errorf("within budget: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d := m.newDFA()
	d.work = newGrepWork(ctx, grepWorkBudget)
	var lower []byte
	m.scan([]byte(text), nil, d, &lower)
	if !d.stopped {
		t.Error("a scan under a cancelled context did not stop")
	}
}

func TestGrepProgramLimit(t *testing.T) {
	w := newWorkspace(t)
	w.fails("grep", obj{"pattern": strings.Repeat(`\w{1000}`, 11)}, "compiles to 11002 instructions, over the limit of 10000")
	w.write("a.txt", "x\n")
	w.ok("grep", obj{"pattern": strings.Repeat(`\w{1000}`, 9)})
}

// randomLines is n bytes of lines of random letters, digits and spaces.
func randomLines(n int) string {
	r := rand.New(rand.NewSource(3))
	var b strings.Builder
	for b.Len() < n {
		for i := 0; i < 20+r.Intn(100); i++ {
			b.WriteByte("abcdefghij xyz_0123"[r.Intn(19)])
		}
		b.WriteByte('\n')
	}
	return b.String()
}
