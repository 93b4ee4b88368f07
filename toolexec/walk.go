package toolexec

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
	"golang.org/x/sys/unix"
)

// ignoreRule is one pattern line of a .gitignore file.
type ignoreRule struct {
	pattern  string // doublestar pattern, relative to the file's directory
	negate   bool   // "!pattern": re-include
	dirOnly  bool   // "pattern/": directories only
	anchored bool   // contains a slash: matched against the path, not the name
}

// ignoreSet is the rules of one .gitignore file and the directory they are
// relative to; sets chain to their parent directory's, deepest first, so the
// closest file decides as git does.
type ignoreSet struct {
	dir    string // absolute; patterns match paths relative to it
	rules  []ignoreRule
	parent *ignoreSet
}

// parseIgnore reads gitignore syntax. Patterns doublestar cannot parse are
// dropped rather than guessed at.
func parseIgnore(data []byte) []ignoreRule {
	var rules []ignoreRule
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if line == "" || line[0] == '#' {
			continue
		}
		// Trailing spaces are dropped unless escaped with a backslash.
		for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, `\ `) {
			line = line[:len(line)-1]
		}
		if line == "" {
			continue
		}
		var r ignoreRule
		if line[0] == '!' {
			r.negate = true
			line = line[1:]
		} else if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") {
			r.dirOnly = true
			line = strings.TrimRight(line, "/")
		}
		if strings.HasPrefix(line, "/") {
			r.anchored = true
			line = strings.TrimLeft(line, "/")
		}
		if strings.Contains(line, "/") {
			r.anchored = true
		}
		if line == "" {
			continue
		}
		// gitignore has no brace alternatives; make them literal for doublestar.
		line = strings.NewReplacer("{", `\{`, "}", `\}`).Replace(line)
		if !doublestar.ValidatePattern(line) {
			continue
		}
		r.pattern = line
		rules = append(rules, r)
	}
	return rules
}

// ignored reports whether the entry at abs (name is its last element) is
// excluded by the chain of ignore sets.
func (s *ignoreSet) ignored(abs, name string, isDir bool) bool {
	for ; s != nil; s = s.parent {
		if len(abs) <= len(s.dir) {
			continue
		}
		rel := ""
		for i := len(s.rules) - 1; i >= 0; i-- {
			r := &s.rules[i]
			if r.dirOnly && !isDir {
				continue
			}
			target := name
			if r.anchored {
				if rel == "" {
					rel = filepath.ToSlash(strings.TrimPrefix(abs[len(s.dir):], string(filepath.Separator)))
				}
				target = rel
			}
			if ok, _ := doublestar.Match(r.pattern, target); ok {
				return !r.negate
			}
		}
	}
	return false
}

func loadIgnoreFile(dir string, parent *ignoreSet, names ...string) *ignoreSet {
	var rules []ignoreRule
	for _, n := range names {
		data, status := readSmallFile(filepath.Join(dir, n), nil)
		if status != fileOK {
			continue
		}
		rules = append(rules, parseIgnore(data)...)
	}
	return withRules(dir, parent, rules)
}

func withRules(dir string, parent *ignoreSet, rules []ignoreRule) *ignoreSet {
	if len(rules) == 0 {
		return parent
	}
	return &ignoreSet{dir: dir, rules: rules, parent: parent}
}

// gitTop returns the nearest directory at or above dir holding .git, or "".
func gitTop(dir string) string {
	for cur := dir; ; {
		if _, err := os.Lstat(filepath.Join(cur, ".git")); err == nil {
			return cur
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return ""
		}
		cur = parent
	}
}

// rootIgnores gathers the ignore rules that apply above the walk's root: the
// repository's .git/info/exclude and the .gitignore files between the
// repository top and the root, so a workspace that is a subdirectory of a
// repository ignores what git would.
func rootIgnores(root string) *ignoreSet {
	top := gitTop(root)
	if top == "" {
		return nil
	}
	set := loadIgnoreFile(top, nil, filepath.Join(".git", "info", "exclude"))
	if top == root {
		return set
	}
	rel, err := filepath.Rel(top, root)
	if err != nil || strings.HasPrefix(rel, "..") {
		return set
	}
	dir := top
	set = loadIgnoreFile(dir, set, ".gitignore")
	parts := strings.Split(rel, string(filepath.Separator))
	for _, p := range parts[:len(parts)-1] {
		dir = filepath.Join(dir, p)
		set = loadIgnoreFile(dir, set, ".gitignore")
	}
	return set
}

// walkJob is a directory still to be read.
type walkJob struct {
	abs, rel string
	ignores  *ignoreSet
}

