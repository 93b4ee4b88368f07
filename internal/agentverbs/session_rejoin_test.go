package agentverbs

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/server"
	"github.com/melmux/melmux/orchestrator"
)

// startSession serves a real session on sock with one pane, pane 1, as a
// restored session has its panes again; it returns a control client and a
// function that ends the session.
func startSession(t *testing.T, sock string) (*client.Client, func()) {
	t.Helper()
	s := server.New(server.Config{Name: "t", SocketPath: sock, Cols: 80, Rows: 24,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Shell: "/bin/sh"})
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve() }()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		s.Shutdown("test over")
		select {
		case <-served:
		case <-time.After(10 * time.Second):
			t.Error("Serve did not return after Shutdown")
		}
	}
	t.Cleanup(stop)
	c, err := client.Dial(sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Call(context.Background(), "new", proto.NewParams{Command: []string{"sleep", "600"}}, nil); err != nil {
		t.Fatal(err)
	}
	return c, stop
}

func paneAgent(t *testing.T, c *client.Client) *proto.AgentInfo {
	t.Helper()
	var panes []proto.PaneInfo
	if err := c.Call(context.Background(), "list_panes", nil, &panes); err != nil {
		t.Fatal(err)
	}
	for _, p := range panes {
		if p.ID == 1 {
			return p.Agent
		}
	}
	return nil
}

func sessionSocket(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "mxa")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, "t.sock")
}

// An agent whose connection ends under it (its session restarted: a worker
// on a host outlives the local session, restored on the same socket) joins
// the new session where it is: mid-turn, registered as working on that
// turn, whose end it then reports there (read_agent returns the reply),
// with its counters; its next message gets the next turn id. Before, the
// report failed and the agent stayed unknown to the new session.
func TestAgentJoinsTheRestartedSession(t *testing.T) {
	sock := sessionSocket(t)
	c, stop := startSession(t, sock)
	id := uuid.NewString()
	ctx := context.Background()
	s, err := joinSession(ctx, sock, proto.AgentRegisterParams{Pane: 1, ID: id, Role: "worker", Model: "m1"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for turn := 1; turn <= 2; turn++ {
		if n, err := s.Post(ctx, "do it", "task"); err != nil || n != turn {
			t.Fatalf("post: turn %d, %v", n, err)
		}
		if m, err := s.Next(ctx); err != nil || m.Turn != turn {
			t.Fatalf("next: %+v, %v", m, err)
		}
		if err := s.Report(ctx, "working", turn, "", nil, turn, orchestrator.Usage{}); err != nil {
			t.Fatal(err)
		}
		if turn == 1 {
			if err := s.Report(ctx, "idle", 1, "reply one", nil, 1, orchestrator.Usage{InputTokens: 10}); err != nil {
				t.Fatal(err)
			}
		}
	}

	stop()
	c, _ = startSession(t, sock)
	if err := s.Report(ctx, "idle", 2, "reply two", nil, 3, orchestrator.Usage{InputTokens: 30}); err != nil {
		t.Fatalf("the turn's end, reported across the restart: %v", err)
	}
	a := paneAgent(t, c)
	if a == nil || a.ID != id || a.Role != "worker" || a.State != "idle" || a.Turn != 2 || a.Legs != 3 || a.InputTokens != 30 {
		t.Fatalf("the agent in the restarted session: %+v", a)
	}
	var r proto.ReadAgentResult
	if err := c.Call(ctx, "read_agent", proto.ReadAgentParams{Pane: 1, WaitMS: -1}, &r); err != nil || !r.TurnDone || r.Reply != "reply two" {
		t.Fatalf("read_agent: %+v, %v", r, err)
	}
	var sent proto.SendAgentResult
	if err := c.Call(ctx, "send_agent", proto.SendAgentParams{Pane: 1, Text: "three"}, &sent); err != nil || sent.Turn != 3 {
		t.Fatalf("send_agent after the restart: %+v, %v", sent, err)
	}
	if m, err := s.Next(ctx); err != nil || m.Turn != 3 || m.Text != "three" {
		t.Fatalf("next after the restart: %+v, %v", m, err)
	}
}

// An agent whose session does not come back gives up after rejoinTimes.within:
// its calls fail saying so, and its REPL or line loop ends with that.
func TestAgentGivesUpOnAGoneSession(t *testing.T) {
	defer func(r rejoining) { rejoinTimes = r }(rejoinTimes)
	rejoinTimes.within, rejoinTimes.wait = time.Second, 100*time.Millisecond
	sock := sessionSocket(t)
	_, stop := startSession(t, sock)
	ctx := context.Background()
	s, err := joinSession(ctx, sock, proto.AgentRegisterParams{Pane: 1, ID: uuid.NewString(), Role: "worker"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	stop()
	start := time.Now()
	_, err = s.Next(ctx)
	if err == nil || !strings.Contains(err.Error(), "the session did not take the agent back within 1s") {
		t.Fatalf("next with the session gone: %v", err)
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Fatalf("giving up took %s", took)
	}
}
