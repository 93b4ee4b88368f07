package worktree

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
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

// Diff is what the worktree holds that its base branch does not, committed
// or not, files git does not track yet included (those it ignores are not):
// its changes since the commit From says.
func (w Worktree) Diff(ctx context.Context, opts DiffOptions) (Changes, error) {
	var ch Changes
	err := w.withIntents(ctx, false, func(r *review, from string) error {
		files, err := numstat(ctx, from, r)
		if err != nil {
			return err
		}
		ch.Files = files
		ch.Totals = sum(files)
		if !opts.Stat && !opts.Patch {
			return nil
		}
		args := append([]string{"-c", "core.quotePath=off"}, diffArgs...)
		args = append(args, "--no-color", "--src-prefix=a/", "--dst-prefix=b/")
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
		out, cut, err := r.gitLimited(ctx, MaxText+1, append(args, from, "--")...)
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

// diffArgs start every diff: no external diff program and no textconv
// (a review has no drivers to run, and these say so again), and submodules
// compared by the commit they are at, never by running git in them.
var diffArgs = []string{"diff", "--no-ext-diff", "--no-textconv", "--ignore-submodules=dirty"}

// Count is Diff's totals alone: what a border shows, every few seconds, so
// it reads the configuration at most every configTTL.
func (w Worktree) Count(ctx context.Context) (Totals, error) {
	var t Totals
	err := w.withIntents(ctx, true, func(r *review, from string) error {
		files, err := numstat(ctx, from, r)
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

// numstat runs git diff --numstat against from and reads its -z output:
// "ADDED\tDELETED\tPATH\0", or for a rename "ADDED\tDELETED\t\0FROM\0TO\0";
// a binary file has "-" for both counts.
func numstat(ctx context.Context, from string, r *review) ([]FileStat, error) {
	out, err := r.git(ctx, append(append([]string{}, diffArgs...), "--numstat", "-z", from, "--")...)
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
		f := FileStat{Path: parts[2], Binary: parts[0] == "-" && parts[1] == "-"}
		if !f.Binary {
			var errA, errD error
			f.Added, errA = strconv.Atoi(parts[0])
			f.Deleted, errD = strconv.Atoi(parts[1])
			if errA != nil || errD != nil {
				return nil, fmt.Errorf("git diff --numstat: unexpected counts in %q", fields[i])
			}
		}
		if f.Path == "" && i+2 < len(fields) {
			f.Path = fields[i+1] + " => " + fields[i+2]
			i += 2
		}
		files = append(files, f)
	}
	return files, nil
}

// withIntents runs f over a review of the worktree (HEAD at from, the
// commit its changes count from, and the index a copy of the worktree's) in
// which every untracked file that is not ignored is marked intent-to-add, so
// `git diff FROM` shows new files as added. Marking intent-to-add hashes no
// file, so it runs no clean filter even where one were configured.
func (w Worktree) withIntents(ctx context.Context, cachedConfig bool, f func(r *review, from string) error) error {
	if w.Base == "" {
		return fmt.Errorf("%s: %w (no base commit)", w.Path, ErrNotWorktree)
	}
	from, err := w.From(ctx)
	if err != nil {
		return err
	}
	r, err := w.openReview(ctx, from, cachedConfig)
	if err != nil {
		return err
	}
	defer r.close()
	if _, err := r.git(ctx, "add", "--intent-to-add", "--all", "--", "."); err != nil {
		return err
	}
	return f(r, from)
}

// From is the commit the worktree's changes count from: the best common
// ancestor of its HEAD and of its base branch and base commit together
// (`git merge-base HEAD BRANCH BASE`). Until its commits reach the base
// branch that is the base commit; once they are merged there, by any merge
// that keeps them (a fast-forward, a merge commit), it is its HEAD, so only
// what is not in the base branch yet counts; the base branch reset to before
// the base changes nothing. A worktree with no base branch recorded (made
// from a detached HEAD, or by an older melmux), or whose base branch is
// gone, counts from its base commit.
func (w Worktree) From(ctx context.Context) (string, error) {
	if w.BaseBranch == "" {
		return w.Base, nil
	}
	out, err := git(ctx, w.Path, nil, "merge-base", "HEAD", "refs/heads/"+w.BaseBranch, w.Base)
	var exit *exec.ExitError
	switch {
	case saysAny(err, "Not a valid object name"):
		return w.Base, nil // the base branch was deleted
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		return w.Base, nil // no common ancestor: the branch was rewritten
	}
	if err != nil {
		return "", err
	}
	if from := strings.TrimSpace(out); from != "" {
		return from, nil
	}
	return w.Base, nil
}

// openReview is a review of the worktree with HEAD at head.
func (w Worktree) openReview(ctx context.Context, head string, cachedConfig bool) (*review, error) {
	admin, err := w.adminDir(ctx)
	if err != nil {
		return nil, err
	}
	common, err := w.commonDir(ctx)
	if err != nil {
		return nil, err
	}
	return openReview(ctx, w.Path, admin, common, head, cachedConfig)
}
