package worktree

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
