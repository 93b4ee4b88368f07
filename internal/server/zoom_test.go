package server

import (
	"context"
	"sync"
	"testing"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/ui"
)

// Moving focus off a zoomed pane unzooms the tab, as tmux does, and every
// pane's program gets the size it is drawn at again; the status line marks
// a zoomed tab.
func TestFocusChangeUnzoomsAndResizes(t *testing.T) {
	t.Parallel()
	s, c := startServer(t) // 80x24: panes share 80x23
	ctx := context.Background()
	if err := c.Call(ctx, "new", proto.NewParams{Command: []string{"sleep", "600"}}, nil); err != nil {
		t.Fatal(err)
	}
	viewer := &client{s: s, tty: newConnTty(nil, &sync.Mutex{}, 80, 24)}
	run := func(name string, args ...string) {
		t.Helper()
		s.mu.Lock()
		focused := s.layout.Focused()
		s.mu.Unlock()
		if err := s.uiCommand(viewer, ui.Command{Name: name, Args: args, Pane: focused}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	sizes := func() map[int][2]int {
		var list []proto.PaneInfo
		if err := c.Call(ctx, "list_panes", nil, &list); err != nil {
			t.Fatal(err)
		}
		out := map[int][2]int{}
		for _, p := range list {
			out[p.ID] = [2]int{p.Cols, p.Rows}
		}
		return out
	}
	zoomed := func() bool {
		sc, _ := s.scene(viewer)
		return sc.Tabs[0].Zoomed
	}
	run("split-right")
	split := sizes()
	if split[2] != [2]int{39, 22} {
		t.Fatalf("after the split: %v", split)
	}
	run("zoom")
	if got := sizes(); got[2] != [2]int{80, 22} || !zoomed() {
		t.Fatalf("zoomed: %v, marked %v", got, zoomed())
	}
	// C-b Left, then a click on the other pane.
	for i, move := range []func(){
		func() { run("focus", "left") },
		func() { viewer.do(ui.FocusPane{Pane: 2}) },
	} {
		if i > 0 {
			run("zoom") // pane 1, focused by the move before
		}
		move()
		if got := sizes(); got[1] != split[1] || got[2] != split[2] || zoomed() {
			t.Fatalf("after moving focus off the zoomed pane: %v (want %v), marked zoomed %v", got, split, zoomed())
		}
	}
}
