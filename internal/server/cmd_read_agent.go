package server

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/pane"
)

// read_agent reads an agent's state and latest reply. For a melmux agent with
// turns not finished when it is called, it first waits (bounded) until they
// are, or the agent exits, sleeping on the agent's change channel. For an
// agent CLI (claude, codex, gemini...) it waits for the turn under way or
// last sent to end, or for a question (readCLI). For any other pane it
// answers at once with the screen, so a lead can read a shell too.
func init() {
	register(&Command{Name: "read_agent", Run: func(ctx context.Context, s *Server, raw json.RawMessage) (any, error) {
		var p proto.ReadAgentParams
		if err := decodeParams("read_agent", raw, &p); err != nil {
			return nil, err
		}
		if err := paneParam("read_agent", p.Pane); err != nil {
			return nil, err
		}
		if p.WaitMS > maxWaitMS {
			return nil, errorf(proto.CodeBadParams, "read_agent: wait_ms must be at most %d (a year); 0 is the server's default, negative does not wait", maxWaitMS)
		}
		bound := time.Duration(p.WaitMS) * time.Millisecond
		switch {
		case p.WaitMS == 0:
			bound = s.cfg().readWait
		case p.WaitMS < 0:
			bound = 0
		}
		// A live melmux agent is the agents part's alone (melAgents): its
		// read takes melAgents.mu and the pane's own locks, no Server.mu,
		// so it answers while a command or a frame holds the pane table.
		// The agent itself, not a copy: the wait and the answer read it
		// under melAgents.mu.
		var pn *pane.Pane
		var a *melAgent
		var target int
		s.mels.do(func() {
			if mp := s.mels.panes[p.Pane]; mp != nil && mp.a != nil && mp.a.live {
				pn, a, target = mp.p, mp.a, mp.a.given
			}
		})
		var cli bool
		var e *paneEntry
		var other *proto.ReadAgentResult
		var err error
		if a == nil {
			// Any other pane is its agent's part's too (paneAgent): the
			// pane's agent lock, no Server.mu.
			err = func() error {
				var err error
				if e, err = s.agentLookup(p.Pane); err != nil {
					return err
				}
				var kind, agentKind string
				var status agentRead // the program status, read with no lock held
				status.read(e.p, false)
				if !s.agentFresh(e, func() {
					kind = e.kind
					agentKind, _ = s.agentKindFromLocked(e, &status)
				}) {
					return s.goneError(p.Pane)
				}
				s.mels.do(func() {
					// An exited one, unless the pane went on to a coding agent.
					if mp := s.mels.panes[p.Pane]; mp != nil {
						if a = shownMelOf(mp.a, kind); a != nil {
							pn, target = e.p, a.given
						}
					}
				})
				if a != nil {
					return nil
				}
				if agentKind != "" {
					cli = true
					return nil
				}
				out, ok := s.readOther(p.Pane, e)
				if !ok {
					return s.goneError(p.Pane)
				}
				other = &out
				return nil
			}()
		}
		switch {
		case err != nil:
			return nil, err
		case cli:
			return s.readCLI(ctx, p.Pane, e, bound)
		case other != nil:
			return *other, nil
		}

		start := time.Now()
		waited, err := s.waitTurns(ctx, p.Pane, pn, a, target, bound)
		if err != nil {
			return nil, err
		}
		var out proto.ReadAgentResult
		// The agent's part only: what it reported is melAgents.mu's, the
		// pane's activity the pane's own.
		s.mels.do(func() {
			out = proto.ReadAgentResult{Pane: p.Pane, Agent: a.infoLocked(pn), Status: statusWord(pn.Status()),
				Reply: a.reply, Earlier: a.takeEarlierLocked(), Error: a.err, TurnDone: a.finished >= target}
			out.WaitNote = waitNoteLocked(a, out.Agent, target, waited, time.Since(start), bound)
		})
		out.Activity, out.IdleMS = paneActivity(pn)
		if waited {
			out.WaitedMS = time.Since(start).Milliseconds()
		}
		return out, nil
	}})
}

// waitTurns waits up to bound until the agent has finished every turn up to
// target or is gone. It reports whether it waited at all. It takes
// melAgents.mu only.
func (s *Server) waitTurns(ctx context.Context, id int, pn *pane.Pane, a *melAgent, target int, bound time.Duration) (bool, error) {
	var timeout <-chan time.Time
	if bound > 0 {
		t := time.NewTimer(bound)
		defer t.Stop()
		timeout = t.C
	}
	for waited := false; ; waited = true {
		var over bool
		var ch <-chan struct{}
		var err error
		s.mels.do(func() {
			mp := s.mels.panes[id]
			if mp == nil {
				err = errorf(proto.CodeFailed, "read_agent: pane %d was killed while waiting", id)
				return
			}
			over = mp.a != a || !a.live || a.finished >= target || !pn.Status().Running
			ch = mp.changesLocked()
		})
		if err != nil {
			return waited, err
		}
		if over || bound <= 0 {
			return waited, nil
		}
		runHook(&s.hooks.turnWait)
		select {
		case <-ch:
		case <-pn.Exited():
		case <-timeout:
			return true, nil
		case <-ctx.Done():
			return waited, errorf(proto.CodeFailed, "read_agent: cancelled")
		case <-s.done:
			return waited, errorf(proto.CodeFailed, "read_agent: the session ended")
		}
	}
}

// waitNoteLocked says how the wait for turn target ended, "" when there was
// nothing to wait for. Caller holds melAgents.mu.
func waitNoteLocked(a *melAgent, info *proto.AgentInfo, target int, waited bool, took, bound time.Duration) string {
	after := took.Round(100 * time.Millisecond)
	switch {
	case a.finished >= target:
		if waited {
			return fmt.Sprintf("turn %d finished after %s", target, after)
		}
		return ""
	case info.State == "exited":
		return fmt.Sprintf("the agent exited before turn %d finished", target)
	}
	still := fmt.Sprintf("turn %d is still working", target)
	if a.turn < target {
		still = fmt.Sprintf("turn %d is still queued (the agent is on turn %d)", target, a.turn)
	}
	if !waited {
		return still + " (not waited for)"
	}
	return fmt.Sprintf("stopped waiting after %s: %s; read_agent again later", bound, still)
}

// readOther is read_agent of a pane without a melmux agent: the state
// detected on screen (nil for none), the activity and the screen; ok is
// false once the pane has left the table.
func (s *Server) readOther(id int, e *paneEntry) (_ proto.ReadAgentResult, ok bool) {
	var info *proto.AgentInfo
	if !s.agentFreshRead(e, func(pre *agentRead) (short bool) {
		info, _, short = s.agentFromLocked(id, e, pre)
		return short
	}) {
		return proto.ReadAgentResult{}, false
	}
	out := proto.ReadAgentResult{Pane: id, Agent: info, Status: statusWord(e.p.Status()),
		Lines: trimTrailingEmpty(e.p.Term().Lines())}
	out.Activity, out.IdleMS = activity(e)
	return out, true
}
