package worktree

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/melmux/melmux/internal/testexec"
)

// TestMain lets a test run Add in a child process of its own, which a git
// hook kills as `git worktree add` runs (see crashedAdd).
func TestMain(m *testing.M) {
	if os.Getenv("MELMUX_TEST_ADD_ROOT") != "" {
		os.Setenv("MELMUX_TEST_KILL", fmt.Sprint(os.Getpid()))
		_, _, err := Add(context.Background(), os.Getenv("MELMUX_TEST_ADD_ROOT"), os.Getenv("MELMUX_TEST_ADD_DIR"), os.Getenv("MELMUX_TEST_ADD_NAME"))
		fmt.Fprintln(os.Stderr, "Add returned:", err)
		os.Exit(3)
	}
	os.Exit(m.Run())
}

// A worktree whose state git reports in a way melmux cannot read is kept,
// and the outcome says why: here a git that prints no number for the count
// of commits, which used to read as 0, "no changes", and removed the
// worktree and its branch with an unmerged commit on it.
func TestCleanKeepsWhatItCannotJudge(t *testing.T) {
	repo, root := newRepo(t)
	ctx := context.Background()
	w, _, err := Add(ctx, root, repo, "work")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(w.Path, "a.txt"), "changed\n")
	run(t, w.Path, "commit", "-qam", "unmerged work")
	tip := run(t, w.Path, "rev-parse", "HEAD")

	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	standIn := "#!/bin/sh\nfor a in \"$@\"; do\n\tif [ \"$a\" = --count ]; then echo 'lots'; exit 0; fi\ndone\nexec '" + real + "' \"$@\"\n"
	testexec.Write(t, filepath.Join(bin, "git"), []byte(standIn))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	out, err := Clean(ctx, root, CleanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || out[0].Removed || !strings.Contains(out[0].Why, "melmux could not tell what it holds, so it stays") ||
		!strings.Contains(out[0].Why, `unexpected count "lots"`) {
		t.Fatalf("outcomes %+v: want work kept, saying the count could not be read", out)
	}
	if _, err := os.Stat(w.Path); err != nil {
		t.Fatalf("the worktree is gone: %v", err)
	}
	if got := run(t, repo, "rev-parse", "refs/heads/melmux/work"); got != tip {
		t.Fatalf("the branch is at %q, want %s", got, tip)
	}
}

