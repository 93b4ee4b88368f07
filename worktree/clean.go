package worktree

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// State is what Clean weighs before removing a worktree.
type State struct {
	Head        string   // the commit it has checked out
	Uncommitted int      // paths changed, staged or untracked (not ignored)
	Changed     []string // those paths, as git status names them
	Submodules  int      // submodules in its index: their work trees are not judged
	Commits     int      // commits on its HEAD since the base
	Merged      bool     // its HEAD is in the history of the main checkout's HEAD
	MainHead    string   // what the main checkout has checked out: a branch, or "HEAD" when detached
}

// Status reads the worktree's state through a review, so it runs no program
// the repository's configuration names. Anything git says that it cannot
// read is an error, never a zero.
func (w Worktree) Status(ctx context.Context) (State, error) {
	var st State
	head, err := git(ctx, w.Path, nil, "rev-parse", "--verify", "HEAD^{commit}")
	if err != nil {
		return st, err
	}
	st.Head = strings.TrimSpace(head)
	r, err := w.openReview(ctx, st.Head, false)
	if err != nil {
		return st, err
	}
	defer r.close()
	out, err := r.git(ctx, "status", "--porcelain", "-z", "--untracked-files=all", "--ignore-submodules=all")
	if err != nil {
		return st, err
	}
	recs, err := statusRecords(out)
	if err != nil {
		return st, err
	}
	st.Uncommitted = len(recs)
	for _, rec := range recs {
		st.Changed = append(st.Changed, rec[3:])
	}
	if st.Submodules, err = w.submodules(ctx, r); err != nil {
		return st, err
	}
	n, err := git(ctx, w.Path, nil, "rev-list", "--count", w.Base+".."+st.Head)
	if err != nil {
		return st, err
	}
	if st.Commits, err = strconv.Atoi(strings.TrimSpace(n)); err != nil || st.Commits < 0 {
		return st, fmt.Errorf("git rev-list --count %s..%s: unexpected count %q", short(w.Base), short(st.Head), strings.TrimSpace(n))
	}
	main, err := git(ctx, w.Repo, nil, "rev-parse", "--abbrev-ref", "HEAD")
	if err != nil {
		return st, err
	}
	st.MainHead = strings.TrimSpace(main)
	// main-worktree/HEAD is the main checkout's HEAD seen from a linked
	// worktree, where plain HEAD is the worktree's own.
	_, err = git(ctx, w.Path, nil, "merge-base", "--is-ancestor", st.Head, "main-worktree/HEAD")
	var exit *exec.ExitError
	switch {
	case err == nil:
		st.Merged = true
	case errors.As(err, &exit) && exit.ExitCode() == 1:
	default:
		return st, err
	}
	return st, nil
}

// statusRecords splits the output of `git status --porcelain -z` into its
// records, "XY PATH"; a rename's or copy's source path, which follows its
// record, is dropped. Anything else is an error.
func statusRecords(out string) ([]string, error) {
	var recs []string
	fields := strings.Split(strings.TrimSuffix(out, "\x00"), "\x00")
	for i := 0; i < len(fields); i++ {
		rec := fields[i]
		if rec == "" && len(fields) == 1 {
			break
		}
		if len(rec) < 4 || rec[2] != ' ' {
			return nil, fmt.Errorf("git status --porcelain: unexpected %q", rec)
		}
		recs = append(recs, rec)
		if strings.ContainsAny(rec[:2], "RC") {
			i++ // its source path
		}
	}
	return recs, nil
}

