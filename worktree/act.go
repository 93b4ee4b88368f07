package worktree

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// What a person does with a worktree once its work is reviewed: commit it,
// merge its branch into the base branch, or remove it with its pane. Commit
// and Merge are the person's own git commands, asked for by name, so they
// run as git runs for a person: the repository's hooks (pre-commit,
// commit-msg, pre-merge-commit...) and filters run. Only reading a worktree
// (review.go) must never run them.

// Errors callers branch on; the errors returned wrap them with the details.
var (
	// ErrUncommitted: the worktree holds changes no commit has.
	ErrUncommitted = errors.New("holds uncommitted work")
	// ErrNothing: there is nothing to commit, or nothing to merge.
	ErrNothing = errors.New("nothing to do")
	// ErrRefused: Merge found the main checkout unfit (dirty, on another
	// branch, detached) or the merge conflicting, and merged nothing.
	ErrRefused = errors.New("refused")
)

// UncommittedList names the uncommitted paths of st for a person: the
// first few, and how many there are.
func (st State) UncommittedList() string {
	const shown = 5
	names := st.Changed
	more := ""
	if len(names) > shown {
		names, more = names[:shown], ", …"
	}
	return strings.Join(names, ", ") + more + " (" + plural(st.Uncommitted, "file") + " changed or untracked)"
}

// Committed is what Commit made.
type Committed struct {
	Commit string // the new commit
	Branch string // the branch it is on, "" when detached
	Files  int    // the paths it records
}

// Commit records every uncommitted change of the worktree, untracked files
// included (git add --all, then git commit -m message), as the person's own
// git commands. Nothing to commit is ErrNothing.
func (w Worktree) Commit(ctx context.Context, message string) (Committed, error) {
	if strings.TrimSpace(message) == "" {
		return Committed{}, errors.New("a commit needs a message: give one (it cannot be empty or only spaces)")
	}
	st, err := w.Status(ctx)
	if err != nil {
		return Committed{}, err
	}
	if st.Uncommitted == 0 {
		return Committed{}, fmt.Errorf("%w: %s has no uncommitted change", ErrNothing, w.Path)
	}
	if _, err := gitAsPerson(ctx, w.Path, "add", "--all"); err != nil {
		return Committed{}, err
	}
	if _, err := gitAsPerson(ctx, w.Path, "commit", "--quiet", "-m", message); err != nil {
		return Committed{}, err
	}
	head, err := git(ctx, w.Path, nil, "rev-parse", "--verify", "HEAD^{commit}")
	if err != nil {
		return Committed{}, err
	}
	c := Committed{Commit: strings.TrimSpace(head), Files: st.Uncommitted}
	c.Branch, err = currentBranch(ctx, w.Path)
	return c, err
}

// currentBranch is the branch checked out in the checkout at dir ("main"),
// "" when HEAD is detached.
func currentBranch(ctx context.Context, dir string) (string, error) {
	out, err := git(ctx, dir, nil, "symbolic-ref", "--quiet", "HEAD")
	if err != nil {
		if saysAny(err, "is not a symbolic ref") || isExit(err, 1) {
			return "", nil
		}
		return "", err
	}
	return strings.TrimPrefix(strings.TrimSpace(out), "refs/heads/"), nil
}

// Merged is what Merge did.
type Merged struct {
	Branch      string // the worktree's branch
	Into        string // the branch it went into, checked out in the main checkout
	Repo        string // the main checkout
	Commit      string // the main checkout's HEAD after the merge
	Commits     int    // the branch's commits it brought in
	FastForward bool   // the base branch only moved forward to the branch
}

