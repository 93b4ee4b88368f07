package server

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	mxclient "github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
)

// agentConn is a melmux agent's own connection, registered for a pane, as
// `melmux agent` holds one.
type agentConn struct {
	t    *testing.T
	c    *mxclient.Client
	pane int
	id   string
}

// registerAgent opens a connection and registers an agent on it.
func registerAgent(t *testing.T, s *Server, pane int, role, task string) *agentConn {
	t.Helper()
	c, err := mxclient.Dial(s.sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	a := &agentConn{t: t, c: c, pane: pane, id: uuid.NewString()}
	if err := c.Call(context.Background(), "agent_register", proto.AgentRegisterParams{Pane: pane, ID: a.id, Role: role, Model: "m1", Task: task}, nil); err != nil {
		t.Fatalf("agent_register: %v", err)
	}
	return a
}

// next takes the agent's next message.
func (a *agentConn) next() proto.AgentMessage {
	a.t.Helper()
	var m proto.AgentMessage
	if err := a.c.Call(context.Background(), "agent_next", proto.AgentNextParams{Pane: a.pane, ID: a.id, WaitMS: 10000}, &m); err != nil {
		a.t.Fatalf("agent_next: %v", err)
	}
	if m.Turn == 0 {
		a.t.Fatal("agent_next: no message within 10s")
	}
	return m
}

// report sends a state change.
func (a *agentConn) report(state string, turn int, reply string, legs int) {
	a.t.Helper()
	if err := a.tryReport(state, turn, reply, legs); err != nil {
		a.t.Fatal(err)
	}
}

func (a *agentConn) tryReport(state string, turn int, reply string, legs int) error {
	p := proto.AgentReportParams{Pane: a.pane, ID: a.id, State: state, Turn: turn, Reply: reply, Legs: legs, InputTokens: 100 * legs, OutputTokens: 10 * legs}
	if err := a.c.Call(context.Background(), "agent_report", p, nil); err != nil {
		return fmt.Errorf("agent_report: %w", err)
	}
	return nil
}

// send is send_agent from c.
func send(t *testing.T, c *mxclient.Client, pane int, text, from string) proto.SendAgentResult {
	t.Helper()
	var r proto.SendAgentResult
	if err := c.Call(context.Background(), "send_agent", proto.SendAgentParams{Pane: pane, Text: text, From: from}, &r); err != nil {
		t.Fatalf("send_agent %q: %v", text, err)
	}
	return r
}

func newPane(t *testing.T, c *mxclient.Client, argv ...string) {
	t.Helper()
	if err := c.Call(context.Background(), "new", proto.NewParams{Command: argv}, nil); err != nil {
		t.Fatal(err)
	}
}

func listAgent(t *testing.T, c *mxclient.Client, pane int) *proto.AgentInfo {
	t.Helper()
	var panes []proto.PaneInfo
	if err := c.Call(context.Background(), "list_panes", nil, &panes); err != nil {
		t.Fatal(err)
	}
	for _, p := range panes {
		if p.ID == pane {
			return p.Agent
		}
	}
	t.Fatalf("no pane %d in list_panes", pane)
	return nil
}

// workingAgent starts a session whose pane 1 holds a melmux agent working on
// its turn 1.
func workingAgent(t *testing.T) (*Server, *mxclient.Client, *agentConn) {
	t.Helper()
	s, c := startServer(t)
	newPane(t, c, "sleep", "600")
	a := registerAgent(t, s, 1, "worker", "")
	send(t, c, 1, "one", "")
	m := a.next()
	a.report("working", m.Turn, "", 1)
	return s, c, a
}

// onTurnWait makes f run the first time read_agent sleeps on a turn; the
// test ends only once f has.
func onTurnWait(t *testing.T, s *Server, f func() error) {
	var once sync.Once
	var wg sync.WaitGroup
	hook := func() {
		once.Do(func() {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := f(); err != nil {
					t.Error(err)
				}
			}()
		})
	}
	s.hooks.turnWait.Store(&hook)
	t.Cleanup(wg.Wait)
}

