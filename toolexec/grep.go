package toolexec

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"regexp/syntax"
	"runtime"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// Limits of grep, as its description promises.
const (
	grepMaxMatches   = 250
	grepMaxLineBytes = 300
	grepMaxFileBytes = 8 << 20
)

// matcher finds the lines of a buffer that a pattern matches. It chooses the
// cheapest exact method once per pattern: a plain literal is found with
// bytes.Index alone; a pattern with a literal every match must contain uses
// bytes.Index to find candidate lines and the regexp only on those; anything
// else runs a multi-line form of the regexp over the whole buffer and checks
// each hit against its line. No method allocates per line.
type matcher struct {
	line    *regexp.Regexp // the pattern as given: the judge of a line
	whole   *regexp.Regexp // (?m) form for whole-buffer scanning
	literal []byte         // a substring every match contains, or nil
	pure    bool           // the pattern is exactly literal
}

func newMatcher(pattern string) (*matcher, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, err
	}
	m := &matcher{line: re}
	tree, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, err
	}
	tree = tree.Simplify()
	if tree.Op == syntax.OpLiteral && tree.Flags&syntax.FoldCase == 0 {
		m.literal = []byte(string(tree.Rune))
		m.pure = !bytes.ContainsRune(m.literal, '\n')
	} else if lit := requiredLiteral(tree); len(lit) >= 2 && !strings.Contains(lit, "\n") {
		m.literal = []byte(lit)
	}
	if m.literal == nil {
		m.whole, err = regexp.Compile("(?m:" + pattern + ")")
		if err != nil {
			// The wrapped form should always compile; fall back to
			// line-by-line matching if it somehow does not.
			m.whole = nil
		}
	}
	return m, nil
}

// requiredLiteral returns the longest case-sensitive literal that every
// match of re must contain, or "".
func requiredLiteral(re *syntax.Regexp) string {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return ""
		}
		return string(re.Rune)
	case syntax.OpCapture:
		return requiredLiteral(re.Sub[0])
	case syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		best := ""
		for _, sub := range re.Sub {
			if l := requiredLiteral(sub); len(l) > len(best) {
				best = l
			}
		}
		return best
	}
	return ""
}

// lineSpan is one matching line: its number and byte range in the buffer.
type lineSpan struct {
	no         int
	start, end int
}

// scan appends the matching lines of buf to out.
func (m *matcher) scan(buf []byte, out []lineSpan) []lineSpan {
	lineNo := 1  // number of the line starting at counted
	counted := 0 // offset up to which newlines have been counted
	pos := 0     // where the next search starts
	for pos < len(buf) {
		var hit int
		switch {
		case m.literal != nil:
			i := bytes.Index(buf[pos:], m.literal)
			if i < 0 {
				return out
			}
			hit = pos + i
		case m.whole != nil:
			loc := m.whole.FindIndex(buf[pos:])
			if loc == nil {
				return out
			}
			hit = pos + loc[0]
		default:
			hit = pos
		}
		start := bytes.LastIndexByte(buf[:hit], '\n') + 1
		end := bytes.IndexByte(buf[hit:], '\n')
		if end < 0 {
			end = len(buf)
		} else {
			end += hit
		}
		line := buf[start:end]
		if m.pure || m.line.Match(line) {
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
}

func (e *Executor) grep(ctx context.Context, a args) Result {
	pattern := a.str("pattern")
	if pattern == "" {
		return errResult("grep: pattern is empty; give an RE2 regular expression such as func \\w+Error")
	}
	m, err := newMatcher(pattern)
	if err != nil {
		return errResult("grep: invalid RE2 pattern %q: %v (Go regexp syntax; escape literal metacharacters with \\)",
			pattern, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	c, err := grepTree(ctx, e.root, m, 0)
	if err != nil {
		return errResult("grep: %v", err)
	}
	return Result{Text: c.format(pattern)}
}

// grepTree searches every file under root with m.
func grepTree(ctx context.Context, root string, m *matcher, workers int) (*grepCollector, error) {
	c := &grepCollector{}
	nw := workers
	if nw <= 0 {
		nw = defaultWorkers()
	}
	ws := make([]grepWorker, nw)
	walkTree(ctx, root, nw, nil, func(id int, abs, rel string, typ fs.FileMode) {
		if !typ.IsRegular() {
			return // symlinks are not followed; their targets are searched where they live
		}
		w := &ws[id]
		buf, status := readSmallFile(abs, w.buf)
		w.buf = buf[:0]
		switch status {
		case fileHuge:
			c.mu.Lock()
			c.huge++
			c.mu.Unlock()
			return
		case fileUnreadable:
			c.mu.Lock()
			c.unread++
			c.mu.Unlock()
			return
		}
		head := buf
		if len(head) > sniffLen {
			head = head[:sniffLen]
		}
		if bytes.IndexByte(head, 0) >= 0 {
			c.mu.Lock()
			c.binary++
			c.mu.Unlock()
			return
		}
		w.spans = m.scan(buf, w.spans[:0])
		c.add(rel, buf, w.spans)
	})
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("search stopped: %w", err)
	}
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
	f, err := os.Open(path)
	if err != nil {
		return buf, fileUnreadable
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return buf, fileUnreadable
	}
	size := fi.Size()
	if size > grepMaxFileBytes {
		return buf, fileHuge
	}
	if int64(cap(buf)) < size+1 {
		buf = make([]byte, 0, size+512)
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
		k, err := f.Read(buf[n:])
		n += k
		if err == io.EOF {
			return buf[:n], fileOK
		}
		if err != nil {
			return buf[:0], fileUnreadable
		}
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
		fmt.Fprintf(&b, "no matches for %q in %d files searched%s\n", pattern, c.searched, skipNote)
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
