package toolexec

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"regexp/syntax"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"unicode/utf8"

	"golang.org/x/sys/unix"
)

// Limits of grep, as its description promises.
const (
	grepMaxMatches   = 250
	grepMaxLineBytes = 300
	grepMaxFileBytes = 8 << 20
	// grepMaxInsts bounds the compiled pattern. The matcher's work per byte
	// can reach one unit per instruction; real patterns compile to a few
	// hundred at most (\w{1000} is 1002).
	grepMaxInsts = 10000
	// grepWorkBudget bounds a search's matching work, counted in pattern
	// instructions visited while building DFA states or stepping positions
	// after the DFA gave up (matchSlow); a cached transition costs nothing.
	// Searches with ordinary patterns use a tiny part of it; see
	// docs/cli.md.
	grepWorkBudget = 1 << 30
	// workBatch is how much work a worker does before charging the shared
	// budget (and seeing whether the search was cancelled).
	workBatch = 1 << 16
)

// errTooCostly is wrapped by grep's error when a pattern spent the whole
// work budget.
var errTooCostly = errors.New("the pattern is too costly to match")

// grepWork is one search's budget of matching work, shared by its workers.
type grepWork struct {
	ctx   context.Context
	left  atomic.Int64
	spent atomic.Bool // the budget ran out
}

func newGrepWork(ctx context.Context, budget int64) *grepWork {
	w := &grepWork{ctx: ctx}
	w.left.Store(budget)
	return w
}

// spend takes n units; false means stop: the budget is spent or the search
// was cancelled.
func (w *grepWork) spend(n int64) bool {
	if w.ctx.Err() != nil {
		return false
	}
	if w.left.Add(-n) < 0 {
		w.spent.Store(true)
		return false
	}
	return true
}

// matcher finds the lines of a buffer that a pattern matches. It chooses the
// cheapest exact method once per pattern: a plain literal is found with
// bytes.Index alone; a pattern with a literal every match must contain uses
// bytes.Index to find candidate lines and a lazy DFA to judge each one;
// anything else runs the DFA over the whole buffer, one table lookup per
// byte. No method allocates per line.
type matcher struct {
	re      *regexp.Regexp // the pattern as given, the reference for a line
	prog    *syntax.Prog   // compiled program the DFAs are built from
	literal []byte         // a substring every match contains, or nil
	pure    bool           // the pattern is exactly literal
	fold    bool           // literal is lower-case, to be found in a lower-cased copy
}

func newMatcher(pattern string) (*matcher, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, err
	}
	m := &matcher{re: re}
	tree, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, err
	}
	tree = tree.Simplify()
	if m.prog, err = syntax.Compile(tree); err != nil {
		return nil, err
	}
	if n := len(m.prog.Inst); n > grepMaxInsts {
		return nil, fmt.Errorf("%w: it compiles to %d instructions, over the limit of %d (counted repetitions such as {1000} multiply it)",
			errTooCostly, n, grepMaxInsts)
	}
	// A literal holding U+FFFD cannot be searched as bytes: the regexp
	// also matches it against invalid UTF-8.
	if tree.Op == syntax.OpLiteral && tree.Flags&syntax.FoldCase == 0 && !slices.Contains(tree.Rune, utf8.RuneError) {
		m.literal = []byte(string(tree.Rune))
		m.pure = !bytes.ContainsRune(m.literal, '\n')
	} else if lit, fold := requiredLiteralFold(tree, true); (len(lit) >= 2 && !fold || len(lit) >= 3) &&
		!strings.ContainsAny(lit, "\n\uFFFD") {
		m.literal, m.fold = []byte(lit), fold
	}
	return m, nil
}

// newDFA gives a worker its own DFA over the pattern.
func (m *matcher) newDFA() *lineDFA { return newLineDFA(m.prog) }

