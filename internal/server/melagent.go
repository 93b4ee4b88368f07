package server

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/pane"
	"github.com/melmux/melmux/pane/agentstate"
)

// A melmux agent (`melmux agent` in a pane) registers for its pane over a
// control connection and lives as long as that connection. Its messages go
// through one queue here, so what a person types in its pane (forwarded by
// the agent's REPL) and what a lead sends arrive in one order, each with the
// next turn id.

// KindMelmux is the AgentInfo kind of a registered melmux agent.
const KindMelmux = "melmux"

// maxQueued bounds the messages an agent has not taken yet: a lead that sends
// in a loop gets an error instead of growing the server without end.
const maxQueued = 256

// The states a melmux agent reports: working on a turn, waiting for its next
// message, idle after a finished turn.
var reportStates = map[string]bool{"working": true, "waiting": true, "idle": true}

// melAgent is a registered melmux agent. Every field is guarded by Server.mu.
type melAgent struct {
	id, role, provider, model, task string

	live  bool      // its registering connection is open
	conn  *connTag  // that connection: agent_next and agent_report come on it only
	state string    // working | waiting | idle, as last reported
	at    time.Time // when it registered or last reported

	turn     int // the turn the reported state belongs to
	given    int // the last turn id given out; 0 before the first
	finished int // the highest turn reported finished (idle or waiting)
	queue    []proto.AgentMessage

	reply     string            // the latest reply, of any turn
	replyTurn int               // the turn reply ended
	err       string            // why the current turn failed, when it did
	unread    []proto.TurnReply // how finished turns ended (reply or failure), not returned by read_agent yet, oldest first, at most maxUnread

	legs, inTokens, outTokens int
}

// maxUnread bounds the turn endings kept for read_agent: a lead that queues
// more turns than this without reading gets the latest ones.
const maxUnread = 16

// endedLocked records how turn ended: its reply, or why it failed (either
// may be empty), for read_agent to give once.
func (a *melAgent) endedLocked(turn int, reply, err string) {
	if reply == "" && err == "" {
		return
	}
	if reply != "" {
		a.reply, a.replyTurn = reply, turn
	}
	if err != "" {
		a.err = err
	}
	n := len(a.unread)
	if n == 0 || a.unread[n-1].Turn != turn {
		if n == maxUnread {
			a.unread = append(a.unread[:0], a.unread[1:]...)
		}
		a.unread = append(a.unread, proto.TurnReply{Turn: turn})
		n = len(a.unread)
	}
	last := &a.unread[n-1]
	if reply != "" {
		last.Reply = reply
	}
	if err != "" {
		last.Error = err
	}
}

// takeEarlierLocked returns what the unread turn endings tell beyond the
// read_agent answer's Reply (the latest reply) and Error (the current
// turn's failure), and marks every ending read.
func (a *melAgent) takeEarlierLocked() []proto.TurnReply {
	var earlier []proto.TurnReply
	for _, r := range a.unread {
		if r.Turn == a.replyTurn {
			r.Reply = ""
		}
		if r.Turn == a.turn && r.Error == a.err {
			r.Error = ""
		}
		if r.Reply != "" || r.Error != "" {
			earlier = append(earlier, r)
		}
	}
	a.unread = nil
	return earlier
}

// unfinishedLocked counts the turns given out and not finished: queued,
// taken or being worked on. An exited agent finishes nothing more.
func (a *melAgent) unfinishedLocked() int {
	if !a.live {
		return 0
	}
	return max(a.given-a.finished, 0)
}

// infoLocked is the list_panes view of the agent, which runs in pane p.
func (a *melAgent) infoLocked(p *pane.Pane) *proto.AgentInfo {
	info := &proto.AgentInfo{ID: a.id, Role: a.role, Kind: KindMelmux, State: a.state, Model: a.model,
		Task: a.task, Turn: a.turn, Pending: len(a.queue), Legs: a.legs,
		InputTokens: a.inTokens, OutputTokens: a.outTokens}
	if !a.live || !p.Status().Running {
		info.State = string(agentstate.Exited)
	}
	return info
}

// melLocked is the pane's melmux agent when list_panes and the borders should
// show it: while it lives, and once it exited unless the pane now runs a
// coding agent found among its processes (the shell it left went on to
// claude).
func (e *paneEntry) melLocked() *melAgent {
	if e.mel == nil || e.mel.live || e.kind == "" {
		return e.mel
	}
	return nil
}

