package term

import (
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"
)

// unpackRuns is the runs section of l, decoded.
func unpackRuns(l *histLine) []styleRun {
	r, n := l.sections()
	for range n {
		r.uvarint()
	}
	var out []styleRun
	for len(r.s) > 0 {
		out = append(out, styleRun{n: uint16(r.uvarint()), attr: Attr(r.uvarint()), fg: unpackColor(r.uvarint()), bg: unpackColor(r.uvarint())})
	}
	return out
}

// unpackStarts is where each cell of l begins in its text, nil when l keeps
// no such list.
func unpackStarts(l *histLine) []uint16 {
	if !l.hasStarts {
		return nil
	}
	r, n := l.sections()
	out := []uint16{}
	at := 0
	for range n {
		out = append(out, uint16(at))
		at += int(r.uvarint())
	}
	return out
}

// checkPacked packs a line and reads every part of it back.
func checkPacked(t *testing.T, text string, starts []uint16, runs []styleRun) {
	t.Helper()
	l, _ := packLine(nil, []byte(text), starts, runs, 80, true)
	if l.text() != text || l.cols != 80 || !l.wrapped {
		t.Fatalf("text %q cols %d wrapped %v, want %q 80 true", l.text(), l.cols, l.wrapped, text)
	}
	if got := unpackStarts(&l); !equalSlices(got, starts) {
		t.Fatalf("starts %v, want %v", got, starts)
	}
	if got := unpackRuns(&l); !equalSlices(got, runs) {
		t.Fatalf("runs %v, want %v", got, runs)
	}
	again, _ := packLine(make([]byte, 3, 100), []byte(text), starts, runs, 80, true)
	if again != l {
		t.Fatalf("packing twice gave %+v and %+v: the encoding must be canonical", l, again)
	}
}

