package worktree

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/testreq"
)

// newRepo makes a repository with one commit (a.txt, sub/b.txt) in a
// temporary directory, git configured for the test alone, and returns its
// path and a root for worktrees.
func newRepo(t testing.TB) (repo, root string) {
	t.Helper()
	testreq.Tool(t, "git")
	dir := t.TempDir()
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(dir, "gitconfig"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_AUTHOR_NAME", "t")
	t.Setenv("GIT_AUTHOR_EMAIL", "t@example.com")
	t.Setenv("GIT_COMMITTER_NAME", "t")
	t.Setenv("GIT_COMMITTER_EMAIL", "t@example.com")
	repo = filepath.Join(dir, "proj")
	run(t, dir, "init", "-q", "-b", "main", repo)
	write(t, filepath.Join(repo, "a.txt"), "one\ntwo\nthree\n")
	write(t, filepath.Join(repo, "sub", "b.txt"), "b\n")
	run(t, repo, "add", ".")
	run(t, repo, "commit", "-q", "-m", "first")
	return repo, filepath.Join(dir, "data", "worktrees")
}

func run(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func write(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestAddMakesABranchOutsideTheCheckout(t *testing.T) {
	repo, root := newRepo(t)
	ctx := context.Background()
	head := run(t, repo, "rev-parse", "HEAD")
	w, start, err := Add(ctx, root, filepath.Join(repo, "sub"), "feature-1")
	if err != nil {
		t.Fatal(err)
	}
	if w.Branch != "melmux/feature-1" || w.Base != head || w.Repo != repo || w.Name != "feature-1" {
		t.Fatalf("worktree %+v; want branch melmux/feature-1, base %s, repo %s", w, head, repo)
	}
	if !strings.HasPrefix(w.Path, root+"/proj-") || filepath.Base(w.Path) != "feature-1" {
		t.Fatalf("path %s, want under %s/proj-HASH/", w.Path, root)
	}
	if start != filepath.Join(w.Path, "sub") {
		t.Fatalf("start %s, want the worktree's sub", start)
	}
	if got := run(t, w.Path, "rev-parse", "--abbrev-ref", "HEAD"); got != "melmux/feature-1" {
		t.Fatalf("checked out %s", got)
	}
	opened, err := Open(ctx, w.Path)
	if err != nil {
		t.Fatal(err)
	}
	if opened != w {
		t.Fatalf("Open = %+v, want %+v", opened, w)
	}
	if st := run(t, repo, "status", "--porcelain"); st != "" {
		t.Fatalf("the main checkout changed: %q", st)
	}
}

func TestAddErrors(t *testing.T) {
	repo, root := newRepo(t)
	ctx := context.Background()
	if _, _, err := Add(ctx, root, repo, "x"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Add(ctx, root, repo, "x"); !errors.Is(err, ErrExists) {
		t.Fatalf("a second x: %v, want ErrExists", err)
	}
	run(t, repo, "branch", "melmux/taken")
	if _, _, err := Add(ctx, root, repo, "taken"); !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), "branch melmux/taken already exists") {
		t.Fatalf("existing branch: %v", err)
	}
	for _, name := range []string{"", "a b", "../up", "-x", "x.lock", "a..b", "ü", strings.Repeat("n", 65), "a/b"} {
		if _, _, err := Add(ctx, root, repo, name); !errors.Is(err, ErrBadName) {
			t.Errorf("name %q: %v, want ErrBadName", name, err)
		}
	}
	if _, _, err := Add(ctx, root, t.TempDir(), "y"); !errors.Is(err, ErrNotRepo) {
		t.Fatalf("outside a repository: %v, want ErrNotRepo", err)
	}
	empty := filepath.Join(t.TempDir(), "empty")
	run(t, filepath.Dir(empty), "init", "-q", empty)
	if _, _, err := Add(ctx, root, empty, "y"); !errors.Is(err, ErrNoCommit) {
		t.Fatalf("no commit: %v, want ErrNoCommit", err)
	}
}

func TestAddFreeSkipsNamesInUse(t *testing.T) {
	repo, root := newRepo(t)
	ctx := context.Background()
	run(t, repo, "branch", "melmux/pane-3")
	w, _, err := AddFree(ctx, root, repo, "pane-3")
	if err != nil {
		t.Fatal(err)
	}
	if w.Name != "pane-3-2" {
		t.Fatalf("name %s, want pane-3-2", w.Name)
	}
}

func TestDiffCountsCommittedUncommittedAndNewFiles(t *testing.T) {
	repo, root := newRepo(t)
	ctx := context.Background()
	w, _, err := Add(ctx, root, repo, "d")
	if err != nil {
		t.Fatal(err)
	}
	if tot, err := w.Count(ctx); err != nil || tot != (Totals{}) {
		t.Fatalf("fresh worktree: %+v %v", tot, err)
	}
	write(t, filepath.Join(w.Path, "a.txt"), "one\n2\nthree\nfour\n")
	run(t, w.Path, "commit", "-qam", "edit")
	write(t, filepath.Join(w.Path, "new.txt"), "n1\nn2\n")
	if err := os.Remove(filepath.Join(w.Path, "sub", "b.txt")); err != nil {
		t.Fatal(err)
	}
	indexBefore := run(t, w.Path, "ls-files", "--stage")
	ch, err := w.Diff(ctx, DiffOptions{Stat: true, Patch: true})
	if err != nil {
		t.Fatal(err)
	}
	want := Totals{Files: 3, Added: 4, Deleted: 2}
	if ch.Totals != want {
		t.Fatalf("totals %+v, want %+v (files %+v)", ch.Totals, want, ch.Files)
	}
	for _, s := range []string{"a.txt     | 3 ++-", "diff --git a/new.txt b/new.txt", "+n2", "-two", "+2", "deleted file mode"} {
		if !strings.Contains(ch.Text, s) {
			t.Errorf("diff lacks %q:\n%s", s, ch.Text)
		}
	}
	if got := run(t, w.Path, "ls-files", "--stage"); got != indexBefore {
		t.Fatalf("the worktree's index changed:\n%s\nwas\n%s", got, indexBefore)
	}
	if st := run(t, w.Path, "status", "--porcelain"); !strings.Contains(st, "?? new.txt") {
		t.Fatalf("new.txt should still be untracked: %q", st)
	}
	if st := run(t, repo, "status", "--porcelain"); st != "" {
		t.Fatalf("the main checkout changed: %q", st)
	}
	stat, err := w.Diff(ctx, DiffOptions{Stat: true})
	if err != nil || strings.Contains(stat.Text, "@@") || !strings.Contains(stat.Text, "3 files changed") {
		t.Fatalf("stat only: %v\n%s", err, stat.Text)
	}
}

func TestDiffIsCutAtMaxText(t *testing.T) {
	repo, root := newRepo(t)
	ctx := context.Background()
	w, _, err := Add(ctx, root, repo, "big")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(w.Path, "big.txt"), strings.Repeat("a line of text to fill the patch\n", MaxText/30))
	ch, err := w.Diff(ctx, DiffOptions{Patch: true})
	if err != nil {
		t.Fatal(err)
	}
	if !ch.Truncated || len(ch.Text) > MaxText || !strings.HasSuffix(ch.Text, "\n") {
		t.Fatalf("truncated %v, %d bytes", ch.Truncated, len(ch.Text))
	}
	if ch.Added != MaxText/30 {
		t.Fatalf("counted %d added lines, want %d (the counts are not cut)", ch.Added, MaxText/30)
	}
}

func TestCleanKeepsUnsavedWork(t *testing.T) {
	repo, root := newRepo(t)
	ctx := context.Background()
	add := func(name string) Worktree {
		w, _, err := Add(ctx, root, repo, name)
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	unchanged := add("unchanged")
	dirty := add("dirty")
	write(t, filepath.Join(dirty.Path, "scratch.txt"), "unsaved\n")
	committed := add("committed")
	write(t, filepath.Join(committed.Path, "a.txt"), "changed\n")
	run(t, committed.Path, "commit", "-qam", "work")
	merged := add("merged")
	write(t, filepath.Join(merged.Path, "m.txt"), "m\n")
	run(t, merged.Path, "add", "m.txt")
	run(t, merged.Path, "commit", "-qm", "merge me")
	run(t, repo, "merge", "-q", "--ff-only", "melmux/merged")
	busy := add("busy")
	if err := os.MkdirAll(filepath.Join(root, "stray", "junk"), 0o755); err != nil {
		t.Fatal(err)
	}

	inUse := func(w Worktree) string {
		if w.Name == "busy" {
			return "pane 9 of session main"
		}
		return ""
	}
	dry, err := Clean(ctx, root, CleanOptions{DryRun: true, InUse: inUse})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(unchanged.Path); err != nil || len(dry) != 6 {
		t.Fatalf("a dry run removed something, or missed a directory: %v, %d outcomes", err, len(dry))
	}
	out, err := Clean(ctx, root, CleanOptions{InUse: inUse})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, o := range out {
		got[filepath.Base(o.Path)] = o.Why
	}
	want := map[string]string{
		"unchanged": "no changes",
		"dirty":     "uncommitted work (1 file changed or untracked)",
		"committed": "1 commit not merged into main",
		"merged":    "1 commit merged into main",
		"busy":      "in use: pane 9 of session main",
	}
	for name, why := range want {
		if got[name] != why {
			t.Errorf("%s: %q, want %q", name, got[name], why)
		}
	}
	if !strings.Contains(got["junk"], "not a melmux worktree") {
		t.Errorf("a stray directory: %q", got["junk"])
	}
	for _, w := range []Worktree{unchanged, merged} {
		if _, err := os.Stat(w.Path); err == nil {
			t.Errorf("%s is still there", w.Path)
		}
		if run(t, repo, "branch", "--list", w.Branch) != "" {
			t.Errorf("branch %s is still there", w.Branch)
		}
	}
	for _, w := range []Worktree{dirty, committed, busy} {
		if _, err := os.Stat(w.Path); err != nil {
			t.Errorf("%s was removed", w.Path)
		}
	}
	if data, err := os.ReadFile(filepath.Join(dirty.Path, "scratch.txt")); err != nil || string(data) != "unsaved\n" {
		t.Fatalf("the unsaved file: %q %v", data, err)
	}
}

func TestClassifier(t *testing.T) {
	text := ` a.txt | 3 ++-
 1 file changed

diff --git a/a.txt b/a.txt
index 1..2 100644
--- a/a.txt
+++ b/a.txt
@@ -1,2 +1,3 @@
 one
-two
+++ two
+--- three
\ No newline at end of file
diff --git a/b b/b
new file mode 100644
`
	want := []LineKind{LineText, LineText, LineText, LineFile, LineHeader, LineHeader, LineHeader, LineHunk,
		LineContext, LineDeleted, LineAdded, LineAdded, LineContext, LineFile, LineHeader}
	var c Classifier
	for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if got := c.Next(line); got != want[i] {
			t.Errorf("line %d %q: kind %d, want %d", i, line, got, want[i])
		}
	}
	head, plus, minus, ok := StatBar(" a.txt | 3 ++-")
	if !ok || head != " a.txt | 3 " || plus != "++" || minus != "-" {
		t.Fatalf("StatBar: %q %q %q %v", head, plus, minus, ok)
	}
	if _, _, _, ok := StatBar(" 1 file changed, 2 insertions(+)"); ok {
		t.Fatal("StatBar took the summary line for a bar")
	}
}

// BenchmarkCount is the cost of one +A −D refresh of a border: a worktree
// of 1000 files with a few changed and one new.
func BenchmarkCount(b *testing.B) {
	repo, root := newRepo(b)
	for i := range 1000 {
		write(b, filepath.Join(repo, "dir", strconv.Itoa(i), "f.txt"), "line\n")
	}
	run(b, repo, "add", ".")
	run(b, repo, "commit", "-q", "-m", "many")
	ctx := context.Background()
	w, _, err := Add(ctx, root, repo, "bench")
	if err != nil {
		b.Fatal(err)
	}
	for i := range 5 {
		write(b, filepath.Join(w.Path, "dir", strconv.Itoa(i), "f.txt"), "changed\n")
	}
	write(b, filepath.Join(w.Path, "new.txt"), "new\n")
	before := childCPU()
	var ru0, ru1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	for b.Loop() {
		if _, err := w.Count(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((childCPU()-before).Microseconds())/1000/float64(b.N), "git-cpu-ms/op")
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	b.ReportMetric(float64(ru1.Utime.Nano()+ru1.Stime.Nano()-ru0.Utime.Nano()-ru0.Stime.Nano())/1e6/float64(b.N), "self-cpu-ms/op")
}

// childCPU is the CPU time, user and system, of the waited-for children of
// this process: the git runs.
func childCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
