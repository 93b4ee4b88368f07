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

	"github.com/hinshun/vt10x"

	"github.com/melmux/melmux/bench/corpus"
)

// stateStreams set, at random moments, every part of the state a thaw must
// bring back, and then use it: tab stops of their own, a scroll region and
// origin mode, a cursor saved with a pen, the line-drawing set and origin
// mode (and restored), the alternate screen with content and left with a
// coloured pen, a wrap pending, cells cleared with a bold or reverse pen,
// the pen and character set the next character is printed with, insert,
// auto-wrap, LNM and the modes a program sets for its input, the title.
func stateStreams() map[string]string {
	rng := rand.New(rand.NewSource(31))
	sets := []string{
		"\x1b[3g\x1b[1;5H\x1bH\x1b[1;13H\x1bH\x1b[1;14H\x1bH", "\x1b[1;9H\x1b[g", "\x1b[3g",
		"\x1b[2;7r", "\x1b[3;5r", "\x1b[r", "\x1b[?6h", "\x1b[?6l",
		"\x1b[4;6H\x1b[1;33;44m\x1b(0\x1b7\x1b(B\x1b[m", "\x1b[?6h\x1b[2;3H\x1b[7m\x1b7\x1b[m\x1b[?6l", "\x1b[s", "\x1b7",
		"\x1b[?1049h\x1b[2J\x1b[H\x1b[32malt screen\x1b[m here\r\n\x1b(0lqqk\x1b(B",
		"\x1b[?1049h\x1b[45m\x1b[2J\x1b[3;3Hpainted\x1b[?1049l", "\x1b[?1049l", "\x1b[?1047h", "\x1b[?47l", "\x1b[41m\x1b[?1047l\x1b[m",
		"\x1b[200Cend", "\x1b[999C" + "Z", "\x1b[1;31m\x1b[2K\x1b[m", "\x1b[1;7;32m\x1b[3X\x1b[m", "\x1b[7;44m\x1b[K\x1b[m",
		"\x1b[1;38;5;100;48;2;10;20;30m", "\x1b[3;4;5m", "\x1b[m", "\x1b(0", "\x1b(B", "\x1b[7m",
		"\x1b[4h", "\x1b[4l", "\x1b[?7l", "\x1b[?7h", "\x1b[20h", "\x1b[20l",
		"\x1b[?1h\x1b=", "\x1b[?1l\x1b>", "\x1b[?1000;1006h", "\x1b[?1002h", "\x1b[?1003h\x1b[?1004h", "\x1b[?1000l\x1b[?1006l",
		"\x1b[?2004h", "\x1b[?2004l", "\x1b[?25l", "\x1b[?25h", "\x1b[?5h", "\x1b[?5l", "\x1b[?9h", "\x1b[?2026h", "\x1b[?2026l",
		"\x1b]2;a title\a", "\x1b]0;another\x1b\\", "\x1b[5 q", "\x1b[?1048h",
	}
	uses := []string{
		"\x1b8", "\x1b[u", "\x1b[?1048l", "\tT\tT\tT", "\x1b[Z\x1b[2Zb", "\n\n\n\n\n\n", "\x1bM\x1bM\x1bM", "\x1b[2S\x1b[T",
		"\x1b[H", "\x1b[99;1H", "\x1b[5;5H", "q", "x", "日本", "e\u0301", "\x1b[2b", "\x1b[L\x1b[M\x1b[@\x1b[P",
		"\x1b[6n", "\x1b[2J", "\x1b[J", "\x1b[1J", "\r\n", "\b\b", "lines of text ", "more words ", "\x1b[?1049h", "\x1b[?1049l",
	}
	out := map[string]string{}
	for k := 0; k < 6; k++ {
		var b strings.Builder
		for b.Len() < scaled(16000) {
			switch rng.Intn(3) {
			case 0:
				b.WriteString(sets[rng.Intn(len(sets))])
			case 1:
				b.WriteString(uses[rng.Intn(len(uses))])
			default:
				b.WriteString(strings.Repeat("abcdefghij"[rng.Intn(10):], 1+rng.Intn(5)))
			}
		}
		out[fmt.Sprintf("state%d", k)] = b.String()
	}
	return out
}

