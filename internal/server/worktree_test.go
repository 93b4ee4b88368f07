package server

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/testexec"
	"github.com/melmux/melmux/internal/testreq"
	"github.com/melmux/melmux/internal/ui"
)

// gitRepo makes a repository with one commit for a test, git configured for
// the test alone and worktrees going to a temporary XDG_DATA_HOME.
func gitRepo(t *testing.T) string {
	t.Helper()
	testreq.Tool(t, "git")
	dir := t.TempDir()
	for k, v := range map[string]string{"GIT_CONFIG_GLOBAL": filepath.Join(dir, "gitconfig"), "GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
		"XDG_DATA_HOME": filepath.Join(dir, "data")} {
		t.Setenv(k, v)
	}
	repo := filepath.Join(dir, "repo")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "a.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."}, {"commit", "-q", "-m", "first"}} {
		if out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return repo
}

// A worktree pane's border shows its +A −D: the first frame starts a count
// off the drawing path and asks to be drawn again within countTTL; frames
// within the TTL do not count again, the first after it does.
func TestWorktreePaneBorderCountsItsChanges(t *testing.T) {
	repo := gitRepo(t)
	s, c := startServer(t)
	ctx := context.Background()
	if err := c.Call(ctx, "new", proto.NewParams{Command: []string{"sleep", "600"}, Cwd: repo}, nil); err != nil {
		t.Fatal(err)
	}
	var res proto.OpenPaneResult
	if err := c.Call(ctx, "open_pane", proto.OpenPaneParams{Layout: "right", Worktree: true,
		Command: "echo two >> a.txt && echo new > b.txt && echo done; exec sleep 600"}, &res); err != nil {
		t.Fatal(err)
	}
	if res.Branch != "melmux/pane-2" || !strings.HasSuffix(res.Worktree, "/pane-2") {
		t.Fatalf("open_pane: worktree %q branch %q, want .../pane-2 on melmux/pane-2", res.Worktree, res.Branch)
	}
	if err := c.Call(ctx, "wait", proto.WaitParams{Pane: 2, Match: "^done$", Screen: true, TimeoutMS: 10000}, nil); err != nil {
		t.Fatal(err)
	}
	viewer := &client{tty: newConnTty(nil, &sync.Mutex{}, 100, 30)}
	diffOf := func(sc *ui.Scene, id int) *ui.DiffCount {
		for _, p := range sc.Panes {
			if p.ID == id {
				return p.Diff
			}
		}
		t.Fatalf("pane %d is not drawn", id)
		return nil
	}
	sc, next := s.scene(viewer)
	if next <= 0 || next > countTTL {
		t.Fatalf("a frame showing a worktree pane should ask to be redrawn within %s, not %s", countTTL, next)
	}
	if diffOf(sc, 1) != nil {
		t.Fatal("pane 1 has no worktree but shows changes")
	}
	deadline := time.Now().Add(10 * time.Second)
	for diffOf(sc, 2) == nil {
		if time.Now().After(deadline) {
			t.Fatal("the count never arrived")
		}
		time.Sleep(10 * time.Millisecond)
		sc, _ = s.scene(viewer)
	}
	if got := *diffOf(sc, 2); got != (ui.DiffCount{Added: 2, Deleted: 0}) {
		t.Fatalf("pane 2 shows %+v, want +2 −0 (a line added, a new file)", got)
	}
	e, _ := s.lookup(2)
	s.mu.Lock()
	at := e.wtCount.at
	s.mu.Unlock()
	for range 20 {
		s.scene(viewer)
	}
	s.mu.Lock()
	again := e.wtCount.at
	e.wtCount.at = time.Now().Add(-countTTL) // the count is stale now
	s.mu.Unlock()
	if again != at {
		t.Fatal("frames within the TTL counted again")
	}
	s.scene(viewer)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !e.wtCount.at.After(at) {
		t.Fatal("the first frame after the TTL did not count again")
	}
}

