package worktree

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// MaxText bounds the text Diff returns (2 MiB); past it the text is cut at
// a line's end and Changes.Truncated says so.
const MaxText = 2 << 20

// FileStat is what one file gained and lost. Binary files count no lines.
type FileStat struct {
	Path    string `json:"path"`
	Added   int    `json:"added"`
	Deleted int    `json:"deleted"`
	Binary  bool   `json:"binary,omitempty"`
}

// Totals sums the changes of a worktree since its base.
type Totals struct {
	Files   int `json:"files"`
	Added   int `json:"added"`
	Deleted int `json:"deleted"`
}

// Changes is a worktree's diff against its base: per file, in total, and as
// text.
type Changes struct {
	Totals
	Files     []FileStat
	Text      string // git's --stat and/or patch, as asked
	Truncated bool   // Text was cut at MaxText
}

// DiffOptions says what text Diff produces: the summary of files (git's
// --stat, StatWidth columns wide, 80 when 0), the patch, or both (the summary
// first). Neither gives no text, only the counts.
type DiffOptions struct {
	Stat      bool
	Patch     bool
	StatWidth int
}

// Diff is what the worktree changed since it was made, committed or not,
// files git does not track yet included (those it ignores are not).
func (w Worktree) Diff(ctx context.Context, opts DiffOptions) (Changes, error) {
	var ch Changes
	err := w.withIntents(ctx, func(env []string) error {
		files, err := numstat(ctx, w, env)
		if err != nil {
			return err
		}
		ch.Files = files
		ch.Totals = sum(files)
		if !opts.Stat && !opts.Patch {
			return nil
		}
		args := []string{"-c", "core.quotePath=off", "diff", "--no-color", "--no-ext-diff", "--src-prefix=a/", "--dst-prefix=b/"}
		if opts.Stat {
			width := opts.StatWidth
			if width <= 0 {
				width = 80
			}
			args = append(args, "--stat="+strconv.Itoa(max(width, 40)))
		}
		if opts.Patch {
			args = append(args, "--patch")
		}
		out, cut, err := gitLimited(ctx, w.Path, env, MaxText+1, append(args, w.Base, "--")...)
		if err != nil {
			return err
		}
		if cut || len(out) > MaxText {
			out = out[:min(len(out), MaxText)]
			if i := strings.LastIndexByte(out, '\n'); i >= 0 {
				out = out[:i+1]
			}
			ch.Truncated = true
		}
		ch.Text = out
		return nil
	})
	return ch, err
}

// Count is Diff's totals alone: what a border shows.
func (w Worktree) Count(ctx context.Context) (Totals, error) {
	var t Totals
	err := w.withIntents(ctx, func(env []string) error {
		files, err := numstat(ctx, w, env)
		t = sum(files)
		return err
	})
	return t, err
}

func sum(files []FileStat) Totals {
	t := Totals{Files: len(files)}
	for _, f := range files {
		t.Added += f.Added
		t.Deleted += f.Deleted
	}
	return t
}

// numstat runs git diff --numstat against the base and reads its -z output:
// "ADDED\tDELETED\tPATH\0", or for a rename "ADDED\tDELETED\t\0FROM\0TO\0";
// a binary file has "-" for both counts.
func numstat(ctx context.Context, w Worktree, env []string) ([]FileStat, error) {
	out, err := git(ctx, w.Path, env, "diff", "--numstat", "-z", "--no-ext-diff", w.Base, "--")
	if err != nil {
		return nil, err
	}
	var files []FileStat
	fields := strings.Split(strings.TrimSuffix(out, "\x00"), "\x00")
	for i := 0; i < len(fields); i++ {
		if fields[i] == "" {
			continue
		}
		parts := strings.SplitN(fields[i], "\t", 3)
		if len(parts) != 3 {
			return nil, fmt.Errorf("git diff --numstat: unexpected %q", fields[i])
		}
		f := FileStat{Path: parts[2], Binary: parts[0] == "-"}
		f.Added, _ = strconv.Atoi(parts[0])
		f.Deleted, _ = strconv.Atoi(parts[1])
		if f.Path == "" && i+2 < len(fields) {
			f.Path = fields[i+1] + " => " + fields[i+2]
			i += 2
		}
		files = append(files, f)
	}
	return files, nil
}

// withIntents runs f with the environment of a throwaway index: a copy of
// the worktree's, with every untracked file that is not ignored marked
// intent-to-add, so `git diff BASE` shows new files as added.
func (w Worktree) withIntents(ctx context.Context, f func(env []string) error) error {
	if w.Base == "" {
		return fmt.Errorf("%s: %w (no base commit)", w.Path, ErrNotWorktree)
	}
	admin, err := w.adminDir(ctx)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp("", "melmux-index-*")
	if err != nil {
		return fmt.Errorf("diff: temporary index: %w", err)
	}
	defer os.Remove(tmp.Name())
	defer os.Remove(tmp.Name() + ".lock")
	copied, err := copyInto(tmp, filepath.Join(admin, "index"))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("diff: copy the worktree's index: %w", err)
	}
	env := []string{"GIT_INDEX_FILE=" + tmp.Name()}
	if !copied {
		// No index yet: start from HEAD's tree, as git would (into no file:
		// an empty one is not an index).
		os.Remove(tmp.Name())
		if _, err := git(ctx, w.Path, env, "read-tree", "HEAD"); err != nil {
			return err
		}
	}
	if _, err := git(ctx, w.Path, env, "add", "--intent-to-add", "--all", "--", "."); err != nil {
		return err
	}
	return f(env)
}

// copyInto copies the file at path into dst; a missing file copies nothing
// and reports false.
func copyInto(dst io.Writer, path string) (bool, error) {
	src, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer src.Close()
	_, err = io.Copy(dst, src)
	return err == nil, err
}
