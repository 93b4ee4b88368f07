package server

import (
	"context"
	"fmt"
	"sync"
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

// melAgent is a registered melmux agent. Its fields are read and written
// under melAgents.mu only (its ...Locked methods are called holding it), or
// on a copy (melAgents.view), which code of the pane table reads.
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

// melAgents is the agents part's registry of melmux agents (doc.go): per
// pane, the melmux agent registered with its queue and turns, and the
// channel closed at the pane's next agent change. Its lock comes after
// Server.mu: code of the pane table reads it inside its sections, and the
// agent's own calls take it alone, never Server.mu inside it, so an agent
// takes its next message and reports its turns while a command or a frame
// holds Server.mu.
type melAgents struct {
	mu    sync.Mutex // guards panes, each melPane, and the fields of each melAgent
	panes map[int]*melPane
}

// melPane is what melAgents keeps of one pane, from its start
// (startPaneLocked) until it leaves the pane table (removePane).
type melPane struct {
	p *pane.Pane
	// a is the melmux agent registered (nil for none; kept once exited).
	a *melAgent
	// ch is closed at the pane's next agent change (nil until asked for);
	// gen counts those changes made here. Whoever waits on a pane's agent
	// sleeps on ch: a registration, a report, a message queued or taken,
	// an exit, a hook's report (agentChangedLocked).
	ch  chan struct{}
	gen uint64
	// The melmux agent whose turns are told (toldID), the last turn it
	// reported working on and the last told finished (melReportedLocked).
	toldID        string
	started, told int
}

// add enters pane id, which runs p.
func (m *melAgents) add(id int, p *pane.Pane) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.panes == nil {
		m.panes = map[int]*melPane{}
	}
	m.panes[id] = &melPane{p: p}
}

// drop forgets pane id, waking whoever waits on its agent.
func (m *melAgents) drop(id int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if mp := m.panes[id]; mp != nil {
		mp.changedLocked()
		delete(m.panes, id)
	}
}

// do runs f holding m.mu, letting go of it even when f panics.
func (m *melAgents) do(f func()) {
	m.mu.Lock()
	defer m.mu.Unlock()
	f()
}

// changedLocked counts an agent change and wakes whoever waits on it.
// Caller holds melAgents.mu.
func (mp *melPane) changedLocked() {
	mp.gen++
	if mp.ch != nil {
		close(mp.ch)
		mp.ch = nil
	}
}

// changesLocked is a channel closed at the pane's next agent change.
// Caller holds melAgents.mu.
func (mp *melPane) changesLocked() <-chan struct{} {
	if mp.ch == nil {
		mp.ch = make(chan struct{})
	}
	return mp.ch
}

// changed is changedLocked of pane id.
func (m *melAgents) changed(id int) {
	m.do(func() {
		if mp := m.panes[id]; mp != nil {
			mp.changedLocked()
		}
	})
}

// changes is a channel closed at pane id's next agent change; nil (never
// ready) once the pane has left.
func (m *melAgents) changes(id int) (ch <-chan struct{}) {
	m.do(func() {
		if mp := m.panes[id]; mp != nil {
			ch = mp.changesLocked()
		}
	})
	return ch
}

