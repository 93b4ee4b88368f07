package server

import (
	"context"
	"errors"
	"strings"
	"testing"

	mxclient "github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
)

// Another connection that names the pane and the agent's id (both shown by
// list_panes) can neither report for the agent nor take its messages: only
// the connection that registered it can. The agent itself goes on.
func TestAgentCallsBelongToItsConnection(t *testing.T) {
	t.Parallel()
	s, c := startServer(t)
	newPane(t, c, "sleep", "600")
	a := registerAgent(t, s, 1, "worker", "")
	send(t, c, 1, "the real message", "")

	other, err := mxclient.Dial(s.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	ctx := context.Background()
	refused := func(method string, params any) {
		t.Helper()
		err := other.Call(ctx, method, params, nil)
		var pe *proto.Error
		if !errors.As(err, &pe) || pe.Code != proto.CodeForbidden ||
			!strings.Contains(pe.Message, "registered on another connection; only that connection (the agent's own) may call "+method) {
			t.Fatalf("%s from another connection: %v, want a forbidden error naming the agent's own connection", method, err)
		}
	}
	refused("agent_report", proto.AgentReportParams{Pane: 1, ID: a.id, State: "idle", Turn: 1, Reply: "a forged reply"})
	refused("agent_next", proto.AgentNextParams{Pane: 1, ID: a.id, WaitMS: 1})

	if info := listAgent(t, c, 1); info.State != "waiting" || info.Pending != 1 {
		t.Fatalf("after the refused calls the agent shows %+v, want waiting with its message pending", info)
	}
	m := a.next()
	if m.Turn != 1 || m.Text != "the real message" {
		t.Fatalf("the agent's own agent_next: %+v", m)
	}
	a.report("idle", 1, "the real reply", 1)
	var rr proto.ReadAgentResult
	if err := c.Call(ctx, "read_agent", proto.ReadAgentParams{Pane: 1, WaitMS: -1}, &rr); err != nil {
		t.Fatal(err)
	}
	if rr.Reply != "the real reply" || !rr.TurnDone {
		t.Fatalf("read_agent after the agent's own report: %+v", rr)
	}
}
