package orchestrator

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
)

// Session ties an agent to the pane it runs in: it registers with the
// session server (which then lists it, shows its state and lets a lead send
// it messages and read its replies), takes its messages from the session's
// queue, and reports its state. The registration lasts as long as the
// connection: when the agent's process ends, the server marks it exited.
type Session struct {
	c    *client.Client
	pane int
	id   string

	mu   sync.Mutex // guards last
	last proto.AgentReportParams
}

// JoinSession connects to the session at sock and registers the agent for
// pane.
func JoinSession(ctx context.Context, sock string, reg proto.AgentRegisterParams) (*Session, error) {
	c, err := client.Dial(sock)
	if err != nil {
		return nil, err
	}
	if err := c.Call(ctx, "agent_register", reg, nil); err != nil {
		c.Close()
		return nil, fmt.Errorf("register with the session: %w", err)
	}
	return &Session{c: c, pane: reg.Pane, id: reg.ID, last: proto.AgentReportParams{Pane: reg.Pane, ID: reg.ID}}, nil
}

// Post queues a message for this agent, as a person typed it (from
// "person") or as its starting task ("task"), and returns its turn id.
func (s *Session) Post(ctx context.Context, text, from string) (int, error) {
	var r proto.SendAgentResult
	if err := s.c.Call(ctx, "send_agent", proto.SendAgentParams{Pane: s.pane, Text: text, From: from}, &r); err != nil {
		return 0, err
	}
	return r.Turn, nil
}

// Next blocks until the next message for the agent arrives.
func (s *Session) Next(ctx context.Context) (proto.AgentMessage, error) {
	var m proto.AgentMessage
	err := s.c.Call(ctx, "agent_next", proto.AgentNextParams{Pane: s.pane, ID: s.id}, &m)
	return m, err
}

// Report tells the session the agent's state. Fields left zero keep their
// last reported value, except Reply and Error, which belong to one turn.
func (s *Session) Report(ctx context.Context, state string, turn int, reply string, turnErr error, legs int, u Usage) error {
	s.mu.Lock()
	r := s.last
	r.State, r.Turn, r.Reply, r.Error = state, turn, reply, ""
	if turnErr != nil {
		r.Error = turnErr.Error()
	}
	r.Legs, r.InputTokens, r.OutputTokens = legs, u.InputTokens, u.OutputTokens
	s.last = r
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return s.c.Call(ctx, "agent_report", r, nil)
}

// Close ends the registration.
func (s *Session) Close() error { return s.c.Close() }
