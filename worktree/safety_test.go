package worktree

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

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
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(standIn), 0o755); err != nil {
		t.Fatal(err)
	}
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
		if err := os.WriteFile(p, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
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
