package server

import (
	"context"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/proto"
)

// A command that panics while it holds Server.mu, or a pane's agent lock,
// answers with an internal error, and the session goes on: every other
// command still gets the lock.
func TestPanicUnderTheLockLeavesTheSessionUsable(t *testing.T) {
	t.Parallel()
	// The hook panics once armed, only in a request (under Server.call):
	// the panes' watchers take the lock too.
	var armed atomic.Bool
	hook := func() {
		if armed.Load() && strings.Contains(string(debug.Stack()), "(*Server).call(") && armed.Swap(false) {
			var m map[string]int
			m["boom"]++
		}
	}
	s, c := startServer(t)
	s.hooks.lock.Store(&hook)
	s.hooks.agentLock.Store(&hook) // the pane's agent lock, which wait and read_agent take alone
	newPane(t, c, "sh", "-c", "PS1='$ ' exec sh -i")
	waitLine(t, c, 1, `^\$`)
	ctx := context.Background()
	for _, req := range []struct {
		method string
		params any
	}{
		{"list_panes", nil},
		{"send_agent", proto.SendAgentParams{Pane: 1, Text: "echo hi"}},
		{"read_agent", proto.ReadAgentParams{Pane: 1, WaitMS: -1}},
		{"explain", proto.PaneRef{Pane: 1}},
		{"wait", proto.WaitParams{Pane: 1, State: "idle", TimeoutMS: 1000}},
		{"send_keys", proto.SendKeysParams{Pane: 1, Text: "echo hi", NoWait: true}},
		{"kill_pane", proto.PaneRef{Pane: 1}},
	} {
		armed.Store(true)
		err := c.Call(ctx, req.method, req.params, nil)
		if armed.Load() {
			t.Fatalf("%s never took Server.mu through withLock, nor a pane's agent lock through agentDo (err %v)", req.method, err)
		}
		want := req.method + " failed inside the server: assignment to entry in nil map (the session goes on)"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("%s panicking under the lock answered %v, want %q", req.method, err, want)
		}
		lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		var panes []proto.PaneInfo
		err = c.Call(lctx, "list_panes", nil, &panes)
		cancel()
		if err != nil {
			if !s.mu.TryLock() {
				s.mu.Unlock() // the cleanup's Shutdown needs it
				t.Fatalf("after %s panicked, Server.mu stayed locked: list_panes did not answer in 10s (%v)", req.method, err)
			}
			s.mu.Unlock()
			t.Fatalf("list_panes after %s panicked: %v", req.method, err)
		}
		if len(panes) == 0 || panes[0].ID != 1 {
			t.Fatalf("list_panes after %s panicked: %+v", req.method, panes)
		}
	}
}
