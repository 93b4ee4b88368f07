package server

import (
	"context"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/proto"
)

// holdServerMu holds Server.mu, as a long command or a frame would, until
// the returned func is called (or the test ends).
func holdServerMu(t *testing.T, s *Server) (release func()) {
	t.Helper()
	held, done := make(chan struct{}), make(chan struct{})
	go s.withLock(func() {
		close(held)
		<-done
	})
	<-held
	var released bool
	release = func() {
		if !released {
			released = true
			close(done)
		}
	}
	t.Cleanup(release)
	return release
}

// within runs f and fails the test if it has not returned within d (a
// bound far above what f takes when it does not wait on the lock held).
func within(t *testing.T, d time.Duration, what string, f func() error) {
	t.Helper()
	errc := make(chan error, 1)
	go func() { errc <- f() }()
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	case <-time.After(d):
		t.Fatalf("%s did not answer within %s while Server.mu was held: it waits on the pane table's lock", what, d)
	}
}

// A melmux agent's own calls and read_agent of a live one are the agents
// part's (melAgents, under its own lock): while Server.mu is held by a
// command or a frame, the agent takes its next message and reports its
// turn under way, a lead reads it, and the agent takes the message after.
func TestAMelmuxAgentGoesOnWhileServerMuIsHeld(t *testing.T) {
	t.Parallel()
	s, c := startServer(t)
	newPane(t, c, "sleep", "600")
	a := registerAgent(t, s, 1, "worker", "")
	send(t, c, 1, "one", "")
	send(t, c, 1, "two", "")

	release := holdServerMu(t, s)
	var m proto.AgentMessage
	within(t, 10*time.Second, "agent_next", func() error {
		return a.c.Call(context.Background(), "agent_next", proto.AgentNextParams{Pane: 1, ID: a.id, WaitMS: 10000}, &m)
	})
	if m.Turn != 1 || m.Text != "one" {
		t.Fatalf("agent_next: got %+v, want turn 1 \"one\"", m)
	}
	var info proto.AgentInfo
	within(t, 10*time.Second, "agent_report working", func() error {
		p := proto.AgentReportParams{Pane: 1, ID: a.id, State: "working", Turn: 1, Legs: 1}
		return a.c.Call(context.Background(), "agent_report", p, &info)
	})
	if info.State != "working" || info.Turn != 1 || info.Pending != 1 {
		t.Fatalf("agent_report: got %+v, want working on turn 1 with 1 pending", info)
	}
	var read proto.ReadAgentResult
	within(t, 10*time.Second, "read_agent", func() error {
		return c.Call(context.Background(), "read_agent", proto.ReadAgentParams{Pane: 1, WaitMS: -1}, &read)
	})
	if read.Agent == nil || read.Agent.State != "working" || read.Agent.Turn != 1 || read.TurnDone || read.Status != "running" {
		t.Fatalf("read_agent: got %+v (agent %+v), want working on turn 1, turn 2 not done", read, read.Agent)
	}
	within(t, 10*time.Second, "agent_next", func() error {
		return a.c.Call(context.Background(), "agent_next", proto.AgentNextParams{Pane: 1, ID: a.id, WaitMS: 10000}, &m)
	})
	if m.Turn != 2 || m.Text != "two" {
		t.Fatalf("agent_next: got %+v, want turn 2 \"two\"", m)
	}
	release()

	// What the agent did while the pane table was busy is what list_panes
	// shows after.
	if got := listAgent(t, c, 1); got == nil || got.Turn != 1 || got.State != "working" || got.Pending != 0 {
		t.Fatalf("list_panes after: %+v, want working on turn 1, none pending", got)
	}
}
