package server

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/config"
	"github.com/melmux/melmux/internal/proto"
)

// panesNow lists the pane ids with their status.
func panesNow(t *testing.T, c interface {
	Call(context.Context, string, any, any) error
}) map[int]string {
	t.Helper()
	var list []proto.PaneInfo
	if err := c.Call(context.Background(), "list_panes", nil, &list); err != nil {
		t.Fatal(err)
	}
	out := map[int]string{}
	for _, p := range list {
		out[p.ID] = p.Status
	}
	return out
}

// remain_on_exit auto closes a pane whose default shell exited 0 and keeps
// every other pane for reading; the last pane closing ends the session.
func TestRemainOnExitAuto(t *testing.T) {
	t.Parallel()
	s, c := startServer(t)
	ctx := context.Background()
	if err := c.Call(ctx, "new", proto.NewParams{}, nil); err != nil { // 1: the default shell
		t.Fatal(err)
	}
	for _, p := range []proto.OpenPaneParams{
		{Layout: "tab"}, // 2: the default shell, exits 0
		{Layout: "tab"}, // 3: the default shell, exits 1
		{Layout: "tab", Argv: []string{"sh", "-c", "exit 0"}}, // 4: a command, even a shell's, stays
		{Layout: "tab", Argv: []string{"sh", "-c", "exit 2"}}, // 5
	} {
		p.NoWait = true
		if err := c.Call(ctx, "open_pane", p, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range []proto.SendKeysParams{{Pane: 2, Text: "exit\n"}, {Pane: 3, Text: "exit 1\n"}} {
		k.NoWait = true
		if err := c.Call(ctx, "send_keys", k, nil); err != nil {
			t.Fatal(err)
		}
	}
	for id := 2; id <= 5; id++ {
		var res proto.WaitResult
		if err := c.Call(ctx, "wait", proto.WaitParams{Pane: id, Exit: true, TimeoutMS: 10000}, &res); err != nil {
			t.Fatalf("wait for pane %d to exit: %v", id, err)
		}
	}
	want := map[int]string{1: "running", 3: "exited", 4: "exited", 5: "exited"}
	if got := panesNow(t, c); len(got) != len(want) || got[1] != "running" || got[3] != "exited" || got[4] != "exited" || got[5] != "exited" {
		t.Fatalf("panes after the exits: %v, want %v", got, want)
	}
	// The closed pane is named as such.
	err := c.Call(ctx, "read_pane", proto.ReadPaneParams{Pane: 2}, nil)
	if err == nil || !strings.Contains(err.Error(), "pane 2 does not exist: it closed when its program ended (exit code 0)") {
		t.Fatalf("read_pane of the closed pane: %v", err)
	}
	for _, id := range []int{3, 4, 5} {
		if err := c.Call(ctx, "kill_pane", proto.PaneRef{Pane: id}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Call(ctx, "send_keys", proto.SendKeysParams{Pane: 1, Text: "exit\n", NoWait: true}, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.Done():
	case <-time.After(10 * time.Second):
		t.Fatalf("the last pane closed but the session goes on: %v", panesNow(t, c))
	}
}

// remain_on_exit on keeps even a default shell that exited 0; off closes
// any pane whose program ended.
func TestRemainOnExitOnAndOff(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		remain string
		want   map[int]string
	}{
		{config.RemainOn, map[int]string{1: "running", 2: "exited", 3: "exited"}},
		{config.RemainOff, map[int]string{1: "running"}},
	} {
		t.Run(tc.remain, func(t *testing.T) {
			_, c := startServer(t, func(cfg *Config) { cfg.RemainOnExit = tc.remain })
			ctx := context.Background()
			if err := c.Call(ctx, "new", proto.NewParams{Command: []string{"sleep", "600"}}, nil); err != nil {
				t.Fatal(err)
			}
			for _, p := range []proto.OpenPaneParams{{Layout: "tab"}, {Layout: "tab", Argv: []string{"sh", "-c", "exit 2"}}} {
				p.NoWait = true
				if err := c.Call(ctx, "open_pane", p, nil); err != nil {
					t.Fatal(err)
				}
			}
			if err := c.Call(ctx, "send_keys", proto.SendKeysParams{Pane: 2, Text: "exit\n", NoWait: true}, nil); err != nil {
				t.Fatal(err)
			}
			for _, id := range []int{2, 3} {
				if err := c.Call(ctx, "wait", proto.WaitParams{Pane: id, Exit: true, TimeoutMS: 10000}, nil); err != nil {
					t.Fatalf("wait for pane %d to exit: %v", id, err)
				}
			}
			got := panesNow(t, c)
			if len(got) != len(tc.want) {
				t.Fatalf("panes: %v, want %v", got, tc.want)
			}
			for id, st := range tc.want {
				if got[id] != st {
					t.Fatalf("panes: %v, want %v", got, tc.want)
				}
			}
		})
	}
}