// submodules counts the submodules of the worktree as git's own `worktree
// remove` looks for them: a modules directory of its own, or gitlinks in
// its index (r's copy of it).
func (w Worktree) submodules(ctx context.Context, r *review) (int, error) {
	admin, err := w.adminDir(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	if fi, err := os.Stat(filepath.Join(admin, "modules")); err == nil && fi.IsDir() {
		n++
	}
	out, err := r.git(ctx, "ls-files", "--stage", "-z")
	if err != nil {
		return 0, err
	}
	for _, e := range strings.Split(out, "\x00") {
		if strings.HasPrefix(e, "160000 ") {
			n++
		}
	}
	return n, nil
}

// Outcome is what Clean did with one directory under the root.
type Outcome struct {
	Path     string
	Worktree *Worktree // nil when the directory is no worktree made by Add
	Removed  bool
	Why      string // why it was (or would be) removed, or kept, or left alone
}

// CleanOptions tune Clean.
type CleanOptions struct {
	// DryRun says what would be removed and removes nothing.
	DryRun bool
	// InUse names who works in a worktree ("pane 3 of session main"), or
	// returns "" when nobody does. A worktree in use is kept.
	InUse func(Worktree) string
}

// Clean removes the worktrees under root that hold nothing unsaved: no
// uncommitted or untracked change, and a branch with no commit of its own
// or merged into the main checkout's HEAD. A removed worktree's melmux/
// branch goes with it (its commits are all in the main checkout's history,
// or it has none). It also removes the half-made worktrees (see half.go)
// that hold nothing but their checkout, even those whose directory is gone.
// A worktree it cannot judge, for any error, is kept, and the outcome says
// why. Every directory gets an outcome saying what and why.
func Clean(ctx context.Context, root string, opts CleanOptions) ([]Outcome, error) {
	dirs, out, err := scan(root)
	if err != nil {
		return nil, err
	}
	opened := make([]*Worktree, len(dirs))
	openErr := make([]error, len(dirs))
	repos := map[string]string{} // main checkout → git directory
	for i, d := range dirs {
		w, err := Open(ctx, d)
		if err == nil {
			opened[i] = &w
			repos[w.Repo] = w.common
			continue
		}
		openErr[i] = err
		if main, common, ok := repoOfHalf(ctx, d); ok {
			repos[main] = common
		}
	}
	// Every worktree the repositories list under root, by path.
	listedAt := map[string]half{}
	var mains []string
	for main := range repos {
		mains = append(mains, main)
	}
	sort.Strings(mains)
	for _, main := range mains {
		all, err := listWorktrees(ctx, main)
		if err != nil {
			out = append(out, Outcome{Path: main, Why: "its worktrees could not be listed: " + err.Error()})
			continue
		}
		for _, l := range all {
			if p := samePath(l.path); strings.HasPrefix(p, samePath(root)+string(filepath.Separator)) {
				listedAt[p] = half{listed: l, main: main, common: repos[main]}
			}
		}
	}
	for i, d := range dirs {
		h, isListed := listedAt[samePath(d)]
		delete(listedAt, samePath(d))
		switch {
		case isListed && h.locked:
			out = append(out, cleanLocked(ctx, h, opened[i], opts))
		case opened[i] != nil:
			out = append(out, cleanOne(ctx, opened[i], opts))
		default:
			out = append(out, Outcome{Path: d, Why: openErr[i].Error()})
		}
	}
	// Half-made worktrees whose directory is gone.
	for p, h := range listedAt {
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) && h.locked {
			if stale, _ := staleLock(h.reason); stale {
				out = append(out, cleanLocked(ctx, h, nil, opts))
			}
		}
	}
	return out, nil
}

// scan lists the directories root/REPO/NAME; a REPO that cannot be read is
// an outcome.
func scan(root string) (dirs []string, out []Outcome, err error) {
	repos, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	for _, r := range repos {
		if !r.IsDir() {
			continue
		}
		ents, err := os.ReadDir(filepath.Join(root, r.Name()))
		if err != nil {
			out = append(out, Outcome{Path: filepath.Join(root, r.Name()), Why: err.Error()})
			continue
		}
		for _, e := range ents {
			if e.IsDir() {
				dirs = append(dirs, filepath.Join(root, r.Name(), e.Name()))
			}
		}
	}
	return dirs, out, nil
}

// repoOfHalf finds the repository of a directory that Open refused, from
// its own .git file (never from a repository above it).
func repoOfHalf(ctx context.Context, dir string) (main, common string, ok bool) {
	if fi, err := os.Lstat(filepath.Join(dir, ".git")); err != nil || !fi.Mode().IsRegular() {
		return "", "", false
	}
	out, err := git(ctx, dir, nil, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return "", "", false
	}
	common = strings.TrimSpace(out)
	main = common
	if filepath.Base(common) == ".git" {
		main = filepath.Dir(common)
	}
	return main, common, true
}

// cleanOne judges and, when it holds nothing unsaved, removes a worktree.
func cleanOne(ctx context.Context, w *Worktree, opts CleanOptions) Outcome {
	o := Outcome{Path: w.Path, Worktree: w}
	o.Removed, o.Why = w.verdict(ctx, opts)
	if o.Removed && !opts.DryRun {
		if err := w.Remove(ctx); err != nil {
			o.Removed, o.Why = false, "the removal failed: "+err.Error()
		}
	}
	return o
}