// termFields are the Terminal's own fields around vt10x that a retire and
// a thaw could disturb; they must not.
type termFields struct {
	AltBlank                 vt10x.Glyph
	AltBlankKnown, AltUnif   bool
	CurValid                 bool
	CX, CY                   int
	WrapNext, Origin         bool
	VMode                    vt10x.ModeFlag
	Top, Bottom              int
	TabsDefault, ScreenBlank bool
	Uniform, UniformDefault  bool
	Insert, Bracketed, Sync  bool
	Shape                    CursorShape
	Title                    string
	PrimaryCached            bool
	ScannerState             int
}

func termFieldsOf(t *Terminal) termFields {
	return termFields{
		t.altBlank, t.altBlankKnown, t.altUniform, t.curValid, t.cx, t.cy, t.wrapNext, t.origin, t.vmode,
		t.top, t.bottom, t.tabsDefault, t.screenBlank, t.uniform, t.uniformDefault, t.insert, t.bracketed,
		t.syncOutput, t.shape, t.title, t.primary.cached, t.sc.state,
	}
}

// innerDiff says how vt10x's state in a differs from b's, "" if not at all,
// each part compared on its own (not with sameVTInner, which is what it
// checks).
func innerDiff(a, b *vtInner) string {
	switch {
	case a.cur != b.cur:
		return fmt.Sprintf("cursor %+v, want %+v", a.cur, b.cur)
	case a.saved != b.saved:
		return fmt.Sprintf("saved cursor %+v, want %+v", a.saved, b.saved)
	case a.top != b.top || a.bottom != b.bottom:
		return fmt.Sprintf("region %d-%d, want %d-%d", a.top, a.bottom, b.top, b.bottom)
	case a.mode != b.mode:
		return fmt.Sprintf("modes %#x, want %#x", a.mode, b.mode)
	case a.parse != b.parse:
		return "the parser's state"
	case a.title != b.title:
		return fmt.Sprintf("vt10x's title %q, want %q", a.title, b.title)
	case a.overrides != b.overrides:
		return "colour overrides"
	case !slices.Equal(a.tabs, b.tabs):
		return fmt.Sprintf("tab stops %v, want %v", a.tabs, b.tabs)
	}
	for _, s := range []struct {
		name string
		a, b [][]vt10x.Glyph
	}{{"screen shown", a.shown, b.shown}, {"hidden screen", a.hidden, b.hidden}} {
		if len(s.a) != len(s.b) {
			return fmt.Sprintf("%s: %d rows, want %d", s.name, len(s.a), len(s.b))
		}
		for y := range s.a {
			if !slices.Equal(s.a[y], s.b[y]) {
				for x := range s.a[y] {
					if x >= len(s.b[y]) || s.a[y][x] != s.b[y][x] {
						return fmt.Sprintf("%s: cell %d,%d", s.name, x, y)
					}
				}
				return fmt.Sprintf("%s: row %d", s.name, y)
			}
		}
	}
	return ""
}

// retireRun writes a stream into a terminal that is trimmed and retired at
// every cut and into one only trimmed, and compares them at each cut: the
// retired one's reads; then, thawed, vt10x's whole state and the
// Terminal's; and at the end of the stream everything a reader sees or
// that decides what later input does. Every other cut the next write thaws
// it, and both are compared in full after that write; the others thaw it
// at once (as a read that needs vt10x would).
type retireRun struct {
	t                 testing.TB
	a, b              *Terminal
	retired, declined int
}

func newRetireRun(t testing.TB, cols, rows int) *retireRun {
	opts := Options{Reply: func([]byte) {}}
	return &retireRun{t: t, a: New(cols, rows, opts), b: New(cols, rows, opts)}
}

func (r *retireRun) write(p []byte) {
	r.a.Write(p)
	r.b.Write(p)
}

