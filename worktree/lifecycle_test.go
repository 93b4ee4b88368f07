package worktree

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The count follows the branch once it is merged into its base branch, by
// any merge that keeps its commits: what is merged no longer counts, what
// is not (an uncommitted line) still does; the base branch moving on by
// itself changes nothing.
func TestCountFollowsABranchMergedIntoBase(t *testing.T) {
	repo, root := newRepo(t)
	ctx := context.Background()
	w, _, err := Add(ctx, root, repo, "m")
	if err != nil {
		t.Fatal(err)
	}
	if w.BaseBranch != "main" {
		t.Fatalf("base branch %q, want main", w.BaseBranch)
	}
	write(t, filepath.Join(w.Path, "new.txt"), "n1\nn2\n")
	run(t, w.Path, "add", "new.txt")
	run(t, w.Path, "commit", "-q", "-m", "new")
	write(t, filepath.Join(w.Path, "a.txt"), "one\ntwo\nthree\nfour\n")
	count := func(want Totals, when string) {
		t.Helper()
		got, err := w.Count(ctx)
		if err != nil || got != want {
			t.Fatalf("%s: count %+v (%v), want %+v", when, got, err, want)
		}
	}
	count(Totals{Files: 2, Added: 3}, "before any merge")
	write(t, filepath.Join(repo, "other.txt"), "o\n")
	run(t, repo, "add", "other.txt")
	run(t, repo, "commit", "-q", "-m", "other")
	count(Totals{Files: 2, Added: 3}, "main moved on by itself")
	run(t, repo, "merge", "-q", "--no-ff", "--no-edit", "melmux/m")
	count(Totals{Files: 1, Added: 1}, "merged into main")
	ch, err := w.Diff(ctx, DiffOptions{Patch: true})
	if err != nil || strings.Contains(ch.Text, "new.txt") || !strings.Contains(ch.Text, "+four") {
		t.Fatalf("the diff after the merge should hold a.txt's line only: %v\n%s", err, ch.Text)
	}
	opened, err := Open(ctx, w.Path)
	if err != nil || opened.BaseBranch != "main" {
		t.Fatalf("Open: %+v %v, want base branch main", opened, err)
	}
	// The base branch gone, it counts from the base commit again.
	run(t, repo, "checkout", "-q", "--detach")
	run(t, repo, "branch", "-q", "-D", "main")
	count(Totals{Files: 2, Added: 3}, "main deleted")
}

