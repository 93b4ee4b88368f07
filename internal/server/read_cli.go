package server

import (
	"context"
	"fmt"
	"time"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/pane/agentstate"
)

// readCLI is read_agent of a pane running an agent CLI: it waits, up to
// bound, for the turn under way (or the one send_agent gave last) to end,
// for the agent to ask a question, or for it to exit; then gives the turn's
// reply with its source, the replies of turns not read before, and the
// question when there is one. It takes the pane's agent lock, and no
// Server.mu: a lead waiting on a turn is answered while a command or a
// frame holds the pane table.
func (s *Server) readCLI(ctx context.Context, id int, e *paneEntry, bound time.Duration) (proto.ReadAgentResult, error) {
	start := time.Now()
	var target int
	e.agentDo(func() {
		target = e.turns.given
		if c := e.turns.cur; c != nil {
			target = c.id
		}
	})
	waited, err := s.waitCLITurn(ctx, id, e, target, bound)
	if err != nil {
		return proto.ReadAgentResult{}, err
	}
	took := time.Since(start)

	var look []*cliTurn
	e.agentDo(func() {
		look = append(look, e.turns.unread...)
		if c := e.turns.turnOfLocked(target); c != nil && c.ended {
			look = append(look, c)
		}
	})
	for _, c := range look {
		s.findReply(ctx, e, c)
	}

	var out proto.ReadAgentResult
	if !s.agentFreshRead(e, func(pre *agentRead) bool {
		info, _, short := s.agentFromLocked(id, e, pre)
		if !short {
			out = s.readCLILocked(id, e, info, target, waited, took, bound)
		}
		return short
	}) {
		return proto.ReadAgentResult{}, errorf(proto.CodeFailed, "read_agent: pane %d was killed while waiting", id)
	}
	if !out.TurnDone || out.Question != nil {
		// Read with no lock held, as the agent was.
		out.Lines = trimTrailingEmpty(e.p.Term().Lines())
	}
	return out, nil
}

// readCLILocked is readCLI's answer once the wait is over, with the agent
// as decided (info) and without the screen's lines. Caller holds the
// pane's agent lock.
func (s *Server) readCLILocked(id int, e *paneEntry, info *proto.AgentInfo, target int, waited bool, took, bound time.Duration) proto.ReadAgentResult {
	e.mustHoldAgent()
	t := &e.turns
	out := proto.ReadAgentResult{Pane: id, Agent: info, Status: statusWord(e.p.Status()), Turn: target}
	out.Activity, out.IdleMS = activity(e)
	if waited {
		out.WaitedMS = took.Milliseconds()
	}
	c := t.turnOfLocked(target)
	if c != nil && c.ended {
		r := turnReplyOf(c)
		out.TurnDone, out.Reply, out.Source, out.Error = true, r.Reply, r.Source, r.Error
	}
	for _, u := range t.unread {
		if u != c && u.found {
			out.Earlier = append(out.Earlier, turnReplyOf(u))
		}
	}
	t.unread = t.unread[:0]
	if info != nil && info.Question != nil {
		out.Question = info.Question
	}
	out.WaitNote = cliWaitNote(info, c, target, waited, took, bound)
	return out
}

// waitCLITurn waits, up to bound, until turn target of pane e has ended,
// the agent asks a question, or its program exits. It reports whether it
// waited at all. Each look reads the pane's emulator before it takes the
// pane's agent lock (agentDecided): a lead waiting on a turn that prints
// a flood holds up nobody else's use of the pane's agent.
func (s *Server) waitCLITurn(ctx context.Context, id int, e *paneEntry, target int, bound time.Duration) (bool, error) {
	var timeout <-chan time.Time
	if bound > 0 {
		t := time.NewTimer(bound)
		defer t.Stop()
		timeout = t.C
	}
	for waited := false; ; waited = true {
		var gone, over bool
		var recheck time.Duration
		var ch <-chan struct{}
		gone = !s.agentDecided(id, e, func(d *agentstate.Decision, _ string) {
			state := agentstate.Exited
			if d != nil {
				state = d.State
			}
			recheck = s.endTurnIfOverLocked(e, state, time.Now())
			c := e.turns.turnOfLocked(target)
			over = target == 0 || c == nil || c.ended || e.turns.q.asksLocked() || !e.p.Status().Running
			ch = s.agentChanges(e)
		})
		if gone {
			return waited, errorf(proto.CodeFailed, "read_agent: pane %d was killed while waiting", id)
		}
		if over || bound <= 0 {
			return waited, nil
		}
		runHook(&s.hooks.turnWait)
		again := time.NewTimer(recheck)
		if recheck <= 0 {
			again.Stop()
		}
		select {
		case <-ch:
		case <-again.C:
		case <-e.p.Exited():
		case <-timeout:
			again.Stop()
			return true, nil
		case <-ctx.Done():
			again.Stop()
			return waited, errorf(proto.CodeFailed, "read_agent: cancelled")
		case <-s.done:
			again.Stop()
			return waited, errorf(proto.CodeFailed, "read_agent: the session ended")
		}
		again.Stop()
	}
}

// cliWaitNote says how the wait for turn target of an agent CLI ended.
func cliWaitNote(info *proto.AgentInfo, c *cliTurn, target int, waited bool, took, bound time.Duration) string {
	after := took.Round(100 * time.Millisecond)
	kind := "the agent"
	if info != nil {
		kind = info.Kind
	}
	switch {
	case target == 0:
		return fmt.Sprintf("no turn yet: send_agent gives %s a message, and read_agent then waits for its reply", kind)
	case c == nil:
		return fmt.Sprintf("turn %d was read before", target)
	case info != nil && info.Question != nil:
		return fmt.Sprintf("%s asks a question during turn %d (after %s): %s", kind, target, after, info.Question.Keys)
	case c.ended && c.end == "exited":
		return fmt.Sprintf("%s exited during turn %d", kind, target)
	case c.ended && waited:
		return fmt.Sprintf("turn %d finished after %s", target, after)
	case c.ended:
		return ""
	case !waited:
		return fmt.Sprintf("turn %d is still under way (not waited for)", target)
	}
	return fmt.Sprintf("stopped waiting after %s: turn %d is still under way; read_agent again to wait more", bound, target)
}
