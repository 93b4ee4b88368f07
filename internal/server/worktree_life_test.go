package server

import (
	"context"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/ui"
)

// The border's +A −D follows the branch once it is merged into its base
// branch elsewhere (git merge in the main checkout, by the person): the
// next count shows only what main lacks yet.
func TestBorderCountFollowsABranchMergedElsewhere(t *testing.T) {
	repo := gitRepo(t)
	s, c := startServer(t)
	ctx := context.Background()
	if err := c.Call(ctx, "new", proto.NewParams{Command: []string{"sleep", "600"}, Cwd: repo}, nil); err != nil {
		t.Fatal(err)
	}
	work := "echo new > b.txt && git add b.txt && git -c user.name=t -c user.email=t@example.com commit -q -m b && echo two >> a.txt && echo done; exec sleep 600"
	if err := c.Call(ctx, "open_pane", proto.OpenPaneParams{Layout: "right", WorktreeName: "merged", Command: work}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, "wait", proto.WaitParams{Pane: 2, Match: "^done$", Screen: true, TimeoutMS: 10000}, nil); err != nil {
		t.Fatal(err)
	}
	e, err := s.lookup(2)
	if err != nil {
		t.Fatal(err)
	}
	viewer := &client{tty: newConnTty(nil, &sync.Mutex{}, 100, 30)}
	// countIs draws frames, each past the count's TTL, until the border
	// shows want.
	countIs := func(want ui.DiffCount, when string) {
		t.Helper()
		var got *ui.DiffCount
		deadline := time.Now().Add(20 * time.Second)
		for {
			sc, _ := s.scene(viewer)
			for _, p := range sc.Panes {
				if p.ID == 2 {
					got = p.Diff
				}
			}
			if got != nil && *got == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the border shows %+v, want %+v", when, got, want)
			}
			s.withLock(func() {
				if !e.wtCount.running {
					e.wtCount.at = time.Time{}
				}
			})
			time.Sleep(10 * time.Millisecond)
		}
	}
	countIs(ui.DiffCount{Added: 2}, "before the merge")
	if out, err := exec.Command("git", "-C", repo, "merge", "-q", "--no-ff", "--no-edit", "melmux/merged").CombinedOutput(); err != nil {
		t.Fatalf("git merge: %v\n%s", err, out)
	}
	countIs(ui.DiffCount{Added: 1}, "after the merge into main")
}