// walker lists a tree in parallel: workers pop directories from a shared
// stack, read them, push subdirectories and hand every other entry to visit.
//
// Each directory is opened beneath a descriptor of the root without
// following any symlink (openDirBeneath) and its files are handed over with
// that directory's descriptor, so a directory swapped for a symlink while
// the walk runs cannot take it outside the root.
type walker struct {
	visit func(worker int, dir int, name, rel string, typ fs.FileMode)
	// enterDir, when set, prunes directories (rel path) that cannot hold a
	// wanted entry.
	enterDir func(rel string) bool
	rootFd   int // the root, opened once for the walk

	mu      sync.Mutex // guards queue and pending
	cond    *sync.Cond // signalled when queue grows or pending reaches 0
	queue   []walkJob
	pending int // directories queued or being read
}

// walkTree visits every non-directory entry under root not excluded by
// .gitignore, skipping .git directories and not following symlinks. visit
// runs concurrently on up to workers goroutines, identified by index, and
// gets the entry's directory as a descriptor (valid during the call) and
// its name there, and its path relative to root.
func walkTree(ctx context.Context, root string, workers int, enterDir func(string) bool,
	visit func(worker int, dir int, name, rel string, typ fs.FileMode)) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	rootFd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("opening %s: %w", root, err)
	}
	defer unix.Close(rootFd)
	w := &walker{visit: visit, enterDir: enterDir, rootFd: rootFd}
	w.cond = sync.NewCond(&w.mu)
	w.queue = append(w.queue, walkJob{abs: root, rel: "", ignores: rootIgnores(root)})
	w.pending = 1
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func(id int) {
			defer wg.Done()
			w.work(ctx, id)
		}(i)
	}
	wg.Wait()
	return nil
}

func (w *walker) work(ctx context.Context, id int) {
	for {
		job, ok := w.take()
		if !ok {
			return
		}
		var subdirs []walkJob
		if ctx.Err() == nil {
			subdirs = w.readDir(id, job)
		}
		w.done(subdirs)
	}
}

// take waits for a directory to read and takes it; false once none is
// queued and none is being read, so none will be.
func (w *walker) take() (walkJob, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for len(w.queue) == 0 && w.pending > 0 {
		w.cond.Wait()
	}
	if len(w.queue) == 0 {
		return walkJob{}, false
	}
	job := w.queue[len(w.queue)-1]
	w.queue = w.queue[:len(w.queue)-1]
	return job, true
}

// done queues the subdirectories a read directory holds and counts that
// one read, waking the workers waiting in take when there is news.
func (w *walker) done(subdirs []walkJob) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.queue = append(w.queue, subdirs...)
	w.pending += len(subdirs) - 1
	if w.pending == 0 || len(subdirs) > 0 {
		w.cond.Broadcast()
	}
}

func (w *walker) readDir(id int, job walkJob) []walkJob {
	rel := job.rel
	if rel == "" {
		rel = "."
	}
	fd, err := openDirBeneath(w.rootFd, rel)
	if err != nil {
		return nil // gone, unreadable, or no longer a directory beneath the root
	}
	f := os.NewFile(uintptr(fd), job.abs)
	defer f.Close()
	entries, _ := f.ReadDir(-1)
	ignores := job.ignores
	for _, d := range entries {
		if d.Name() == ".gitignore" && d.Type().IsRegular() {
			if data, status := readSmallFileAt(fd, ".gitignore", nil); status == fileOK {
				ignores = withRules(job.abs, ignores, parseIgnore(data))
			}
			break
		}
	}
	var subdirs []walkJob
	for _, d := range entries {
		name := d.Name()
		typ := d.Type()
		abs := job.abs + string(filepath.Separator) + name
		rel := name
		if job.rel != "" {
			rel = job.rel + "/" + name
		}
		if typ.IsDir() {
			if name == ".git" {
				continue
			}
			if ignores != nil && ignores.ignored(abs, name, true) {
				continue
			}
			if w.enterDir != nil && !w.enterDir(rel) {
				continue
			}
			subdirs = append(subdirs, walkJob{abs: abs, rel: rel, ignores: ignores})
			continue
		}
		if ignores != nil && ignores.ignored(abs, name, false) {
			continue
		}
		if isWriteTemp(name) {
			continue // left by a write that was killed; its content is a partial copy
		}
		w.visit(id, fd, name, rel, typ)
	}
	return subdirs
}

// isWriteTemp recognises writeAtomicAt's temporary files.
func isWriteTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, writeTempMarker)
}