func equalSlices[T comparable](a, b []T) bool {
	if len(a) != len(b) || (a == nil) != (b == nil) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestPackedLine(t *testing.T) {
	if size := unsafe.Sizeof(histLine{}); size > 24 {
		t.Errorf("a ring slot is %d bytes, want at most 24", size)
	}
	checkPacked(t, "", nil, nil)
	checkPacked(t, "plain text", nil, nil)
	checkPacked(t, "ab👨\u200d👩\u200d👧c", []uint16{0, 1, 2, 20}, []styleRun{{n: 2, attr: AttrBold, fg: Indexed(1)}, {n: 0xfff0, fg: Indexed(255), bg: RGB(1, 2, 3)}})
	checkPacked(t, "x", nil, []styleRun{{n: 1, attr: AttrStrike | AttrReverse, fg: RGB(255, 255, 255), bg: RGB(0, 0, 0)}})
	for _, c := range []Color{ColorDefault, Indexed(0), Indexed(126), Indexed(127), Indexed(255), RGB(0, 0, 0), RGB(255, 0, 128)} {
		if got := unpackColor(packColor(c)); got != c {
			t.Errorf("colour %#x came back as %#x", c, got)
		}
	}
	// A coloured word per few cells, the benchmark's SGR line: a run costs
	// 4 bytes, not 12.
	var runs []styleRun
	for i := range 20 {
		runs = append(runs, styleRun{n: 10, attr: Attr(i % 2), fg: Indexed(uint8(i))})
	}
	if l, _ := packLine(nil, make([]byte, 100), nil, runs, 200, false); len(l.data) != 100+4*20 {
		t.Errorf("100 bytes of text and 20 runs packed into %d bytes, want %d", len(l.data), 180)
	}
}

// FuzzPackedLine packs arbitrary text, cell starts and runs and reads them
// back.
//
// Run: go test ./pane/term -run '^$' -fuzz FuzzPackedLine -fuzztime 1m
func FuzzPackedLine(f *testing.F) {
	f.Add("ab👨\u200d👩c", []byte{1, 2}, []byte{3, 1, 9, 0, 200, 7, 7, 7, 7, 7})
	f.Add("", []byte{}, []byte{})
	f.Fuzz(func(t *testing.T, text string, cuts, style []byte) {
		if !utf8.ValidString(text) || len(text) > 0xffff {
			return
		}
		// Cells begin at the cuts (as offsets into text, increasing), the
		// first at 0; no cuts: no list.
		var starts []uint16
		if len(cuts) > 0 && len(text) > 0 {
			starts = []uint16{0}
			for _, c := range cuts {
				at := int(starts[len(starts)-1]) + int(c)
				if c == 0 || at >= len(text) {
					break
				}
				starts = append(starts, uint16(at))
			}
		}
		var runs []styleRun
		for len(style) >= 5 {
			b := style[:5]
			style = style[5:]
			fg := Color(b[2]) | Color(b[3]%3)<<24
			if fg.IsDefault() {
				fg = ColorDefault // the one default colour convColor makes
			}
			bg := RGB(b[4], b[0], b[2])
			if b[3]%2 == 0 {
				bg = ColorDefault
			}
			runs = append(runs, styleRun{n: uint16(b[0])<<8 | uint16(b[1]), attr: Attr(b[1]), fg: fg, bg: bg})
		}
		checkPacked(t, text, starts, runs)
	})
}

// TestHistoryBlocks: lines kept in the history's shared blocks read back as
// they were pushed while the ring wraps many times over, lines of every size
// (empty, a few bytes, more than a block) included, and scratch reused
// between pushes does not show through.
func TestHistoryBlocks(t *testing.T) {
	h := history{limit: 300}
	var want []string
	scratch := make([]byte, 0, 64)
	for i := range 5000 {
		n := (i * 37) % 120
		if i%997 == 0 {
			n = blockMax + 100 // bigger than any block
		}
		scratch = scratch[:0]
		for k := range n {
			scratch = append(scratch, byte('a'+(i+k)%26))
		}
		want = append(want, string(scratch))
		h.push(histLine{data: h.keep(scratch), textLen: uint32(len(scratch))})
		for k := range scratch {
			scratch[k] = '#' // the caller's scratch changes; the kept line must not
		}
	}
	if h.n != h.limit {
		t.Fatalf("ring holds %d lines, want %d", h.n, h.limit)
	}
	for i := range h.n {
		if got, w := h.at(i).text(), want[len(want)-h.n+i]; got != w {
			t.Fatalf("line %d of the ring: %q, want %q", i, got, w)
		}
	}
	if cap(h.block) > blockMax+100 {
		t.Errorf("block capacity %d: blocks grow to %d (or one line's size)", cap(h.block), blockMax)
	}
	h.clear()
	if h.block != nil {
		t.Error("clear kept the block")
	}
}

// Every test that trims freezes whatever history it holds, so that reads of
// frozen lines are checked wherever a trimmed terminal is compared with one
// that never trims (TestTrimIsInvisible), not only above 8 KB of lines.
func init() { freezeMin = 1 }

// TestFrozenHistory freezes the history of one terminal after every piece
// of output and checks it against a twin that never freezes, through what
// moves lines in and out of the ring while some are frozen or thawed with
// their segments kept: lines wrapping the ring past them, a grow taking
// lines back, a reflow, a clear.
func TestFrozenHistory(t *testing.T) {
	defer func(old int) { freezeMin = old }(freezeMin)
	freezeMin = 1
	rng := rand.New(rand.NewSource(1))
	words := []string{"alpha", "\x1b[31mred\x1b[m", "wide 日本", "e\u0301", "👨\u200d👩\u200d👧", "\x1b[1;44mbold\x1b[m", "tab\tstop"}
	frozen := New(40, 8, Options{Scrollback: 50})
	plain := New(40, 8, Options{Scrollback: 50})
	both := func(p []byte) {
		frozen.Write(p)
		plain.Write(p)
	}
	skipped, reads, kept := 0, 0, 0
	for step := range 400 {
		var b strings.Builder
		for range rng.Intn(12) {
			for range 1 + rng.Intn(12) {
				b.WriteString(words[rng.Intn(len(words))] + " ")
			}
			b.WriteString("\r\n")
		}
		both([]byte(b.String()))
		switch rng.Intn(20) {
		case 0:
			both([]byte("\x1b[3J"))
		case 1, 2:
			w, h := 20+rng.Intn(40), 4+rng.Intn(12)
			frozen.Resize(w, h)
			plain.Resize(w, h)
		}
		if rng.Intn(4) != 0 {
			frozen.mu.Lock()
			kept += min(frozen.h.thawed, 1)
			frozen.mu.Unlock()
			frozen.Trim()
		}
		frozen.mu.Lock()
		if frozen.h.frozenLive > 0 && len(frozen.h.lines) >= frozen.h.n {
			t.Fatalf("step %d: frozen lines kept their slots", step)
		}
		skipped += min(frozen.h.frozenSkip, 1)
		reads += min(frozen.h.frozenLive, 1)
		frozen.mu.Unlock()
		if rng.Intn(3) == 0 {
			continue // read later, after more lines went past frozen ones
		}
		if f, p := frozen.HistoryCells(0, -1), plain.HistoryCells(0, -1); !reflect.DeepEqual(f, p) {
			t.Fatalf("step %d: history differs: %d lines frozen, %d not", step, len(f), len(p))
		}
		if f, p := frozen.HistoryTotal(), plain.HistoryTotal(); f != p {
			t.Fatalf("step %d: totals %d and %d", step, f, p)
		}
	}
	if skipped == 0 || reads == 0 || kept == 0 {
		t.Fatalf("frozen lines were never read (%d), went past (%d) or frozen again from their segments (%d)", reads, skipped, kept)
	}
}
