package server

import (
	"maps"

	"github.com/melmux/melmux/internal/proto"
)

// The pane table's sections that show every pane's agent (list_panes' rows,
// the agents rows of `melmux agents`, the agents view, the key to the next
// waiting agent and the web pages) read what the decisions need of the
// panes' emulators before they take Server.mu, as a frame does: an emulator
// busy parsing a flood is locked while it parses, and under Server.mu every
// command of the session would wait behind it, under a pane's agent lock
// whoever needs that pane's agent.

// agentsRead is what one round of withAgentsRead read of the panes'
// emulators, for its section under Server.mu.
type agentsRead struct {
	reads map[int]*paneAgentRead
	// last says the round is the last: what was not read is read under
	// the locks.
	last bool
	// short are the panes whose read did not do (agentFromReadLocked):
	// the round is made again with their screens read.
	short []*paneEntry
}

// paneAgentRead is what a round read of one pane's emulator, holding no
// lock of the server's.
type paneAgentRead struct {
	e *paneEntry
	// sees says the screen was read: the pane's last decision no longer
	// held (agentSeesLocked), or a round before found the read short.
	sees  bool
	ag    agentRead
	title string // the title its program set
}

// withAgentsRead runs f as withFresh does, with what the agents of the
// panes need of their emulators read first, holding no lock of the
// server's (the program status and title, and the screen only when the
// pane's last decision no longer holds, as agentFreshRead reads it); f
// decides each pane's agent from that read by agentFromReadLocked. When a
// read did not do (the pane joined the table since, its last decision
// stopped holding since a read without its screen, or it was found
// running an agent only now), the round is dropped and made again with
// those panes' screens read: what f decides is as new as a decision read
// under the lock, and f, which may run again, starts its output anew. In
// the last of frameRounds rounds, what is still missing is read under the
// locks. With lazy, the first round reads no screen, for a section that
// may decide no agent (the pages' list, when what it keeps still holds):
// a pane whose decision no longer holds is read again in the next round,
// should the section decide it.
func (s *Server) withAgentsRead(lazy bool, f func(ar *agentsRead)) {
	screens := map[*paneEntry]bool{}
	for round := 1; ; round++ {
		var es map[int]*paneEntry
		s.withLock(func() { es = maps.Clone(s.panes) })
		ar := &agentsRead{reads: map[int]*paneAgentRead{}, last: round >= frameRounds}
		for id, e := range es {
			if r := s.readPaneAgent(e, screens[e], lazy && round == 1); r != nil {
				ar.reads[id] = r
			}
		}
		s.withFresh(func() { f(ar) })
		if len(ar.short) == 0 {
			return
		}
		for _, e := range ar.short {
			screens[e] = true
		}
	}
}

// readPaneAgent reads what a decision of pane e's agent needs of its
// emulator, holding its agent lock only to ask whether its last decision
// still holds (agentSeesLocked); with screen, the screen whatever it says,
// with noScreen (and not screen) no screen. It returns nil once the pane
// has left the table.
func (s *Server) readPaneAgent(e *paneEntry, screen, noScreen bool) *paneAgentRead {
	r := &paneAgentRead{e: e, sees: screen}
	if !screen && !noScreen && !s.agentFresh(e, func() { r.sees = s.agentSeesLocked(e) }) {
		return nil
	}
	r.ag.read(e.p, r.sees)
	r.title = clipTitle(e.p.Term().Title())
	return r
}

// agentFromReadLocked runs g under pane id's agent lock with its agent
// (nil: it runs none) decided from what ar read of its emulator, as
// agentFreshRead's section does. When the read does not do, g does not run
// and ar's round is dropped (withAgentsRead), but in the last round, when
// the agent is decided from the emulator now. Caller holds Server.mu.
func (s *Server) agentFromReadLocked(ar *agentsRead, id int, e *paneEntry, g func(info *proto.AgentInfo)) {
	e.agentDo(func() {
		r := ar.reads[id]
		short := r == nil || r.e != e
		if !short {
			short = !r.sees && s.agentSeesLocked(e)
		}
		var info *proto.AgentInfo
		if !short {
			info, _, short = s.agentFromLocked(id, e, &r.ag)
		}
		if short && ar.last {
			info, _ = s.agentLocked(id, e)
			short = false
		}
		if short {
			ar.short = append(ar.short, e)
			return
		}
		g(info)
	})
}

// dropped says the round is dropped (a read did not do): the section is to
// change nothing of the session's, as it runs again.
func (ar *agentsRead) dropped() bool { return len(ar.short) > 0 }

// programTitleLocked is the title pane id's program set, as ar read it;
// in the last round, for a pane it did not read, read now. Caller holds
// Server.mu.
func (ar *agentsRead) programTitleLocked(id int, e *paneEntry) string {
	if r := ar.reads[id]; r != nil && r.e == e {
		return r.title
	}
	if ar.last {
		return programTitle(e)
	}
	ar.short = append(ar.short, e)
	return ""
}