// Merge merges the worktree's branch into its base branch, in the
// repository's main checkout, with `git merge --no-edit` run as the
// person's own command. It refuses (ErrRefused), merging nothing, when the
// worktree holds uncommitted work (a merge takes commits only), when the
// main checkout has another branch checked out than the base branch (or is
// detached, or has no work tree), when it has uncommitted changes to
// tracked files, and when the merge conflicts: that merge is aborted, and
// the main checkout is as it was. A branch already in the base branch is
// ErrNothing.
func (w Worktree) Merge(ctx context.Context) (Merged, error) {
	m := Merged{Repo: w.Repo}
	var err error
	if m.Branch, err = currentBranch(ctx, w.Path); err != nil {
		return m, err
	}
	if m.Branch == "" {
		return m, fmt.Errorf("%w: %s has no branch checked out (HEAD is detached): check one out there to merge it", ErrRefused, w.Path)
	}
	st, err := w.Status(ctx)
	if err != nil {
		return m, err
	}
	if st.Uncommitted > 0 {
		return m, fmt.Errorf("%w: %s %v: %s; commit it first (a merge takes commits only)", ErrRefused, w.Path, ErrUncommitted, st.UncommittedList())
	}
	if out, err := git(ctx, w.Repo, nil, "rev-parse", "--is-bare-repository"); err != nil || strings.TrimSpace(out) == "true" {
		if err != nil {
			return m, err
		}
		return m, fmt.Errorf("%w: the repository %s is bare: it has no checkout to merge into", ErrRefused, w.Repo)
	}
	if m.Into, err = currentBranch(ctx, w.Repo); err != nil {
		return m, err
	}
	switch {
	case m.Into == "":
		return m, fmt.Errorf("%w: the main checkout %s has no branch checked out (HEAD is detached): check out %s there first", ErrRefused, w.Repo, orWord(w.BaseBranch, "the branch to merge into"))
	case w.BaseBranch != "" && m.Into != w.BaseBranch:
		return m, fmt.Errorf("%w: the main checkout %s has %s checked out, not %s, the branch %s was made from: check out %s there first", ErrRefused, w.Repo, m.Into, w.BaseBranch, m.Branch, w.BaseBranch)
	}
	n, err := git(ctx, w.Repo, nil, "rev-list", "--count", "refs/heads/"+m.Into+"..refs/heads/"+m.Branch)
	if err != nil {
		return m, err
	}
	if m.Commits, err = strconv.Atoi(strings.TrimSpace(n)); err != nil {
		return m, fmt.Errorf("git rev-list --count: unexpected count %q", strings.TrimSpace(n))
	}
	if m.Commits == 0 {
		return m, fmt.Errorf("%w: %s has no commit that %s lacks", ErrNothing, m.Branch, m.Into)
	}
	dirty, err := git(ctx, w.Repo, nil, "status", "--porcelain", "-z", "--untracked-files=no", "--ignore-submodules=all")
	if err != nil {
		return m, err
	}
	recs, err := statusRecords(dirty)
	if err != nil {
		return m, err
	}
	if len(recs) > 0 {
		main := State{Uncommitted: len(recs)}
		for _, r := range recs {
			main.Changed = append(main.Changed, r[3:])
		}
		return m, fmt.Errorf("%w: the main checkout %s has uncommitted changes: %s; commit or stash them first", ErrRefused, w.Repo, main.UncommittedList())
	}
	tip, err := git(ctx, w.Repo, nil, "rev-parse", "--verify", "refs/heads/"+m.Branch+"^{commit}")
	if err != nil {
		return m, err
	}
	if _, err := gitAsPerson(ctx, w.Repo, "merge", "--no-edit", "--quiet", "refs/heads/"+m.Branch); err != nil {
		return m, w.mergeFailed(context.WithoutCancel(ctx), m, err)
	}
	head, err := git(ctx, w.Repo, nil, "rev-parse", "--verify", "HEAD^{commit}")
	if err != nil {
		return m, err
	}
	m.Commit = strings.TrimSpace(head)
	m.FastForward = m.Commit == strings.TrimSpace(tip)
	return m, nil
}