// view is a copy of pane id's melmux agent (nil for none), without its
// queue's messages and unread turn endings, and the count of the pane's
// agent changes made here.
func (m *melAgents) view(id int) (a *melAgent, gen uint64) {
	m.do(func() {
		mp := m.panes[id]
		if mp == nil {
			return
		}
		gen = mp.gen
		if mp.a != nil {
			c := *mp.a
			n := len(mp.a.queue)
			c.queue = mp.a.queue[:n:n] // for Pending: its messages are not to be read
			c.unread = nil
			a = &c
		}
	})
	return a, gen
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

// melLocked is a copy of the pane's melmux agent (melAgents.view) when
// list_panes and the borders should show it: while it lives, and once it
// exited unless the pane now runs a coding agent found among its processes
// (the shell it left went on to claude). Caller holds the pane's agent
// lock.
func (s *Server) melLocked(e *paneEntry) *melAgent {
	e.mustHoldAgent()
	a, _ := s.mels.view(e.p.ID())
	return e.shownMel(a)
}

// shownMel is a, or nil when the pane's melmux agent a has exited and the
// pane now runs a coding agent found among its processes.
func (e *paneEntry) shownMel(a *melAgent) *melAgent {
	e.mustHoldAgent()
	return shownMelOf(a, e.kind)
}

// shownMelOf is shownMel for a pane that runs the coding agent kind.
func shownMelOf(a *melAgent, kind string) *melAgent {
	if a == nil || a.live || kind == "" {
		return a
	}
	return nil
}

// melShownLocked says melLocked would give an agent, without copying it,
// and gives agentGenLocked's count. Caller holds the pane's agent lock.
func (s *Server) melShownLocked(e *paneEntry) (shown bool, gen uint64) {
	e.mustHoldAgent()
	s.mels.do(func() {
		if mp := s.mels.panes[e.p.ID()]; mp != nil {
			shown = mp.a != nil && (mp.a.live || e.kind == "")
			gen = mp.gen
		}
	})
	return shown, e.ag.gen + gen
}

// agentGenLocked counts the changes of the pane's agent: those made under
// its agent lock (hooks, decisions) and those of its melmux agent.
func (s *Server) agentGenLocked(e *paneEntry) uint64 {
	_, gen := s.melShownLocked(e)
	return gen
}

// agentChanges is a channel closed at the pane's next agent change: a
// melmux agent's registration, report, message queued or taken, exit, or
// a change decided under the pane's agent lock. No lock of the server's
// need be held.
func (s *Server) agentChanges(e *paneEntry) <-chan struct{} {
	return s.mels.changes(e.p.ID())
}

// melChanged tells the clients (a redraw) and the state file of a change
// made under melAgents.mu alone, once it is let go of; it takes no lock.
func (s *Server) melChanged() {
	s.stateChanged()
	s.invalidate()
}

// agentChangedLocked wakes everyone waiting on the pane's agent (agent_next,
// read_agent, wait --state, spawn_agent) and redraws the clients. Caller
// holds the pane's agent lock.
func (s *Server) agentChangedLocked(e *paneEntry) {
	e.mustHoldAgent()
	e.ag.gen++ // the pane's last agent decision is out of date
	s.mels.changed(e.p.ID())
	s.invalidateLocked()
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

// withLiveAgent runs f holding melAgents.mu (and no other lock of the
// server's) with the live melmux agent of a pane that calls itself id: the
// check every call of the agent's own (agent_next, agent_report) makes.
// The call must come on the connection that registered the agent (ctx is
// the request's): the pane and id are in every list_panes, and a report
// from elsewhere would put words in the agent's mouth, an agent_next take
// its message.
func (s *Server) withLiveAgent(ctx context.Context, method string, pane int, id string, f func(mp *melPane, a *melAgent) error) error {
	var err error
	missing := false
	s.mels.do(func() {
		mp := s.mels.panes[pane]
		if mp == nil {
			missing = true
			return
		}
		a := mp.a
		switch {
		case a == nil:
			err = errorf(proto.CodeFailed, "%s: pane %d has no registered melmux agent (agent_register first)", method, pane)
		case a.id != id:
			err = errorf(proto.CodeBadParams, "%s: pane %d's melmux agent is %s, not %s", method, pane, a.id, id)
		case !a.live:
			err = errorf(proto.CodeFailed, "%s: the melmux agent %s in pane %d has exited (its connection closed); register again", method, id, pane)
		case a.conn != connOf(ctx):
			err = errorf(proto.CodeForbidden, "%s: the melmux agent %s of pane %d registered on another connection; only that connection (the agent's own) may call %s for it", method, id, pane, method)
		default:
			err = f(mp, a)
		}
	})
	if missing {
		// No such pane: the pane table says so, as for any command.
		if err := s.withLockErr(func() error { _, err := s.lookupLocked(pane); return err }); err != nil {
			return err
		}
		return errorf(proto.CodeFailed, "%s: pane %d has no registered melmux agent (agent_register first)", method, pane)
	}
	return err
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
// ends (ctx is that connection's), keeping what it reported last. It takes
// melAgents.mu only.
func (s *Server) bindAgent(ctx context.Context, pane int, a *melAgent) {
	defer s.recovered("melmux agent binding", nil)
	select {
	case <-ctx.Done():
	case <-s.done:
		return
	}
	s.mels.do(func() {
		a.live = false
		s.log.Info("melmux agent exited", "pane", pane, "agent", a.id, "turn", a.turn)
		if mp := s.mels.panes[pane]; mp != nil && mp.a == a {
			mp.changedLocked()
		}
	})
	s.melChanged()
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