// agentChangesLocked is a channel closed at the pane's next melmux-agent
// change: a registration, a report, a message queued or taken, an exit.
func (e *paneEntry) agentChangesLocked() <-chan struct{} {
	if e.melCh == nil {
		e.melCh = make(chan struct{})
	}
	return e.melCh
}

// agentChangedLocked wakes everyone waiting on the pane's agent (agent_next,
// read_agent, wait --state, spawn_agent) and redraws the clients.
func (s *Server) agentChangedLocked(e *paneEntry) {
	e.ag.gen++ // the pane's last agent decision is out of date
	if e.melCh != nil {
		close(e.melCh)
		e.melCh = nil
	}
	s.invalidateLocked()
}

// agentChanges is agentChangesLocked for callers not holding the lock.
func (s *Server) agentChanges(e *paneEntry) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return e.agentChangesLocked()
}

// agentIDParam checks the id an agent gives for itself.
func agentIDParam(method, id string) error {
	if id == "" {
		return errorf(proto.CodeBadParams, "%s: parameter \"id\" is required: the agent's uuid, as given to agent_register", method)
	}
	if _, err := uuid.Parse(id); err != nil {
		return errorf(proto.CodeBadParams, "%s: id %q is not a uuid: %v", method, id, err)
	}
	return nil
}

// liveAgentLocked finds the live melmux agent of a pane that calls itself id:
// the check every call of the agent's own (agent_next, agent_report) makes.
// The call must come on the connection that registered the agent (ctx is
// the request's): the pane and id are in every list_panes, and a report
// from elsewhere would put words in the agent's mouth, an agent_next take
// its message.
func (s *Server) liveAgentLocked(ctx context.Context, method string, pane int, id string) (*paneEntry, *melAgent, error) {
	e, err := s.lookupLocked(pane)
	if err != nil {
		return nil, nil, err
	}
	a := e.mel
	switch {
	case a == nil:
		return nil, nil, errorf(proto.CodeFailed, "%s: pane %d has no registered melmux agent (agent_register first)", method, pane)
	case a.id != id:
		return nil, nil, errorf(proto.CodeBadParams, "%s: pane %d's melmux agent is %s, not %s", method, pane, a.id, id)
	case !a.live:
		return nil, nil, errorf(proto.CodeFailed, "%s: the melmux agent %s in pane %d has exited (its connection closed); register again", method, id, pane)
	case a.conn != connOf(ctx):
		return nil, nil, errorf(proto.CodeForbidden, "%s: the melmux agent %s of pane %d registered on another connection; only that connection (the agent's own) may call %s for it", method, id, pane, method)
	}
	return e, a, nil
}

// connTag stands for one control connection; its requests carry it in
// their context (serveControl).
type connTag struct{ _ byte } // not zero-sized: each tag's address is its own

type connKey struct{}

// withConn is ctx tagged as the context of a new control connection.
func withConn(ctx context.Context) context.Context {
	return context.WithValue(ctx, connKey{}, &connTag{})
}

// connOf is the control connection a request's ctx belongs to, nil for a
// call made in the server (Server.Call).
func connOf(ctx context.Context) *connTag {
	t, _ := ctx.Value(connKey{}).(*connTag)
	return t
}

// bindAgent marks the agent exited once the connection that registered it
// ends (ctx is that connection's), keeping what it reported last.
func (s *Server) bindAgent(ctx context.Context, pane int, e *paneEntry, a *melAgent) {
	defer s.recovered("melmux agent binding", nil)
	select {
	case <-ctx.Done():
	case <-s.done:
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	a.live = false
	s.log.Info("melmux agent exited", "pane", pane, "agent", a.id, "turn", a.turn)
	if e.mel == a {
		s.agentChangedLocked(e)
	}
}

// enqueueLocked gives text the agent's next turn id and queues it. It
// returns the message and how many turns before it are not finished.
func (a *melAgent) enqueueLocked(text, from string) (proto.AgentMessage, int, error) {
	if len(a.queue) >= maxQueued {
		return proto.AgentMessage{}, 0, fmt.Errorf("the agent has %d messages it has not taken yet; wait for it (read_agent) before sending more", len(a.queue))
	}
	ahead := a.unfinishedLocked()
	a.given++
	m := proto.AgentMessage{Turn: a.given, Text: text, From: from}
	a.queue = append(a.queue, m)
	return m, ahead, nil
}