// requiredLiteralFold returns the longest case-sensitive literal that
// every match of re must contain, or ""; when fold is allowed it may
// instead return a case-folded literal (lower-cased, fold true) where no
// case-sensitive one exists.
func requiredLiteralFold(re *syntax.Regexp, allowFold bool) (string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase == 0 {
			return string(re.Rune), false
		}
		if allowFold && foldSafe(re.Rune) {
			return strings.ToLower(string(re.Rune)), true
		}
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiteralFold(re.Sub[0], allowFold)
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiteralFold(re.Sub[0], allowFold)
		}
	case syntax.OpConcat:
		best, bestFold := "", false
		for _, sub := range re.Sub {
			l, f := requiredLiteralFold(sub, allowFold)
			// An exact literal of two bytes or more beats any folded one.
			better := len(l) > len(best)
			if bestFold != f && len(best) >= 2 && len(l) >= 2 {
				better = !f
			}
			if better {
				best, bestFold = l, f
			}
		}
		return best, bestFold
	}
	return "", false
}

// foldSafe reports whether a case-insensitive literal can be found by
// lower-casing ASCII: only ASCII letters and no k or s, whose Unicode folds
// include the Kelvin sign and the long s.
func foldSafe(runes []rune) bool {
	for _, r := range runes {
		if r >= utf8.RuneSelf || r == '\n' {
			return false
		}
		switch r {
		case 'k', 'K', 's', 'S':
			return false
		}
	}
	return true
}

// lowerASCII[b] is b lower-cased if it is an ASCII capital.
var lowerASCII = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if i >= 'A' && i <= 'Z' {
			t[i] = byte(i) + 'a' - 'A'
		}
	}
	return t
}()

// toLowerASCII writes buf lower-cased (ASCII only, so offsets are kept)
// into dst, reusing its storage. It works eight bytes at a time: for bytes
// below 0x80, adding 0x3f sets the top bit from 'A' up and adding 0x25 from
// '[' up, so their difference marks exactly the capitals, whose 0x20 bit is
// then set; no addition can carry into the next byte.
func toLowerASCII(dst, buf []byte) []byte {
	if cap(dst) < len(buf) {
		dst = make([]byte, len(buf), len(buf)+len(buf)/4)
	}
	dst = dst[:len(buf)]
	const low7, high = 0x7f7f7f7f7f7f7f7f, 0x8080808080808080
	i := 0
	for ; i+8 <= len(buf); i += 8 {
		x := binary.LittleEndian.Uint64(buf[i:])
		y := x & low7
		capital := (y + 0x3f3f3f3f3f3f3f3f) &^ (y + 0x2525252525252525) &^ x & high
		binary.LittleEndian.PutUint64(dst[i:], x|capital>>2)
	}
	for ; i < len(buf); i++ {
		dst[i] = lowerASCII[buf[i]]
	}
	return dst
}

// lineSpan is one matching line: its number and byte range in the buffer.
type lineSpan struct {
	no         int
	start, end int
}

// scan appends the matching lines of buf to out, using d to judge lines
// and lower as scratch space for a case-folded search.
func (m *matcher) scan(buf []byte, out []lineSpan, d *lineDFA, lower *[]byte) []lineSpan {
	d.beginScan()
	if m.literal == nil {
		return d.scan(buf, out)
	}
	hay := buf
	if m.fold {
		*lower = toLowerASCII(*lower, buf)
		hay = *lower
	}
	lineNo := 1  // number of the line starting at counted
	counted := 0 // offset up to which newlines have been counted
	for pos := 0; pos < len(buf); {
		i := bytes.Index(hay[pos:], m.literal)
		if i < 0 {
			break
		}
		hit := pos + i
		start := bytes.LastIndexByte(buf[:hit], '\n') + 1
		end := bytes.IndexByte(buf[hit:], '\n')
		if end < 0 {
			end = len(buf)
		} else {
			end += hit
		}
		if d.stopped {
			break
		}
		d.lineBase = start
		if m.pure || d.matchLine(buf[start:end]) {
			lineNo += bytes.Count(buf[counted:start], []byte{'\n'})
			counted = start
			out = append(out, lineSpan{no: lineNo, start: start, end: end})
		}
		pos = end + 1
	}
	return out
}

// grepHit is one match kept for the result.
type grepHit struct {
	line int
	text string
}

type grepFile struct {
	rel  string
	hits []grepHit
}

// grepCollector gathers results from the walk's workers. Only the files that
// can still be among the first grepMaxMatches lines in path order keep their
// text, so a pattern matching millions of lines costs counting, not memory.
type grepCollector struct {
	mu        sync.Mutex // guards every field below
	files     []grepFile
	kept      int    // hits held in files
	threshold string // once set, files sorting after it keep no text
	total     int
	fileCount int
	binary    int
	huge      int
	unread    int
	searched  int
	work      int64 // units of the work budget spent, once the search is over
}