func TestCommitAndMerge(t *testing.T) {
	repo, root := newRepo(t)
	ctx := context.Background()
	w, _, err := Add(ctx, root, repo, "cm")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Commit(ctx, "x"); !errors.Is(err, ErrNothing) {
		t.Fatalf("commit of nothing: %v, want ErrNothing", err)
	}
	write(t, filepath.Join(w.Path, "a.txt"), "one\ntwo\nTHREE\n")
	write(t, filepath.Join(w.Path, "new.txt"), "new\n")
	if _, err := w.Merge(ctx); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "a.txt, new.txt (2 files changed or untracked); commit it first") {
		t.Fatalf("merge of uncommitted work: %v", err)
	}
	if _, err := w.Commit(ctx, "  "); err == nil || !strings.Contains(err.Error(), "a commit needs a message") {
		t.Fatalf("an empty message: %v", err)
	}
	c, err := w.Commit(ctx, "the work")
	if err != nil || c.Files != 2 || c.Branch != "melmux/cm" {
		t.Fatalf("commit: %+v %v", c, err)
	}
	if msg := run(t, w.Path, "log", "-1", "--format=%s"); msg != "the work" {
		t.Fatalf("the commit says %q", msg)
	}
	if st := run(t, w.Path, "status", "--porcelain"); st != "" {
		t.Fatalf("uncommitted after the commit: %q", st)
	}

	// A dirty main checkout, or one on another branch, is refused.
	write(t, filepath.Join(repo, "sub", "b.txt"), "dirty\n")
	if _, err := w.Merge(ctx); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "has uncommitted changes: sub/b.txt (1 file changed or untracked)") {
		t.Fatalf("a dirty main checkout: %v", err)
	}
	run(t, repo, "checkout", "-q", "--", "sub/b.txt")
	run(t, repo, "checkout", "-q", "-b", "elsewhere")
	if _, err := w.Merge(ctx); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "has elsewhere checked out, not main") {
		t.Fatalf("main checkout on another branch: %v", err)
	}
	run(t, repo, "checkout", "-q", "main")

	// A conflict merges nothing and leaves the main checkout as it was.
	write(t, filepath.Join(repo, "a.txt"), "one\ntwo\nthree!\n")
	run(t, repo, "commit", "-q", "-am", "conflicting")
	before := run(t, repo, "rev-parse", "HEAD")
	if _, err := w.Merge(ctx); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "merging melmux/cm into main conflicts in a.txt (1 file)") {
		t.Fatalf("a conflicting merge: %v", err)
	}
	if st := run(t, repo, "status", "--porcelain"); st != "" || run(t, repo, "rev-parse", "HEAD") != before {
		t.Fatalf("the main checkout changed: %q", st)
	}
	if _, err := os.Stat(filepath.Join(repo, ".git", "MERGE_HEAD")); err == nil {
		t.Fatal("the merge was left under way")
	}
	run(t, repo, "reset", "-q", "--hard", "HEAD~1")

	m, err := w.Merge(ctx)
	if err != nil || m.Into != "main" || m.Commits != 1 || !m.FastForward || m.Commit != c.Commit {
		t.Fatalf("merge: %+v %v", m, err)
	}
	if got, _ := os.ReadFile(filepath.Join(repo, "new.txt")); string(got) != "new\n" {
		t.Fatalf("the main checkout lacks the merged file: %q", got)
	}
	if _, err := w.Merge(ctx); !errors.Is(err, ErrNothing) {
		t.Fatalf("a second merge: %v, want ErrNothing", err)
	}
	if tot, err := w.Count(ctx); err != nil || tot != (Totals{}) {
		t.Fatalf("count after the merge: %+v %v, want nothing", tot, err)
	}
}

func TestRetire(t *testing.T) {
	repo, root := newRepo(t)
	ctx := context.Background()
	branches := func() string { return run(t, repo, "branch", "--list", "melmux/*") }

	dirty, _, err := Add(ctx, root, repo, "dirty")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dirty.Path, "new.txt"), "x\n")
	if _, err := dirty.Retire(ctx, false); !errors.Is(err, ErrUncommitted) || !strings.Contains(err.Error(), "new.txt (1 file changed or untracked)") {
		t.Fatalf("uncommitted: %v", err)
	}
	if _, err := os.Stat(dirty.Path); err != nil {
		t.Fatalf("a refused worktree went: %v", err)
	}
	if r, err := dirty.Retire(ctx, true); err != nil || r.Lost != 1 || r.BranchKept {
		t.Fatalf("forced: %+v %v", r, err)
	}
	if _, err := os.Stat(dirty.Path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the forced worktree stays: %v", err)
	}

	kept, _, err := Add(ctx, root, repo, "kept")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(kept.Path, "new.txt"), "x\n")
	run(t, kept.Path, "add", ".")
	run(t, kept.Path, "commit", "-q", "-m", "work")
	r, err := kept.Retire(ctx, false)
	if err != nil || !r.BranchKept || r.Why != "1 commit not merged into main" {
		t.Fatalf("committed work: %+v %v", r, err)
	}
	if got := branches(); got != "melmux/kept" {
		t.Fatalf("branches %q, want melmux/kept alone", got)
	}
}

// Processes finds a process by the directory it works in, inside a
// worktree, with its pid and command line.
func TestProcessesInside(t *testing.T) {
	dir := t.TempDir()
	inner := filepath.Join(dir, "deep", "er")
	if err := os.MkdirAll(inner, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sleep", "600")
	cmd.Dir = inner
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	in := Inside(Processes(), dir)
	if len(in) != 1 || in[0].PID != cmd.Process.Pid || in[0].Command != "sleep 600" {
		t.Fatalf("inside %s: %+v, want the sleep %d", dir, in, cmd.Process.Pid)
	}
	if got := Names(in); got != "process "+strconv.Itoa(cmd.Process.Pid)+" (sleep 600)" {
		t.Fatalf("Names: %q", got)
	}
	if in := Inside(Processes(), dir+"x"); len(in) != 0 {
		t.Fatalf("a sibling directory's processes: %+v", in)
	}
}