// C-b D hands the client's loop the classified lines of the focused pane's
// diff; a pane without a worktree gets a note instead.
func TestShowDiff(t *testing.T) {
	repo := gitRepo(t)
	s, c := startServer(t)
	ctx := context.Background()
	if err := c.Call(ctx, "new", proto.NewParams{Command: []string{"sleep", "600"}, Cwd: repo}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, "open_pane", proto.OpenPaneParams{WorktreeName: "shown", Command: "echo two >> a.txt && echo done; exec sleep 600"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, "wait", proto.WaitParams{Pane: 2, Match: "^done$", Screen: true, TimeoutMS: 10000}, nil); err != nil {
		t.Fatal(err)
	}
	viewer := &client{s: s, tty: newConnTty(nil, &sync.Mutex{}, 100, 30)}
	viewer.showDiff(2)
	kinds := map[string]ui.DiffKind{}
	for _, l := range viewer.diff {
		kinds[l.Text] = l.Kind
	}
	want := map[string]ui.DiffKind{"diff --git a/a.txt b/a.txt": ui.DiffFile, "@@ -1 +1,2 @@": ui.DiffHunk, "+two": ui.DiffAdded, " one": ui.DiffContext}
	for text, kind := range want {
		if k, ok := kinds[text]; !ok || k != kind {
			t.Errorf("line %q: kind %v (present %v), want %v; diff %+v", text, k, ok, kind, viewer.diff)
		}
	}
	if len(viewer.diff) == 0 || viewer.diff[0].Plus != 1 || viewer.diff[0].Minus != 0 {
		t.Errorf("the summary's first line should carry its bar (+1): %+v", viewer.diff)
	}
	viewer.diff = nil
	viewer.showDiff(1)
	if viewer.diff != nil || !strings.Contains(viewer.message, "pane 1 has no worktree") {
		t.Fatalf("pane 1: diff %v, message %q", viewer.diff, viewer.message)
	}
}

// A pane that fails to start takes its fresh worktree and branch with it,
// and a bad name is refused before anything is made.
func TestWorktreeOfAPaneThatFailsIsRemoved(t *testing.T) {
	repo := gitRepo(t)
	_, c := startServer(t)
	ctx := context.Background()
	if err := c.Call(ctx, "new", proto.NewParams{Command: []string{"sleep", "600"}, Cwd: repo}, nil); err != nil {
		t.Fatal(err)
	}
	err := c.Call(ctx, "open_pane", proto.OpenPaneParams{WorktreeName: "doomed", Argv: []string{"/nonexistent/program"}}, nil)
	if err == nil {
		t.Fatal("a pane running a program that does not exist started")
	}
	out, _ := exec.Command("git", "-C", repo, "worktree", "list").CombinedOutput()
	branches, _ := exec.Command("git", "-C", repo, "branch", "--list", "melmux/*").CombinedOutput()
	if strings.Contains(string(out), "doomed") || strings.TrimSpace(string(branches)) != "" {
		t.Fatalf("the worktree stayed:\n%s\nbranches: %s", out, branches)
	}
	err = c.Call(ctx, "open_pane", proto.OpenPaneParams{WorktreeName: "../escape"}, nil)
	if pe, ok := err.(*proto.Error); !ok || pe.Code != proto.CodeBadParams || !strings.Contains(pe.Message, `bad worktree name "../escape"`) {
		t.Fatalf("a bad name: %v", err)
	}
}

// Work on the server's own goroutines (a border's count, the diff overlay)
// turns a panic into an error instead of ending the session.
func TestConfineKeepsAPanicToItsWork(t *testing.T) {
	t.Parallel()
	s, _ := startServer(t)
	err := s.confine("count worktree changes", func() error {
		var m map[string]int
		m["boom"]++ // a nil map write: a real panic
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "count worktree changes failed inside the server") {
		t.Fatalf("confine: %v", err)
	}
}

// The session's end stops the worktree counts still running git and waits
// for them: no git outlives the server or writes into a worktree being
// removed (the test's temporary directory once failed to go for that).
func TestShutdownEndsWorktreeCounts(t *testing.T) {
	repo := gitRepo(t)
	s, c := startServer(t)
	ctx := context.Background()
	if err := c.Call(ctx, "new", proto.NewParams{Command: []string{"sleep", "600"}, Cwd: repo}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, "open_pane", proto.OpenPaneParams{Layout: "right", Worktree: true, Command: "sleep 600"}, nil); err != nil {
		t.Fatal(err)
	}
	// From now on git takes 30 s to start: a count begun is still running
	// when the session ends, unless the end stops it.
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	slow := "#!/bin/sh\nsleep 30 </dev/null >/dev/null 2>&1\nexec " + real + " \"$@\"\n"
	testexec.Write(t, filepath.Join(bin, "git"), []byte(slow))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	e, err := s.lookup(2)
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	e.wtCount.at = time.Now().Add(-countTTL)
	s.mu.Unlock()
	s.scene(&client{tty: newConnTty(nil, &sync.Mutex{}, 100, 30)})
	s.mu.Lock()
	started := e.wtCount.running
	s.mu.Unlock()
	if !started {
		t.Fatal("a frame after the count's TTL started no count")
	}
	begin := time.Now()
	s.Shutdown("test over")
	s.mu.Lock()
	running := e.wtCount.running
	s.mu.Unlock()
	if running {
		t.Fatal("the session ended with a worktree count still running git")
	}
	if d := time.Since(begin); d > 20*time.Second {
		t.Fatalf("the session's end waited %s for a count instead of stopping it", d)
	}
}

// What an agent writes into its repository's configuration from its
// worktree never runs when melmux reviews its work: the border's +A −D and
// the diff command run neither its fsmonitor, textconv, external diff, clean
// filter nor hooks (each would touch a marker), and still count its changes.
func TestReviewingAWorktreePaneRunsNothingItConfigured(t *testing.T) {
	repo := gitRepo(t)
	s, c := startServer(t)
	ctx := context.Background()
	if err := c.Call(ctx, "new", proto.NewParams{Command: []string{"sleep", "600"}, Cwd: repo}, nil); err != nil {
		t.Fatal(err)
	}
	markers, scripts := t.TempDir(), t.TempDir()
	prog := func(name string) string {
		p := filepath.Join(scripts, name)
		text := "#!/bin/sh\ntouch '" + filepath.Join(markers, name) + "'\nif [ $# -gt 0 ] && [ -f \"$1\" ]; then cat \"$1\"; else cat; fi\n"
		testexec.Write(t, p, []byte(text))
		return p
	}
	testexec.Write(t, filepath.Join(scripts, "post-index-change"), []byte("#!/bin/sh\ntouch '"+filepath.Join(markers, "hook")+"'\n"))
	agent := strings.Join([]string{
		"git config core.hooksPath " + scripts,
		"git config diff.external " + prog("external-diff"),
		"git config diff.x.textconv " + prog("textconv"),
		"git config filter.f.clean " + prog("clean-filter"),
		"git config extensions.worktreeConfig true",
		"git config --worktree core.fsmonitor " + prog("fsmonitor"),
		"printf '*.txt diff=x filter=f\\n' > .gitattributes",
		"echo two >> a.txt",
		"echo done; exec sleep 600",
	}, " && ")
	if err := c.Call(ctx, "open_pane", proto.OpenPaneParams{Layout: "right", WorktreeName: "agent", Command: agent}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, "wait", proto.WaitParams{Pane: 2, Match: "^done$", Screen: true, TimeoutMS: 10000}, nil); err != nil {
		t.Fatal(err)
	}
	viewer := &client{tty: newConnTty(nil, &sync.Mutex{}, 100, 30)}
	var count *ui.DiffCount
	deadline := time.Now().Add(10 * time.Second)
	for count == nil {
		if time.Now().After(deadline) {
			t.Fatal("the count never arrived")
		}
		sc, _ := s.scene(viewer)
		for _, p := range sc.Panes {
			if p.ID == 2 {
				count = p.Diff
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	if *count != (ui.DiffCount{Added: 2, Deleted: 0}) {
		t.Fatalf("the border shows %+v, want +2 −0 (a line, and .gitattributes)", *count)
	}
	for _, stat := range []bool{false, true} {
		var res proto.DiffResult
		if err := c.Call(ctx, "diff", proto.DiffParams{Pane: 2, Stat: stat}, &res); err != nil {
			t.Fatal(err)
		}
		if res.Added != 2 || !strings.Contains(res.Text, "a.txt") {
			t.Fatalf("diff (stat %v): %+v", stat, res)
		}
	}
	ran, _ := os.ReadDir(markers)
	for _, m := range ran {
		t.Errorf("melmux ran %s", m.Name())
	}
	// git as a person runs it does run them: the test tests something.
	e, _ := s.lookup(2)
	_, _ = exec.Command("git", "-C", e.wt.Path, "diff", "--no-ext-diff").CombinedOutput()
	_, _ = exec.Command("git", "-C", e.wt.Path, "diff").CombinedOutput()
	_, _ = exec.Command("git", "-C", e.wt.Path, "add", "-N", ".gitattributes").CombinedOutput()
	for _, m := range []string{"fsmonitor", "textconv", "external-diff", "clean-filter", "hook"} {
		if _, err := os.Stat(filepath.Join(markers, m)); err != nil {
			t.Errorf("git itself did not run %s", m)
		}
	}
}