// cleanLocked is the outcome of a locked worktree: kept, unless it is
// half-made and holds nothing but its checkout.
func cleanLocked(ctx context.Context, h half, w *Worktree, opts CleanOptions) Outcome {
	stale, what := staleLock(h.reason)
	h.lock = what
	hw := h.worktree()
	if w == nil {
		w = &hw
	}
	o := Outcome{Path: h.path, Worktree: w}
	if !stale {
		o.Why = what
		return o
	}
	if opts.InUse != nil {
		if who := opts.InUse(*w); who != "" {
			o.Why = "half-made (" + what + ") but in use: " + who
			return o
		}
	}
	empty, why, err := h.holdsNothing(ctx)
	switch {
	case err != nil:
		o.Why = fmt.Sprintf("half-made (%s), and melmux could not tell what it holds, so it stays: %v", what, err)
		return o
	case !empty:
		o.Why = fmt.Sprintf("half-made (%s) but %s: look at it, then `git worktree remove --force --force %s`", what, why, h.path)
		return o
	}
	o.Removed, o.Why = true, fmt.Sprintf("half-made (%s); nothing in it but its checkout", what)
	if opts.DryRun {
		return o
	}
	kept, err := h.remove(ctx)
	if err != nil {
		o.Removed, o.Why = false, fmt.Sprintf("half-made (%s); the removal failed: %v", what, err)
		return o
	}
	o.Why += kept
	return o
}

// verdict says whether Clean removes the worktree, and why. Whatever keeps
// it from telling keeps the worktree.
func (w *Worktree) verdict(ctx context.Context, opts CleanOptions) (bool, string) {
	if opts.InUse != nil {
		if who := opts.InUse(*w); who != "" {
			return false, "in use: " + who
		}
	}
	st, err := w.Status(ctx)
	switch {
	case err != nil:
		return false, "melmux could not tell what it holds, so it stays: " + err.Error()
	case st.Uncommitted > 0:
		return false, fmt.Sprintf("uncommitted work (%s changed or untracked)", plural(st.Uncommitted, "file"))
	case st.Submodules > 0:
		return false, "it has submodules, whose work melmux does not judge: `git worktree remove` it when done"
	case st.Commits == 0:
		return true, "no changes"
	case st.Merged:
		return true, fmt.Sprintf("%s merged into %s", plural(st.Commits, "commit"), st.MainHead)
	}
	return false, fmt.Sprintf("%s not merged into %s", plural(st.Commits, "commit"), st.MainHead)
}

// short is a commit's id cut to 12 characters, for a person.
func short(commit string) string { return commit[:min(len(commit), 12)] }

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// Remove deletes a worktree that holds no uncommitted or untracked change
// and no submodule, then its melmux/ branch if it still points where the
// worktree's HEAD did (and the repository's directory under the root once
// empty). melmux checks that itself, through a review: git's own check in
// `git worktree remove` runs `git status` with the repository's
// configuration, which may name programs, so the removal is forced past it.
func (w Worktree) Remove(ctx context.Context) error {
	st, err := w.Status(ctx)
	if err != nil {
		return err
	}
	if st.Uncommitted > 0 {
		return fmt.Errorf("%s holds uncommitted work (%s changed or untracked): not removed", w.Path, plural(st.Uncommitted, "file"))
	}
	if st.Submodules > 0 {
		return fmt.Errorf("%s has submodules, whose work melmux does not judge: not removed", w.Path)
	}
	return w.removeAt(ctx, st.Head, "--force")
}

// remove undoes a fresh Add, still locked by it: the branch still points at
// the base.
func (w Worktree) remove(ctx context.Context) error {
	return w.removeAt(ctx, w.Base, "--force", "--force")
}

func (w Worktree) removeAt(ctx context.Context, head string, force ...string) error {
	args := append(append([]string{"worktree", "remove"}, force...), w.Path)
	if _, err := git(ctx, w.Repo, nil, args...); err != nil {
		return err
	}
	// Best effort: another repository's worktrees may share the directory.
	_ = os.Remove(filepath.Dir(w.Path))
	if !strings.HasPrefix(w.Branch, BranchPrefix) {
		return nil
	}
	// Deleted only if it did not move meanwhile: its tip is known to be safe.
	if _, err := git(ctx, w.Repo, nil, "update-ref", "-d", "refs/heads/"+w.Branch, head); err != nil {
		return fmt.Errorf("the worktree is removed but its branch %s stays: %w", w.Branch, err)
	}
	return nil
}