// Messages from a lead (send_agent) and from the person typing in the
// agent's pane (forwarded by its REPL) get turn ids in arrival order and come
// out of agent_next in that order, none lost.
func TestAgentMessagesKeepOneOrder(t *testing.T) {
	t.Parallel()
	s, c := startServer(t)
	newPane(t, c, "sleep", "600")
	a := registerAgent(t, s, 1, "worker", "")
	if info := listAgent(t, c, 1); info == nil || info.Kind != "melmux" || info.Role != "worker" || info.ID != a.id || info.State != "waiting" || info.Model != "m1" {
		t.Fatalf("list_panes should show the registered agent waiting for a message: %+v", info)
	}
	r1 := send(t, c, 1, "first from the lead", "")
	r2 := send(t, a.c, 1, "typed by the person", "person")
	r3 := send(t, c, 1, "second from the lead", "")
	for i, r := range []proto.SendAgentResult{r1, r2, r3} {
		if r.Kind != "melmux" || !r.Delivered || r.Turn != i+1 || r.Ahead != i {
			t.Fatalf("message %d: want turn %d with %d ahead, got %+v", i+1, i+1, i, r)
		}
	}
	if info := listAgent(t, c, 1); info.Pending != 3 {
		t.Fatalf("three messages are queued, list_panes says %d", info.Pending)
	}
	want := []proto.AgentMessage{{Turn: 1, Text: "first from the lead", From: "send_agent"},
		{Turn: 2, Text: "typed by the person", From: "person"}, {Turn: 3, Text: "second from the lead", From: "send_agent"}}
	for _, w := range want {
		if m := a.next(); m != w {
			t.Fatalf("agent_next: got %+v, want %+v", m, w)
		}
	}
	// Nothing queued: a bounded agent_next answers turn 0.
	var m proto.AgentMessage
	if err := a.c.Call(context.Background(), "agent_next", proto.AgentNextParams{Pane: 1, ID: a.id, WaitMS: 50}, &m); err != nil || m.Turn != 0 {
		t.Fatalf("agent_next on an empty queue: %v %+v", err, m)
	}
}

