package server

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

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

// A worker that joins a restored session again mid-turn registers that
// turn as under way: it shows working, read_agent waits for the turn's end
// and returns its reply, and the next message gets the next turn id. As a
// resumed registration it showed idle, and read_agent answered at once
// with no reply (the turn counted finished).
func TestAgentRegistersMidTurn(t *testing.T) {
	t.Parallel()
	s, c := startServer(t)
	newPane(t, c, "sleep", "600")
	ac, err := mxclient.Dial(s.sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ac.Close() })
	a := &agentConn{t: t, c: ac, pane: 1, id: uuid.NewString()}
	reg := proto.AgentRegisterParams{Pane: 1, ID: a.id, Role: "worker", Model: "m1", Turn: 2, Legs: 3, Working: true}
	if err := ac.Call(context.Background(), "agent_register", reg, nil); err != nil {
		t.Fatalf("agent_register: %v", err)
	}
	if info := listAgent(t, c, 1); info.State != "working" || info.Turn != 2 || info.Legs != 3 {
		t.Fatalf("a worker registered mid-turn should show working on turn 2: %+v", info)
	}
	read := make(chan proto.ReadAgentResult, 1)
	go func() {
		var r proto.ReadAgentResult
		if err := c.Call(context.Background(), "read_agent", proto.ReadAgentParams{Pane: 1, WaitMS: 60000}, &r); err != nil {
			t.Errorf("read_agent: %v", err)
		}
		read <- r
	}()
	select {
	case r := <-read:
		t.Fatalf("read_agent answered before the turn under way ended: %+v", r)
	case <-time.After(300 * time.Millisecond):
	}
	a.report("idle", 2, "the second reply", 4)
	if r := <-read; !r.TurnDone || r.Reply != "the second reply" || r.Agent == nil || r.Agent.Turn != 2 {
		t.Fatalf("read_agent waiting on the turn under way: %+v", r)
	}
	if r := send(t, c, 1, "three", ""); r.Turn != 3 || r.Ahead != 0 {
		t.Fatalf("the next message should be turn 3 with none ahead: %+v", r)
	}
	err = c.Call(context.Background(), "agent_register", proto.AgentRegisterParams{Pane: 1, ID: uuid.NewString(), Role: "worker", Working: true}, nil)
	var pe *proto.Error
	if !errors.As(err, &pe) || pe.Code != proto.CodeBadParams || !strings.Contains(pe.Message, "working needs the turn under way") {
		t.Fatalf("working at turn 0: want bad_params, got %v", err)
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