func (r *retireRun) cut(what string, thawNow bool) {
	t, a, b := r.t, r.a, r.b
	t.Helper()
	a.Trim()
	b.Trim()
	if !a.Retire() {
		r.declined++
		return
	}
	r.retired++
	if la, lb := a.Lines(), b.Lines(); !slices.Equal(la, lb) {
		t.Fatalf("%s: the retired terminal's lines:\n%q\nwant\n%q", what, la, lb)
	}
	if ca, cb := a.Cursor(), b.Cursor(); ca != cb {
		t.Fatalf("%s: the retired terminal's cursor %+v, want %+v", what, ca, cb)
	}
	if ma, mb := a.Modes(), b.Modes(); ma != mb {
		t.Fatalf("%s: the retired terminal's modes %+v, want %+v", what, ma, mb)
	}
	if !thawNow {
		// Every other cut: the cells with their styles, as a client
		// draws them.
		if sa, sb := a.Snapshot(), b.Snapshot(); !reflect.DeepEqual(sa, sb) {
			t.Fatalf("%s: the retired terminal's snapshot differs", what)
		}
	}
	if !a.Retired() {
		t.Fatalf("%s: a read brought vt10x back", what)
	}
	a.mu.Lock()
	b.mu.Lock()
	// What a thaw makes, compared at every cut: the next write may
	// make good what it left out (a print marks the row a pending wrap
	// is on), and that would hide it.
	scratch := vt10x.New(vt10x.WithSize(a.cols, a.rows))
	_, _ = scratch.Write(a.frozen.replay(a.cols, a.rows))
	is, oks := vtInnerOf(scratch)
	ib, okb := vtInnerOf(b.vt)
	replayed := innerDiff(&is, &ib)
	var diff string
	oka := true
	if thawNow {
		a.peekLocked(func() {})
		var ia vtInner
		ia, oka = vtInnerOf(a.vt)
		diff = innerDiff(&ia, &ib)
	}
	fa, fb := termFieldsOf(a), termFieldsOf(b)
	a.mu.Unlock()
	b.mu.Unlock()
	if !oks || !oka || !okb {
		t.Fatalf("%s: vt10x's state cannot be read", what)
	}
	if replayed != "" {
		t.Fatalf("%s: what a thaw writes makes a vt10x that differs: %s", what, replayed)
	}
	if diff != "" {
		t.Fatalf("%s: thawed, vt10x differs: %s", what, diff)
	}
	if fa != fb {
		t.Fatalf("%s: thawed, the terminal's own state differs:\n%+v\nwant\n%+v", what, fa, fb)
	}
}

// same compares everything of the two terminals, a thawed first if it
// is retired.
func (r *retireRun) same(what string) {
	r.t.Helper()
	r.a.mu.Lock()
	r.a.peekLocked(func() {})
	r.a.mu.Unlock()
	sa, sb := stateOf(r.a), stateOf(r.b)
	if !reflect.DeepEqual(sa, sb) {
		r.t.Fatalf("%s: the terminal retired on the way differs:\n%s", what, stateDiff(sa, sb))
	}
	r.a.mu.Lock()
	r.b.mu.Lock()
	ia, _ := vtInnerOf(r.a.vt)
	ib, _ := vtInnerOf(r.b.vt)
	diff := innerDiff(&ia, &ib)
	fa, fb := termFieldsOf(r.a), termFieldsOf(r.b)
	r.a.mu.Unlock()
	r.b.mu.Unlock()
	if diff != "" {
		r.t.Fatalf("%s: vt10x of the terminal retired on the way differs: %s", what, diff)
	}
	if fa != fb {
		r.t.Fatalf("%s: the terminal retired on the way differs:\n%+v\nwant\n%+v", what, fa, fb)
	}
}

// play writes s in pieces of random size (1 byte to max), cutting after
// each, and compares at the end.
func (r *retireRun) play(name string, s []byte, rng *rand.Rand, max int) {
	r.t.Helper()
	what := ""
	for i, at := 0, 0; at < len(s); i++ {
		n := min(1+rng.Intn(max), len(s)-at)
		r.write(s[at : at+n])
		at += n
		if i%2 == 1 {
			// The cut before left it retired, and this write thawed it.
			r.same(what + ", then the next write")
		}
		what = fmt.Sprintf("%s, cut at byte %d of %d", name, at, len(s))
		r.cut(what, i%2 == 1)
	}
	r.same(name + ", at the end")
}

