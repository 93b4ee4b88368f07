package server

import (
	"context"
	"testing"

	"github.com/melmux/melmux/internal/proto"
)

// Two panes running the same program, each in its own worktree, are told
// apart in their borders by the worktree's name; a pane titled by the
// person keeps its title as it is.
func TestBorderNamesTheWorktree(t *testing.T) {
	repo := gitRepo(t)
	s, c := startServer(t)
	ctx := context.Background()
	if err := c.Call(ctx, "new", proto.NewParams{Command: []string{"sleep", "600"}, Cwd: repo}, nil); err != nil {
		t.Fatal(err)
	}
	for _, p := range []proto.OpenPaneParams{
		{Layout: "right", Command: "sleep 601", WorktreeName: "alpha", NoWait: true},
		{Layout: "down", Command: "sleep 601", WorktreeName: "beta", NoWait: true},
		{Layout: "down", Command: "sleep 601", WorktreeName: "gamma", Title: "mine", NoWait: true},
	} {
		if err := c.Call(ctx, "open_pane", p, nil); err != nil {
			t.Fatal(err)
		}
	}
	got := map[int][2]string{}
	sc, _ := s.scene(&client{tty: newConnTty(nil, nil, 200, 50)})
	for _, p := range sc.Panes {
		got[p.ID] = [2]string{p.Command, p.Title}
	}
	want := map[int][2]string{1: {"sleep 600", ""}, 2: {"sleep 601 [alpha]", ""}, 3: {"sleep 601 [beta]", ""}, 4: {"sleep 601", "mine"}}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("pane %d's border: command %q, title %q; want %q, %q", id, got[id][0], got[id][1], w[0], w[1])
		}
	}
}