// Status reads nothing it cannot parse as zero changes.
func TestStatusRecords(t *testing.T) {
	recs, err := statusRecords(" M a.txt\x00R  new name\x00old name\x00?? b\x00")
	if err != nil || len(recs) != 3 || recs[1] != "R  new name" {
		t.Fatalf("records %q, %v", recs, err)
	}
	if recs, err := statusRecords(""); err != nil || len(recs) != 0 {
		t.Fatalf("no output: %q, %v", recs, err)
	}
	for _, bad := range []string{"garbage\x00", "M\x00", "?? a\x00\x00"} {
		if _, err := statusRecords(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// The worktrees' root, the repository's directory in it and each worktree
// are 0700 whatever the umask, and a root or repository directory left
// looser (by an older melmux) is tightened by the next Add.
func TestAddMakesItsDirectoriesPrivate(t *testing.T) {
	repo, _ := newRepo(t)
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	data := t.TempDir()
	root := filepath.Join(data, "melmux", "worktrees")
	ctx := context.Background()
	w, _, err := Add(ctx, root, repo, "private")
	if err != nil {
		t.Fatal(err)
	}
	mode := func(p string) fs.FileMode {
		t.Helper()
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Mode().Perm()
	}
	for _, p := range []string{filepath.Join(data, "melmux"), root, filepath.Dir(w.Path), w.Path} {
		if m := mode(p); m != 0o700 {
			t.Errorf("%s is %v, want 0700", p, m)
		}
	}
	for _, p := range []string{root, filepath.Dir(w.Path)} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := Add(ctx, root, repo, "second"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{root, filepath.Dir(w.Path)} {
		if m := mode(p); m != 0o700 {
			t.Errorf("%s stayed %v, want 0700", p, m)
		}
	}
}

// Reviewing a worktree (Diff, Count, Status, Clean) runs no program its
// repository's configuration names, wherever an agent wrote it: the shared
// .git/config or the worktree's own config.worktree. Each program touches a
// marker; git itself, run as a person would, is shown to run them.
func TestReviewRunsNoRepositoryProgram(t *testing.T) {
	repo, root := newRepo(t)
	ctx := context.Background()
	w, _, err := Add(ctx, root, repo, "agent")
	if err != nil {
		t.Fatal(err)
	}
	done, _, err := Add(ctx, root, repo, "done")
	if err != nil {
		t.Fatal(err)
	}
	markers := t.TempDir()
	scripts := t.TempDir()
	prog := func(name string) string {
		p := filepath.Join(scripts, name)
		text := "#!/bin/sh\ntouch '" + filepath.Join(markers, name) + "'\nif [ $# -gt 0 ] && [ -f \"$1\" ]; then cat \"$1\"; else cat; fi\n"
		testexec.Write(t, p, []byte(text))
		return p
	}
	hooks := filepath.Join(scripts, "hooks")
	for _, h := range []string{"post-index-change", "post-checkout", "pre-commit", "reference-transaction"} {
		write(t, filepath.Join(hooks, h), "#!/bin/sh\ntouch '"+filepath.Join(markers, "hook-"+h)+"'\n")
		if err := os.Chmod(filepath.Join(hooks, h), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// What an agent can write from its checkout: the shared config...
	for k, v := range map[string]string{
		"core.hooksPath": hooks, "diff.external": prog("diff-external"),
		"diff.x.textconv": prog("textconv"), "diff.y.command": prog("diff-command"),
		"filter.f.clean": prog("clean-filter"), "filter.f.smudge": prog("smudge-filter"), "filter.f.required": "true",
		"filter.g.process": prog("process-filter"), "extensions.worktreeConfig": "true",
	} {
		run(t, w.Path, "config", k, v)
	}
	// ...and its worktree's own.
	run(t, w.Path, "config", "--worktree", "core.fsmonitor", prog("fsmonitor"))
	run(t, w.Path, "config", "--worktree", "diff.z.textconv", prog("worktree-textconv"))
	write(t, filepath.Join(w.Path, ".gitattributes"), "*.txt diff=x filter=f\n*.md diff=y\n*.dat filter=g\nsub/* diff=z\n")
	write(t, filepath.Join(w.Path, "a.txt"), "one\n2\nthree\nfour\n")
	write(t, filepath.Join(w.Path, "sub", "b.txt"), "b changed\n")
	write(t, filepath.Join(w.Path, "new.md"), "new\n")
	write(t, filepath.Join(w.Path, "new.dat"), "data\n")

	ch, err := w.Diff(ctx, DiffOptions{Stat: true, Patch: true})
	if err != nil {
		t.Fatal(err)
	}
	if ch.Totals != (Totals{Files: 5, Added: 9, Deleted: 2}) {
		t.Errorf("diff totals %+v (files %+v)", ch.Totals, ch.Files)
	}
	if !strings.Contains(ch.Text, "+four") || !strings.Contains(ch.Text, "+b changed") {
		t.Errorf("the patch is not git's own:\n%s", ch.Text)
	}
	if _, err := w.Count(ctx); err != nil {
		t.Fatal(err)
	}
	if st, err := w.Status(ctx); err != nil || st.Uncommitted != 5 {
		t.Fatalf("status %+v, %v: want 5 paths changed or untracked", st, err)
	}
	out, err := Clean(ctx, root, CleanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range out {
		if o.Removed != (o.Path == done.Path) {
			t.Errorf("%s: removed %v (%s)", o.Path, o.Removed, o.Why)
		}
	}
	ran, _ := os.ReadDir(markers)
	for _, m := range ran {
		t.Errorf("melmux ran %s", m.Name())
	}

	// The same configuration is live for git as a person runs it.
	_, _ = exec.Command("git", "-C", w.Path, "diff").CombinedOutput()
	_, _ = exec.Command("git", "-C", w.Path, "diff", "--no-ext-diff").CombinedOutput()
	_, _ = exec.Command("git", "-C", w.Path, "add", "-N", "new.md").CombinedOutput()
	for _, m := range []string{"fsmonitor", "diff-external", "textconv", "worktree-textconv", "clean-filter", "hook-post-index-change"} {
		if _, err := os.Stat(filepath.Join(markers, m)); err != nil {
			t.Errorf("git itself did not run %s: the test does not test it", m)
		}
	}
}

// A `git worktree add` killed on the way leaves nothing behind: Add removes
// the half-made worktree and the branch it made, and the name can be used
// again at once.
func TestInterruptedAddLeavesNothing(t *testing.T) {
	repo, root := newRepo(t)
	ctx := context.Background()
	hooks := t.TempDir()
	write(t, filepath.Join(hooks, "post-checkout"), "#!/bin/sh\nkill -9 $PPID\n")
	if err := os.Chmod(filepath.Join(hooks, "post-checkout"), 0o755); err != nil {
		t.Fatal(err)
	}
	run(t, repo, "config", "core.hooksPath", hooks)
	_, _, err := Add(ctx, root, repo, "cut")
	if err == nil || !strings.Contains(err.Error(), "signal: killed") || !strings.Contains(err.Error(), "the half-made worktree and branch it left were removed") {
		t.Fatalf("Add: %v; want git killed and what it left removed", err)
	}
	if list := run(t, repo, "worktree", "list", "--porcelain"); strings.Count(list, "worktree ") != 1 {
		t.Fatalf("worktrees left:\n%s", list)
	}
	if b := run(t, repo, "branch", "--list", "melmux/*"); b != "" {
		t.Fatalf("branches left: %s", b)
	}
	run(t, repo, "config", "--unset", "core.hooksPath")
	if _, _, err := Add(ctx, root, repo, "cut"); err != nil {
		t.Fatalf("the name is not free again: %v", err)
	}
}

// crashedAdd runs Add in a child process that a post-checkout hook kills,
// with its `git worktree add`, as melmux and git die together in a crash:
// what is left is a worktree locked by a process that is gone, with no base
// recorded.
func crashedAdd(t *testing.T, repo, root, name string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "MELMUX_TEST_ADD_ROOT="+root, "MELMUX_TEST_ADD_DIR="+repo, "MELMUX_TEST_ADD_NAME="+name)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the child was not killed: %v\n%s", err, out)
	}
	path := filepath.Join(repoDir(root, repo), name)
	list := run(t, repo, "worktree", "list", "--porcelain")
	if !strings.Contains(list, "worktree "+path+"\n") || !strings.Contains(list, "locked "+makingPrefix+" (process ") {
		t.Fatalf("no half-made worktree at %s:\n%s", path, list)
	}
	if _, err := os.Stat(filepath.Join(path, "a.txt")); err != nil {
		t.Fatalf("the checkout did not happen: %v", err)
	}
	return path
}

// Half-made worktrees (left by a crash during `git worktree add`, or by
// git's own "initializing" lock) are removed by Clean, or by Add of the same
// name, when they hold nothing but their checkout, even with files or the
// .git missing or the directory gone; one holding anything else, one being
// made right now, and one a person locked are kept, saying why.
func TestHalfMadeWorktrees(t *testing.T) {
	repo, root := newRepo(t)
	ctx := context.Background()
	hooks := t.TempDir()
	write(t, filepath.Join(hooks, "post-checkout"), "#!/bin/sh\n[ -n \"$MELMUX_TEST_KILL\" ] && kill -9 $MELMUX_TEST_KILL $PPID\nexit 0\n")
	if err := os.Chmod(filepath.Join(hooks, "post-checkout"), 0o755); err != nil {
		t.Fatal(err)
	}
	run(t, repo, "config", "core.hooksPath", hooks)

	whole := crashedAdd(t, repo, root, "whole")
	partial := crashedAdd(t, repo, root, "partial")
	for _, p := range []string{"a.txt", "sub/b.txt"} {
		if err := os.Remove(filepath.Join(partial, p)); err != nil {
			t.Fatal(err)
		}
	}
	noIndex := crashedAdd(t, repo, root, "no-index")
	if err := os.Remove(filepath.Join(noIndex, "a.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(run(t, noIndex, "rev-parse", "--git-dir"), "index")); err != nil {
		t.Fatal(err)
	}
	noGit := crashedAdd(t, repo, root, "no-git")
	if err := os.RemoveAll(noGit); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(noGit, 0o700); err != nil {
		t.Fatal(err)
	}
	gone := crashedAdd(t, repo, root, "gone")
	if err := os.RemoveAll(gone); err != nil {
		t.Fatal(err)
	}
	held := crashedAdd(t, repo, root, "held")
	write(t, filepath.Join(held, "notes.txt"), "mine\n")
	initializing := filepath.Join(repoDir(root, repo), "initializing")
	run(t, repo, "worktree", "add", "-q", "--lock", "--reason", "initializing", "-b", "melmux/initializing", initializing)
	making := filepath.Join(repoDir(root, repo), "making")
	start, _ := procStart(os.Getpid())
	run(t, repo, "worktree", "add", "-q", "--lock", "--reason", fmt.Sprintf("%s (process %d, start %d, add 1)", makingPrefix, os.Getpid(), start), "-b", "melmux/making", making)
	reuse := crashedAdd(t, repo, root, "reuse")

	w, _, err := Add(ctx, root, repo, "reuse")
	if err != nil {
		t.Fatalf("Add over a half-made worktree: %v", err)
	}
	if !strings.Contains(w.Note, "removed a half-made worktree of that name first") || w.Path != reuse {
		t.Fatalf("Add: %+v", w)
	}
	if _, _, err := Add(ctx, root, repo, "held"); !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), "it holds 1 changed or untracked file") {
		t.Fatalf("Add over a half-made worktree holding a file: %v", err)
	}
	if _, _, err := Add(ctx, root, repo, "making"); !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), fmt.Sprintf("being made by melmux process %d", os.Getpid())) {
		t.Fatalf("Add over a worktree being made: %v", err)
	}
	locked, _, err := Add(ctx, root, repo, "locked")
	if err != nil {
		t.Fatal(err)
	}
	run(t, repo, "worktree", "lock", "--reason", "on a disk", locked.Path)

	dry, err := Clean(ctx, root, CleanOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(whole); err != nil || len(dry) != 10 {
		t.Fatalf("a dry run removed something, or missed one: %v, %d outcomes %+v", err, len(dry), dry)
	}
	out, err := Clean(ctx, root, CleanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Outcome{}
	for _, o := range out {
		got[filepath.Base(o.Path)] = o
	}
	gonePrefix := "half-made (its making by melmux process "
	for _, name := range []string{"whole", "partial", "no-index", "no-git", "gone"} {
		o := got[name]
		if !o.Removed || !strings.HasPrefix(o.Why, gonePrefix) || !strings.HasSuffix(o.Why, "did not finish (the process is gone)); nothing in it but its checkout") {
			t.Errorf("%s: %+v", name, o)
		}
		if o.Worktree == nil || o.Worktree.Branch != "melmux/"+name {
			t.Errorf("%s: worktree %+v", name, o.Worktree)
		}
	}
	if o := got["initializing"]; !o.Removed || o.Why != `half-made (locked "initializing" by a git worktree add that did not finish); nothing in it but its checkout` {
		t.Errorf("initializing: %+v", o)
	}
	if o := got["held"]; o.Removed || !strings.Contains(o.Why, "but it holds 1 changed or untracked file: look at it") {
		t.Errorf("held: %+v", o)
	}
	if o := got["making"]; o.Removed || o.Why != fmt.Sprintf("being made by melmux process %d", os.Getpid()) {
		t.Errorf("making: %+v", o)
	}
	if o := got["locked"]; o.Removed || o.Why != "locked: on a disk (`git worktree unlock` frees it)" {
		t.Errorf("locked: %+v", o)
	}
	if o := got["reuse"]; !o.Removed || o.Why != "no changes" {
		t.Errorf("reuse: %+v", o)
	}
	list := run(t, repo, "worktree", "list", "--porcelain")
	for _, p := range []string{whole, partial, noIndex, noGit, gone, initializing, reuse} {
		if strings.Contains(list, "worktree "+p+"\n") {
			t.Errorf("%s is still listed", p)
		}
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s is still there", p)
		}
	}
	for _, p := range []string{held, making, locked.Path} {
		if !strings.Contains(list, "worktree "+p+"\n") {
			t.Errorf("%s was removed", p)
		}
	}
	branches := run(t, repo, "branch", "--list", "melmux/*", "--format=%(refname:short)")
	if branches != "melmux/held\nmelmux/locked\nmelmux/making" {
		t.Errorf("branches left:\n%s", branches)
	}
}