// mergeFailed is the error of a `git merge` that failed: one that stopped
// on conflicts is aborted, putting the main checkout back as it was (it was
// clean), and the error names the conflicting files.
func (w Worktree) mergeFailed(ctx context.Context, m Merged, merr error) error {
	out, err := git(ctx, w.Repo, nil, "diff", "--name-only", "--diff-filter=U", "-z")
	if err != nil {
		return merr
	}
	var files []string
	for _, f := range strings.Split(out, "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		return fmt.Errorf("merge %s into %s: %w", m.Branch, m.Into, merr)
	}
	shown := files
	if len(shown) > 5 {
		shown = append(shown[:5:5], "…")
	}
	what := fmt.Sprintf("merging %s into %s conflicts in %s (%s)", m.Branch, m.Into, strings.Join(shown, ", "), plural(len(files), "file"))
	if _, err := git(ctx, w.Repo, nil, "merge", "--abort"); err != nil {
		return fmt.Errorf("%w: %s, and `git merge --abort` failed, so the main checkout %s is mid-merge: %v", ErrRefused, what, w.Repo, err)
	}
	return fmt.Errorf("%w: %s; nothing was merged and the main checkout is as it was: merge it by hand in %s (git merge %s) to resolve them", ErrRefused, what, w.Repo, m.Branch)
}

func orWord(s, otherwise string) string {
	if s == "" {
		return otherwise
	}
	return s
}

// Retired is what Retire did with the worktree's branch.
type Retired struct {
	Branch     string // the branch the worktree had checked out, "" when detached
	BranchKept bool
	Why        string // why the branch stays, for a person
	Lost       int    // uncommitted paths removed with it (force)
}

// Retire removes the worktree for good, for a pane that is done with it,
// when it holds no uncommitted work (changed, staged or untracked files):
// else ErrUncommitted naming them, unless force, which loses them (and
// removes one with submodules, whose work melmux does not judge). Its
// branch is deleted when its commits are all in the main checkout's branch
// (or it has none); otherwise it stays, keeping them, and Why says so.
func (w Worktree) Retire(ctx context.Context, force bool) (Retired, error) {
	var r Retired
	st, err := w.Status(ctx)
	if err != nil {
		return r, err
	}
	if !force {
		if st.Uncommitted > 0 {
			return r, fmt.Errorf("%s %w: %s", w.Path, ErrUncommitted, st.UncommittedList())
		}
		if st.Submodules > 0 {
			return r, fmt.Errorf("%s has submodules, whose work melmux does not judge", w.Path)
		}
	}
	r.Lost = st.Uncommitted
	if r.Branch, err = currentBranch(ctx, w.Path); err != nil {
		return r, err
	}
	if _, err := git(ctx, w.Repo, nil, "worktree", "remove", "--force", w.Path); err != nil {
		return r, err
	}
	// Best effort: another repository's worktrees may share the directory.
	_ = os.Remove(filepath.Dir(w.Path))
	switch {
	case r.Branch == "":
		return r, nil
	case !strings.HasPrefix(r.Branch, BranchPrefix):
		r.BranchKept, r.Why = true, "not a branch melmux made"
		return r, nil
	case st.Commits > 0 && !st.Merged:
		r.BranchKept, r.Why = true, fmt.Sprintf("%s not merged into %s", plural(st.Commits, "commit"), st.MainHead)
		return r, nil
	}
	// Deleted only if it did not move meanwhile: its tip is known to be safe.
	if _, err := git(ctx, w.Repo, nil, "update-ref", "-d", "refs/heads/"+r.Branch, st.Head); err != nil {
		r.BranchKept, r.Why = true, "it could not be deleted: "+err.Error()
	}
	return r, nil
}

// List is every worktree made by Add under root, in path order: those of
// the repository whose main checkout is repo, or of every repository when
// repo is "". A directory Open refuses (a half-made worktree, anything
// else) is left out: Clean says what each of those is.
func List(ctx context.Context, root, repo string) ([]Worktree, error) {
	dirs, _, err := scan(root)
	if err != nil {
		return nil, err
	}
	sort.Strings(dirs)
	var out []Worktree
	for _, d := range dirs {
		if repo != "" && filepath.Dir(d) != repoDir(root, repo) {
			continue
		}
		w, err := Open(ctx, d)
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, ErrNoGit) {
				return nil, err
			}
			continue
		}
		if repo == "" || w.Repo == repo {
			out = append(out, w)
		}
	}
	return out, nil
}

// MainCheckout is the main checkout of the repository holding dir (its git
// directory, for a bare one): what List takes.
func MainCheckout(ctx context.Context, dir string) (string, error) {
	r, err := findRepo(ctx, dir)
	if err != nil {
		return "", err
	}
	return r.main, nil
}