func (c *grepCollector) add(rel string, buf []byte, spans []lineSpan) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.searched++
	if len(spans) == 0 {
		return
	}
	c.total += len(spans)
	c.fileCount++
	if c.threshold != "" && rel > c.threshold {
		return
	}
	n := len(spans)
	if n > grepMaxMatches {
		n = grepMaxMatches
	}
	f := grepFile{rel: rel, hits: make([]grepHit, n)}
	for i, s := range spans[:n] {
		f.hits[i] = grepHit{line: s.no, text: clipLine(buf[s.start:s.end])}
	}
	c.files = append(c.files, f)
	c.kept += n
	if c.kept > 4*grepMaxMatches {
		c.pruneLocked()
	}
}

// count adds one to n, one of c's tallies of files not searched.
func (c *grepCollector) count(n *int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	*n++
}

// pruneLocked keeps the files holding the first grepMaxMatches hits in path
// order and raises the threshold to the last of them.
func (c *grepCollector) pruneLocked() {
	sort.Slice(c.files, func(i, j int) bool { return c.files[i].rel < c.files[j].rel })
	kept := 0
	for i, f := range c.files {
		kept += len(f.hits)
		if kept >= grepMaxMatches {
			c.files = c.files[:i+1]
			c.threshold = f.rel
			break
		}
	}
	c.kept = 0
	for _, f := range c.files {
		c.kept += len(f.hits)
	}
}

func clipLine(b []byte) string {
	b = bytes.TrimSuffix(b, []byte("\r"))
	cut := ""
	if len(b) > grepMaxLineBytes {
		n := grepMaxLineBytes
		for n > 0 && !utf8.RuneStart(b[n]) {
			n--
		}
		cut = fmt.Sprintf("… [%d more bytes]", len(b)-n)
		b = b[:n]
	}
	return string(bytes.ToValidUTF8(b, []byte("\uFFFD"))) + cut
}

// grepWorker holds one walk worker's reusable buffers.
type grepWorker struct {
	buf   []byte
	spans []lineSpan
	dfa   *lineDFA
	lower []byte
}

func (e *Executor) grep(ctx context.Context, a args) Result {
	pattern := a.str("pattern")
	if pattern == "" {
		return errResult("grep: pattern is empty; give an RE2 regular expression such as func \\w+Error")
	}
	m, err := newMatcher(pattern)
	if errors.Is(err, errTooCostly) {
		return errResult("grep: pattern %s: %v", quoteArg(pattern), err)
	}
	if err != nil {
		return errResult("grep: invalid RE2 pattern %s: %s (Go regexp syntax; escape literal metacharacters with \\)",
			quoteArg(pattern), clip(strings.TrimPrefix(err.Error(), "error parsing regexp: "), 160))
	}
	c, err := grepTree(ctx, e.root, m, 0)
	if err != nil {
		return errResult("grep: %v", err)
	}
	return Result{Text: c.format(pattern)}
}

// grepTree searches every file under root with m.
func grepTree(ctx context.Context, root string, m *matcher, workers int) (*grepCollector, error) {
	return grepTreeBudget(ctx, root, m, workers, grepWorkBudget)
}

// grepTreeBudget is grepTree with a given work budget.
func grepTreeBudget(ctx context.Context, root string, m *matcher, workers int, budget int64) (*grepCollector, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	work := newGrepWork(ctx, budget)
	c := &grepCollector{}
	nw := workers
	if nw <= 0 {
		nw = defaultWorkers()
	}
	ws := make([]grepWorker, nw)
	for i := range ws {
		ws[i].dfa = m.newDFA()
		ws[i].dfa.work = work
	}
	err := walkTree(ctx, root, nw, nil, func(id int, dir int, name, rel string, typ fs.FileMode) {
		if !typ.IsRegular() {
			return // symlinks are not followed; their targets are searched where they live
		}
		w := &ws[id]
		buf, status := readSmallFileAt(dir, name, w.buf)
		w.buf = buf[:0]
		switch status {
		case fileHuge:
			c.count(&c.huge)
			return
		case fileUnreadable:
			c.count(&c.unread)
			return
		}
		head := buf
		if len(head) > sniffLen {
			head = head[:sniffLen]
		}
		if bytes.IndexByte(head, 0) >= 0 {
			c.count(&c.binary)
			return
		}
		w.spans = m.scan(buf, w.spans[:0], w.dfa, &w.lower)
		if w.dfa.stopped {
			cancel() // the budget is spent: end the walk
			return
		}
		c.add(rel, buf, w.spans)
	})
	if err != nil {
		return nil, err
	}
	if work.spent.Load() {
		return nil, fmt.Errorf("%w: the search stopped after %d units of matching work (a unit is one step of the "+
			"matcher over one pattern instruction); make it simpler or more specific: fewer counted repetitions, "+
			"fewer nested alternatives, a literal word it must contain", errTooCostly, budget)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("search stopped: %w", err)
	}
	c.work = budget - work.left.Load()
	return c, nil
}