// agent_next blocks until a message is queued; it does not answer empty.
func TestAgentNextWaitsForAMessage(t *testing.T) {
	t.Parallel()
	s, c := startServer(t)
	newPane(t, c, "sleep", "600")
	a := registerAgent(t, s, 1, "lead", "")
	got := make(chan proto.AgentMessage, 1)
	go func() {
		var m proto.AgentMessage
		if err := a.c.Call(context.Background(), "agent_next", proto.AgentNextParams{Pane: 1, ID: a.id}, &m); err != nil {
			t.Error(err)
		}
		got <- m
	}()
	send(t, c, 1, "hello", "")
	select {
	case m := <-got:
		if m.Turn != 1 || m.Text != "hello" {
			t.Fatalf("agent_next: %+v", m)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("agent_next did not wake for the message")
	}
}

// read_agent waits for the turns queued when it was called, and answers with
// the reply once the agent reports the turn finished.
func TestReadAgentWaitsForTheTurn(t *testing.T) {
	t.Parallel()
	s, c := startServer(t)
	newPane(t, c, "sleep", "600")
	a := registerAgent(t, s, 1, "worker", "count the files")
	m := a.next()
	if m != (proto.AgentMessage{Turn: 1, Text: "count the files", From: "task"}) {
		t.Fatalf("a task given at registration is turn 1: %+v", m)
	}
	a.report("working", m.Turn, "", 1)
	onTurnWait(t, s, func() error { return a.tryReport("idle", m.Turn, "there are 12 files", 3) })
	var r proto.ReadAgentResult
	if err := c.Call(context.Background(), "read_agent", proto.ReadAgentParams{Pane: 1, WaitMS: 60000}, &r); err != nil {
		t.Fatal(err)
	}
	if !r.TurnDone || r.Reply != "there are 12 files" || r.Agent == nil || r.Agent.State != "idle" || r.Agent.Turn != 1 ||
		r.Agent.Legs != 3 || r.Agent.InputTokens != 300 || r.Agent.OutputTokens != 30 || r.Agent.Task != "count the files" {
		t.Fatalf("read_agent after the turn: %+v %+v", r, r.Agent)
	}
	if !strings.HasPrefix(r.WaitNote, "turn 1 finished after ") {
		t.Fatalf("wait note: %q", r.WaitNote)
	}
	// Nothing unfinished: an immediate answer, without a note.
	var again proto.ReadAgentResult
	if err := c.Call(context.Background(), "read_agent", proto.ReadAgentParams{Pane: 1}, &again); err != nil || !again.TurnDone || again.WaitNote != "" || again.Reply != "there are 12 files" {
		t.Fatalf("read_agent of a finished agent: %v %+v", err, again)
	}
}

// The wait is bounded: past it, read_agent says the turn is still going.
// Negative wait_ms does not wait at all.
func TestReadAgentWaitIsBounded(t *testing.T) {
	t.Parallel()
	_, c, _ := workingAgent(t)
	var r proto.ReadAgentResult
	if err := c.Call(context.Background(), "read_agent", proto.ReadAgentParams{Pane: 1, WaitMS: 100}, &r); err != nil {
		t.Fatal(err)
	}
	if r.TurnDone || r.Agent.State != "working" || r.WaitNote != "stopped waiting after 100ms: turn 1 is still working; read_agent again later" {
		t.Fatalf("read_agent at its bound: %+v", r)
	}
	send(t, c, 1, "two", "")
	r = proto.ReadAgentResult{}
	if err := c.Call(context.Background(), "read_agent", proto.ReadAgentParams{Pane: 1, WaitMS: -1}, &r); err != nil {
		t.Fatal(err)
	}
	if r.TurnDone || r.WaitedMS != 0 || r.WaitNote != "turn 2 is still queued (the agent is on turn 1) (not waited for)" {
		t.Fatalf("read_agent without waiting: %+v", r)
	}
}

// The registration lives as long as its connection: when the agent's
// connection closes mid-turn, the agent is exited at once, with its last
// reply, turn and counters kept; a new agent may then register in the pane.
func TestAgentExitsWithItsConnection(t *testing.T) {
	t.Parallel()
	s, c := startServer(t)
	newPane(t, c, "sleep", "600")
	a := registerAgent(t, s, 1, "worker", "")
	send(t, c, 1, "one", "")
	m := a.next()
	a.report("idle", m.Turn, "reply one", 2)
	send(t, c, 1, "two", "")
	m = a.next()
	a.report("working", m.Turn, "", 4)
	onTurnWait(t, s, a.c.Close)
	var r proto.ReadAgentResult
	if err := c.Call(context.Background(), "read_agent", proto.ReadAgentParams{Pane: 1, WaitMS: 60000}, &r); err != nil {
		t.Fatal(err)
	}
	if r.TurnDone || r.Agent.State != "exited" || r.Reply != "reply one" || r.Agent.Turn != 2 || r.Agent.Legs != 4 ||
		r.WaitNote != "the agent exited before turn 2 finished" {
		t.Fatalf("read_agent of an agent whose connection closed: %+v %+v", r, r.Agent)
	}
	if info := listAgent(t, c, 1); info == nil || info.State != "exited" || info.ID != a.id {
		t.Fatalf("list_panes keeps the exited agent: %+v", info)
	}
	// Sending to it is an error now, not text typed into what it left.
	err := c.Call(context.Background(), "send_agent", proto.SendAgentParams{Pane: 1, Text: "three"}, nil)
	if err == nil || !strings.Contains(err.Error(), "has exited") {
		t.Fatalf("send_agent to an exited agent: %v", err)
	}
	b := registerAgent(t, s, 1, "worker", "")
	if info := listAgent(t, c, 1); info.ID != b.id || info.State != "waiting" {
		t.Fatalf("a new registration replaces the exited agent: %+v", info)
	}
	if r := send(t, c, 1, "again", ""); r.Turn != 1 {
		t.Fatalf("the new agent counts its own turns from 1: %+v", r)
	}
}

// wait --state follows a melmux agent's reports, woken by them (the agent
// prints nothing that would wake it otherwise).
func TestWaitStateFollowsAMelmuxAgent(t *testing.T) {
	t.Parallel()
	s, c, a := workingAgent(t)
	done := make(chan proto.WaitResult, 1)
	go func() {
		var r proto.WaitResult
		if err := c.Call(context.Background(), "wait", proto.WaitParams{Pane: 1, State: "idle", TimeoutMS: 60000}, &r); err != nil {
			t.Error(err)
		}
		done <- r
	}()
	a.report("idle", 1, "ok", 1)
	select {
	case r := <-done:
		if r.Held != "melmux is idle" {
			t.Fatalf("wait held %q", r.Held)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("wait --state idle did not follow the agent's report")
	}
	// The attached view names it; waiting for its next message, it is
	// ready, which asks nothing of the person: no mark on its tab.
	a.report("waiting", 1, "", 1)
	viewer := &client{tty: newConnTty(nil, nil, 80, 24)}
	sc, _ := s.scene(viewer)
	if sc.Panes[0].Command != "mel worker" || sc.Panes[0].State != "ready" || sc.Tabs[0].Attention || sc.Tabs[0].Done {
		t.Fatalf("scene of a waiting melmux agent: %+v %+v", sc.Panes[0], sc.Tabs[0])
	}
	// Nor is it an agent that needs the person in melmux agents, the
	// agents view and next-waiting (C-b A).
	var rows []proto.AgentRow
	s.withAgentsRead(false, func(ar *agentsRead) { rows = s.agentRowsLocked(ar, time.Now()) })
	if len(rows) != 1 || rows[0].Agent.State != "waiting" || rows[0].NeedsYou != 0 {
		t.Fatalf("agents rows of a melmux agent ready for its next message: %+v", rows)
	}
}

// Every wrong call names what was wrong and what is allowed.
func TestAgentCommandsRefuseBadParams(t *testing.T) {
	t.Parallel()
	s, c := startServer(t)
	newPane(t, c, "sleep", "600")
	ctx := context.Background()
	id := uuid.NewString()
	a := registerAgent(t, s, 1, "worker", "")
	cases := []struct {
		method string
		params any
		code   string
		want   string
	}{
		{"agent_register", proto.AgentRegisterParams{ID: id, Role: "worker"}, proto.CodeBadParams, "$MELMUX_PANE"},
		{"agent_register", proto.AgentRegisterParams{Pane: 1, ID: id, Role: "boss"}, proto.CodeBadParams, `role "boss" is not lead or worker`},
		{"agent_register", proto.AgentRegisterParams{Pane: 1, ID: "agent-7", Role: "worker"}, proto.CodeBadParams, `id "agent-7" is not a uuid`},
		{"agent_register", proto.AgentRegisterParams{Pane: 9, ID: id, Role: "worker"}, proto.CodeNoSuchPane, "pane 9 does not exist (panes: 1)"},
		{"agent_register", proto.AgentRegisterParams{Pane: 1, ID: id, Role: "worker"}, proto.CodeFailed, "already has a live melmux agent (worker " + a.id + ")"},
		{"agent_report", proto.AgentReportParams{Pane: 1, ID: a.id, State: "done"}, proto.CodeBadParams, `state "done" is not one of working, waiting, idle`},
		{"agent_report", proto.AgentReportParams{Pane: 1, ID: id, State: "idle"}, proto.CodeBadParams, "pane 1's melmux agent is " + a.id + ", not " + id},
		{"agent_next", proto.AgentNextParams{Pane: 1, ID: a.id, WaitMS: -5}, proto.CodeBadParams, "wait_ms must be 0"},
		{"send_agent", proto.SendAgentParams{Pane: 1, Text: "  \n"}, proto.CodeBadParams, `"text" is required and must not be empty`},
		{"send_agent", proto.SendAgentParams{Pane: 1, Text: "x", From: "robot"}, proto.CodeBadParams, `from "robot" is not allowed`},
		{"send_agent", map[string]any{"pane": 1, "text": "x", "turn": 3}, proto.CodeBadParams, "allowed: from, pane, text"},
		{"read_agent", proto.ReadAgentParams{}, proto.CodeBadParams, `"pane" is required`},
		{"spawn_agent", proto.SpawnAgentParams{Layout: "tab"}, proto.CodeBadParams, `"task" is required`},
		{"spawn_agent", proto.SpawnAgentParams{Task: "x", Env: []string{"NOEQUALS"}}, proto.CodeBadParams, `env entry "NOEQUALS" is not KEY=VALUE`},
		{"spawn_agent", proto.SpawnAgentParams{Task: "x"}, proto.CodeFailed, "does not know its melmux binary"},
	}
	for _, tc := range cases {
		err := c.Call(ctx, tc.method, tc.params, nil)
		var pe *proto.Error
		if !errors.As(err, &pe) || pe.Code != tc.code || !strings.Contains(pe.Message, tc.want) {
			t.Errorf("%s %+v: want %s containing %q, got %v", tc.method, tc.params, tc.code, tc.want, err)
		}
	}
	// (Only the agent's own connection gets as far as the turn.)
	err := a.c.Call(ctx, "agent_report", proto.AgentReportParams{Pane: 1, ID: a.id, State: "idle", Turn: 4}, nil)
	if pe := (*proto.Error)(nil); !errors.As(err, &pe) || pe.Code != proto.CodeBadParams || !strings.Contains(pe.Message, "turn 4 was never given") {
		t.Errorf("agent_report of turn 4: want bad_params containing %q, got %v", "turn 4 was never given", err)
	}
	// A pane without a registered agent: its calls say to register first.
	newPaneErr := c.Call(ctx, "open_pane", proto.OpenPaneParams{Layout: "tab", Command: "sleep 600", NoWait: true}, nil)
	if newPaneErr != nil {
		t.Fatal(newPaneErr)
	}
	err = c.Call(ctx, "agent_next", proto.AgentNextParams{Pane: 2, ID: id}, nil)
	if err == nil || !strings.Contains(err.Error(), "pane 2 has no registered melmux agent (agent_register first)") {
		t.Errorf("agent_next without a registration: %v", err)
	}
}
