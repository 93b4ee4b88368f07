package server

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/uuid"

	mxclient "github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
)

// An agent that resumes its conversation (as restore starts one) registers
// at its last turn with its counters: the session shows it idle there, takes
// its report of that turn, and gives its next message the next turn id. A
// fresh registration had it waiting at turn 0 with no legs and refused the
// report ("turn 3 was never given to the agent (turns given: 1-0)").
func TestResumedAgentGoesOnFromItsTurn(t *testing.T) {
	t.Parallel()
	s, c := startServer(t)
	newPane(t, c, "sleep", "600")
	ac, err := mxclient.Dial(s.sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ac.Close() })
	a := &agentConn{t: t, c: ac, pane: 1, id: uuid.NewString()}
	reg := proto.AgentRegisterParams{Pane: 1, ID: a.id, Role: "lead", Model: "m1", Turn: 3, Legs: 15, InputTokens: 1500, OutputTokens: 150}
	if err := ac.Call(context.Background(), "agent_register", reg, nil); err != nil {
		t.Fatalf("agent_register: %v", err)
	}
	info := listAgent(t, c, 1)
	if info.State != "idle" || info.Turn != 3 || info.Legs != 15 || info.InputTokens != 1500 || info.OutputTokens != 150 || info.Pending != 0 {
		t.Fatalf("a resumed agent should show idle at turn 3 with 15 legs and 1500/150 tokens: %+v", info)
	}
	a.report("idle", 3, "", 15)
	if r := send(t, c, 1, "four", ""); r.Turn != 4 || r.Ahead != 0 {
		t.Fatalf("the next message should be turn 4 with none ahead: %+v", r)
	}
	if m := a.next(); m.Turn != 4 || m.Text != "four" {
		t.Fatalf("agent_next: %+v", m)
	}
	a.report("idle", 4, "done", 16)
	if info := listAgent(t, c, 1); info.Turn != 4 || info.Legs != 16 {
		t.Fatalf("after turn 4: %+v", info)
	}
}

// A resumed registration's turn and counters are checked like a report's.
func TestAgentRegisterRefusesBadResumption(t *testing.T) {
	t.Parallel()
	_, c := startServer(t)
	newPane(t, c, "sleep", "600")
	for _, tc := range []struct {
		p    proto.AgentRegisterParams
		want string
	}{
		{proto.AgentRegisterParams{Turn: -1}, "turn -1 is not a turn a conversation can be at: 0 (a new one) to 1000000000"},
		{proto.AgentRegisterParams{Turn: maxResumedTurn + 1}, "turn 1000000001 is not a turn"},
		{proto.AgentRegisterParams{Legs: -2}, "legs, input_tokens and output_tokens must not be negative"},
		{proto.AgentRegisterParams{OutputTokens: -2}, "legs, input_tokens and output_tokens must not be negative"},
	} {
		p := tc.p
		p.Pane, p.ID, p.Role = 1, uuid.NewString(), "worker"
		err := c.Call(context.Background(), "agent_register", p, nil)
		var pe *proto.Error
		if !errors.As(err, &pe) || pe.Code != proto.CodeBadParams || !strings.Contains(pe.Message, tc.want) {
			t.Errorf("agent_register %+v: want bad_params containing %q, got %v", p, tc.want, err)
		}
	}
	if info := listAgent(t, c, 1); info != nil {
		t.Fatalf("no registration was refused into the pane: %+v", info)
	}
}