func defaultWorkers() int {
	n := runtime.GOMAXPROCS(0)
	if n < 2 {
		n = 2
	}
	return n
}

type fileStatus int

const (
	fileOK fileStatus = iota
	fileHuge
	fileUnreadable
)

// readSmallFile reads a whole file into buf (grown as needed) unless it is
// over grepMaxFileBytes.
func readSmallFile(path string, buf []byte) ([]byte, fileStatus) {
	return readSmallFileAt(unix.AT_FDCWD, path, buf)
}

// readSmallFileAt is readSmallFile of name in the directory dir. It uses
// the system calls directly: os.Open would also try to register each file
// with the network poller and set a finalizer, which for thousands of small
// files costs more than the read.
func readSmallFileAt(dir int, name string, buf []byte) ([]byte, fileStatus) {
	// O_NONBLOCK: a named pipe put in place of the file since the
	// directory was read must not block the open; fstat then refuses it.
	const flags = unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_NOCTTY
	fd, err := unix.Openat(dir, name, flags, 0)
	for err == unix.EINTR {
		fd, err = unix.Openat(dir, name, flags, 0)
	}
	if err != nil {
		return buf, fileUnreadable
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return buf, fileUnreadable
	}
	if st.Size > grepMaxFileBytes {
		return buf, fileHuge
	}
	if int64(cap(buf)) < st.Size+1 {
		buf = make([]byte, 0, st.Size+512)
	}
	buf = buf[:cap(buf)]
	n := 0
	for {
		if n == len(buf) {
			if n > grepMaxFileBytes {
				return buf[:0], fileHuge // grew while we read
			}
			buf = append(buf, 0)
			buf = buf[:cap(buf)]
		}
		k, err := syscall.Read(fd, buf[n:])
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return buf[:0], fileUnreadable
		case k == 0:
			return buf[:n], fileOK
		}
		n += k
	}
}

func (c *grepCollector) format(pattern string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pruneLocked()
	var b strings.Builder
	shown := 0
	for _, f := range c.files {
		for _, h := range f.hits {
			if shown == grepMaxMatches {
				break
			}
			fmt.Fprintf(&b, "%s:%d:%s\n", f.rel, h.line, h.text)
			shown++
		}
	}
	var skipped []string
	if c.binary > 0 {
		skipped = append(skipped, plural(c.binary, "binary file"))
	}
	if c.huge > 0 {
		skipped = append(skipped, plural(c.huge, "file")+fmt.Sprintf(" over %d MB", grepMaxFileBytes>>20))
	}
	if c.unread > 0 {
		skipped = append(skipped, plural(c.unread, "unreadable file"))
	}
	skipNote := ""
	if len(skipped) > 0 {
		skipNote = "; skipped " + strings.Join(skipped, ", ")
	}
	switch {
	case c.total == 0:
		fmt.Fprintf(&b, "no matches for %s in %d files searched%s\n", quoteArg(pattern), c.searched, skipNote)
	case shown < c.total:
		fmt.Fprintf(&b, "[showing %d of %d matching lines in %d files; %d files searched%s. Use a more specific pattern to see the rest]\n",
			shown, c.total, c.fileCount, c.searched, skipNote)
	case skipNote != "":
		fmt.Fprintf(&b, "[%d matching lines in %d files%s]\n", c.total, c.fileCount, skipNote)
	}
	return b.String()
}

// plural writes "1 file" or "3 files".
func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
