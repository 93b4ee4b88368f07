package toolexec

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrOutsideWorkspace is wrapped by the error for a path that resolves
// outside the workspace root.
var ErrOutsideWorkspace = errors.New("path is outside the workspace")

// target is a model-supplied path resolved for one call.
type target struct {
	real  string // absolute, with the symlinks it had when resolved
	shown string // how results name it: relative to the root when inside
	// rel is real relative to the workspace root ("." for the root itself)
	// when inside it, "" when outside (AllowOutside). Tools reach an inside
	// path through the root's directory descriptor with rel, never by real,
	// so a directory swapped for a symlink after resolve cannot lead the
	// access outside: see beneath.go.
	rel string
}

// resolve turns a model-supplied path (relative to the root, or absolute)
// into the target the tool will operate on: symlinks resolved, including
// those in the deepest existing parent of a file that does not exist yet, so a
// link inside the workspace cannot smuggle a write outside it. Errors quote
// at most a prefix of the path.
func (e *Executor) resolve(p string) (target, error) {
	if strings.TrimSpace(p) == "" {
		return target{}, errors.New("path is empty")
	}
	if strings.ContainsRune(p, 0) {
		return target{}, fmt.Errorf("path %s contains a NUL byte", quoteArg(p))
	}
	if strings.HasPrefix(p, "~/") || p == "~" {
		return target{}, fmt.Errorf("path %s: ~ is not expanded; give a path relative to the workspace root %s", quoteArg(p), e.root)
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(e.root, abs)
	}
	abs = filepath.Clean(abs)
	real, err := realPath(abs)
	if err != nil {
		return target{}, fmt.Errorf("path %s: %w", quoteArg(p), err)
	}
	t := target{real: real, shown: e.display(real)}
	if within(e.root, real) {
		t.rel = "."
		if real != e.root {
			t.rel = strings.TrimPrefix(real[len(e.root):], string(filepath.Separator))
		}
	} else if !e.AllowOutside {
		return target{}, fmt.Errorf("%w: %s resolves to %s, outside the workspace root %s", ErrOutsideWorkspace, quoteArg(p), real, e.root)
	}
	return t, nil
}

// realPath resolves symlinks in abs. For a path that does not exist, the
// deepest existing ancestor is resolved and the missing tail appended.
func realPath(abs string) (string, error) {
	tail := ""
	cur := abs
	for {
		r, err := filepath.EvalSymlinks(cur)
		if err == nil {
			if tail == "" {
				return r, nil
			}
			return filepath.Join(r, tail), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			// A dangling symlink in the middle (or a loop) lands here too: do
			// not guess where it points.
			if fi, lerr := os.Lstat(cur); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
				return "", fmt.Errorf("%s is a symlink that cannot be resolved: %w", cur, err)
			}
			return "", err
		}
		if fi, lerr := os.Lstat(cur); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			// A dangling symlink: writing through it would create its
			// target wherever it points, so resolve its target instead.
			target, rerr := os.Readlink(cur)
			if rerr != nil {
				return "", rerr
			}
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(cur), target)
			}
			r, rerr := realPath(filepath.Clean(target))
			if rerr != nil {
				return "", rerr
			}
			if tail == "" {
				return r, nil
			}
			return filepath.Join(r, tail), nil
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return abs, nil
		}
		tail = filepath.Join(filepath.Base(cur), tail)
		cur = parent
	}
}

// within reports whether p is root or below it; both are clean and absolute.
func within(root, p string) bool {
	if p == root {
		return true
	}
	if root == string(filepath.Separator) {
		return true
	}
	return strings.HasPrefix(p, root+string(filepath.Separator))
}

// display shows a real path relative to the root when it is inside.
func (e *Executor) display(real string) string {
	if real == e.root {
		return "."
	}
	if within(e.root, real) {
		return filepath.ToSlash(real[len(e.root)+1:])
	}
	return real
}