// allRetireStreams are the streams of the fast path's tests, the
// benchmark's, the programs' shapes, bench/corpus's recordings and
// stateStreams, each with the sizes to play it at.
func allRetireStreams(t testing.TB) map[string]struct {
	b          []byte
	cols, rows int
} {
	out := map[string]struct {
		b          []byte
		cols, rows int
	}{}
	add := func(name string, s []byte, sizes ...[2]int) {
		for _, sz := range sizes {
			if raceBuild && sz[0]*sz[1] > 80*24 {
				// The race detector's build is far slower; without it
				// every stream plays at every size.
				continue
			}
			out[fmt.Sprintf("%s at %dx%d", name, sz[0], sz[1])] = struct {
				b          []byte
				cols, rows int
			}{s, sz[0], sz[1]}
		}
	}
	small, big := [2]int{40, 10}, [2]int{200, 50}
	for name, s := range fastStreams() {
		add(name, []byte(s), small, big)
	}
	for name, s := range programStreams() {
		add(name, []byte(s), small, big)
	}
	for name, s := range stateStreams() {
		add(name, []byte(s), small, [2]int{80, 24})
	}
	for name, s := range benchStreams() {
		add("bench-"+name, s[:min(len(s), scaled(48<<10))], big)
	}
	all, err := corpus.All()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range all {
		raw, err := s.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		add("corpus-"+s.Name, raw[:min(len(raw), scaled(64<<10))], [2]int{s.Cols, s.Rows})
	}
	return out
}

// A live pane retires whenever its output goes quiet and thaws at its next
// byte: cut anywhere in a stream, retired and thawed, it must go on exactly
// as one never retired, in everything vt10x holds (the hidden screen, the
// saved cursor, the region, the tab stops, a pending wrap, the pen and
// character set, the modes) and everything of this package's.
func TestRetireAnywhere(t *testing.T) {
	streams := allRetireStreams(t)
	retired, declined := 0, 0
	for name, s := range streams {
		rng := rand.New(rand.NewSource(int64(len(s.b))))
		r := newRetireRun(t, s.cols, s.rows)
		// Pieces about a thirtieth of the stream: some thirty cuts each
		// (eight under the race detector, whose build is far slower).
		cuts := 30
		if raceBuild {
			cuts = 8
		}
		r.play(name, s.b, rng, max(2, 2*len(s.b)/cuts))
		retired += r.retired
		declined += r.declined
		if testing.Verbose() && r.declined > 0 {
			t.Logf("%s: %d retired, %d declined", name, r.retired, r.declined)
		}
	}
	t.Logf("%d streams: %d cuts retired, %d declined", len(streams), retired, declined)
	if declined*20 > retired {
		t.Errorf("%d cuts retired, %d declined: a live pane's state should nearly always come back", retired, declined)
	}
}

// FuzzRetire cuts random input at random points, retiring and thawing at
// each, against a terminal never retired.
//
// Run: go test ./pane/term -run '^$' -fuzz FuzzRetire -fuzztime 5m
func FuzzRetire(f *testing.F) {
	for _, s := range stateStreams() {
		f.Add([]byte(s[:min(len(s), 3000)]), []byte{9, 200, 31, 77, 5}, uint8(30), uint8(8))
	}
	for _, s := range fastStreams() {
		f.Add([]byte(s[:min(len(s), 3000)]), []byte{40, 3, 90}, uint8(40), uint8(10))
	}
	if files, _ := filepath.Glob(filepath.Join("testdata", "corpus", "*.in")); len(files) > 0 {
		for _, file := range files {
			if b, err := os.ReadFile(file); err == nil {
				f.Add(b, []byte{200, 13, 77}, uint8(40), uint8(10))
			}
		}
	}
	f.Fuzz(func(t *testing.T, data, cuts []byte, cols, rows uint8) {
		r := newRetireRun(t, int(cols%120)+1, int(rows%40)+1)
		for i := 0; len(data) > 0; i++ {
			n := len(data)
			if i < len(cuts) {
				n = min(int(cuts[i])+1, len(data))
			}
			r.write(data[:n])
			data = data[n:]
			r.cut(fmt.Sprintf("cut %d", i), i%2 == 0)
		}
		r.same("at the end")
	})
}

// vtInnerOf reads what the pinned vt10x keeps unexported: the screens,
// the saved cursor, the region, the tab stops, the title; a new version
// that moved them makes Retire decline everything, and this fail.
func TestVTStateIsReadable(t *testing.T) {
	vt := vt10x.New(vt10x.WithSize(20, 6))
	_, _ = vt.Write([]byte("\x1b[?1049h\x1b[1;1Halt\x1b[3;5H\x1b[1;31m\x1b7\x1b[m\x1b[2;4r\x1b[3g\x1b[1;7H\x1bH\x1b]2;t\a"))
	s, ok := vtInnerOf(vt)
	if !ok {
		t.Fatal("vtInnerOf cannot read this vt10x")
	}
	if s.saved.X != 4 || s.saved.Y != 2 || s.saved.Attr.Mode&vtBold == 0 || s.saved.Attr.FG != 1 {
		t.Errorf("saved cursor %+v", s.saved)
	}
	if s.top != 1 || s.bottom != 3 {
		t.Errorf("region %d-%d, want 1-3", s.top, s.bottom)
	}
	var stops []int
	for x, on := range s.tabs {
		if on {
			stops = append(stops, x)
		}
	}
	if !reflect.DeepEqual(stops, []int{6}) || s.title != "t" || s.mode&vt10x.ModeAltScreen == 0 {
		t.Errorf("tabs %v, title %q, modes %#x", stops, s.title, s.mode)
	}
	if got := string([]rune{s.shown[0][0].Char, s.shown[0][1].Char, s.shown[0][2].Char}); got != "alt" {
		t.Errorf("the screen shown starts %q", got)
	}
	if s.hidden[0][0] != blankVTGlyph || len(s.hidden) != 6 || len(s.hidden[0]) != 20 {
		t.Errorf("the hidden screen: %d rows, %+v", len(s.hidden), s.hidden[0][0])
	}
}

// retiredScreens are what a quiet pane holds: a shell's prompt after 2000
// lines of text, and after 2000 lines of SGR-coloured words.
func retiredScreens() map[string][]byte {
	var text, sgr strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&text, "line %d of some text for the pane throughput benchmark, padded a little\r\n", i)
		fmt.Fprintf(&sgr, "\x1b[1;3%dmword\x1b[0m \x1b[38;5;%dmcoloured %d\x1b[m \x1b[7mreverse\x1b[27m and plain text\r\n", i%8, i%256, i)
	}
	prompt := "\x1b[1;32muser@host\x1b[0m:\x1b[1;34m~/src\x1b[0m$ "
	return map[string][]byte{"text": []byte(text.String() + prompt), "sgr": []byte(sgr.String() + prompt)}
}

// BenchmarkThaw is what the first write to a retired pane pays before it
// is taken in: a new vt10x written the retired state.
func BenchmarkThaw(b *testing.B) {
	for _, sz := range [][2]int{{200, 50}, {80, 24}} {
		for name, screen := range retiredScreens() {
			b.Run(fmt.Sprintf("%s_%dx%d", name, sz[0], sz[1]), func(b *testing.B) {
				tm := New(sz[0], sz[1], Options{})
				tm.Write(screen)
				tm.Trim()
				for b.Loop() {
					b.StopTimer()
					if !tm.Retire() {
						b.Fatal("not retired")
					}
					b.StartTimer()
					tm.mu.Lock()
					tm.peekLocked(func() {})
					tm.mu.Unlock()
				}
			})
		}
	}
}

// BenchmarkRetire is what a quiet pane pays to retire: its state read and
// packed, and the check in a scratch vt10x.
func BenchmarkRetire(b *testing.B) {
	for _, sz := range [][2]int{{200, 50}, {80, 24}} {
		for name, screen := range retiredScreens() {
			b.Run(fmt.Sprintf("%s_%dx%d", name, sz[0], sz[1]), func(b *testing.B) {
				tm := New(sz[0], sz[1], Options{})
				tm.Write(screen)
				tm.Trim()
				for b.Loop() {
					if !tm.Retire() {
						b.Fatal("not retired")
					}
					b.StopTimer()
					tm.mu.Lock()
					tm.peekLocked(func() {})
					tm.mu.Unlock()
					b.StartTimer()
				}
			})
		}
	}
}
