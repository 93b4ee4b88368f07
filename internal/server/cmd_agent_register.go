package server

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/melmux/melmux/internal/proto"
)

// maxResumedTurn bounds the turn a resumed agent registers at, far above
// any conversation's, so that the turns given after it never overflow.
const maxResumedTurn = 1_000_000_000

// agent_register announces a melmux agent running in a pane. The
// registration lives as long as the connection that made it: when that
// connection ends, the agent is exited (what it reported last stays readable
// while the pane exists). A task given here is queued at once as the
// agent's turn 1 (from "task"), so nothing a lead or a person sends can come
// before it: the agent takes it with its first agent_next. An agent resuming
// its conversation gives its last turn and its counters: its turns go on
// from there (a restored session's agents keep their numbering, legs and
// tokens); a worker on a host joining a restored session again mid-turn
// says so (working), and the turn's end is still to come.
func init() {
	register(&Command{Name: "agent_register", Run: func(ctx context.Context, s *Server, raw json.RawMessage) (any, error) {
		var p proto.AgentRegisterParams
		if err := decodeParams("agent_register", raw, &p); err != nil {
			return nil, err
		}
		if p.Pane <= 0 {
			return nil, errorf(proto.CodeBadParams, "agent_register: parameter \"pane\" is required: the pane the agent runs in ($MELMUX_PANE, set inside a melmux pane)")
		}
		if err := agentIDParam("agent_register", p.ID); err != nil {
			return nil, err
		}
		if p.Role != "lead" && p.Role != "worker" {
			return nil, errorf(proto.CodeBadParams, "agent_register: role %q is not lead or worker", p.Role)
		}
		if p.Turn < 0 || p.Turn > maxResumedTurn {
			return nil, errorf(proto.CodeBadParams, "agent_register: turn %d is not a turn a conversation can be at: 0 (a new one) to %d", p.Turn, maxResumedTurn)
		}
		if p.Working && p.Turn == 0 {
			return nil, errorf(proto.CodeBadParams, "agent_register: working needs the turn under way (turn 1 or more)")
		}
		if p.Legs < 0 || p.InputTokens < 0 || p.OutputTokens < 0 {
			return nil, errorf(proto.CodeBadParams, "agent_register: legs, input_tokens and output_tokens must not be negative")
		}
		a := &melAgent{id: p.ID, role: p.Role, provider: p.Provider, model: p.Model, task: printable(p.Task),
			live: true, conn: connOf(ctx), state: "waiting", at: time.Now(),
			legs: p.Legs, inTokens: p.InputTokens, outTokens: p.OutputTokens}
		if p.Turn > 0 {
			// A resumed conversation: its turns up to p.Turn are over, and
			// it rests idle after them, as it does after any turn.
			a.turn, a.given, a.finished, a.state = p.Turn, p.Turn, p.Turn, "idle"
			if p.Working {
				// Given by the session before it restarted, and not over:
				// its end is still to come, and read_agent waits for it.
				a.finished, a.state = p.Turn-1, "working"
			}
		}
		if strings.TrimSpace(p.Task) != "" {
			// Best effort: a fresh queue has room.
			_, _, _ = a.enqueueLocked(p.Task, "task")
		}
		// Under Server.mu, so that the pane is in the table and running as
		// the agent enters the registry (removePane drops it under
		// Server.mu too).
		var info *proto.AgentInfo
		err := s.withLockErr(func() error {
			e, err := s.lookupLocked(p.Pane)
			if err != nil {
				return err
			}
			if st := e.p.Status(); !st.Running {
				return errorf(proto.CodeFailed, "agent_register: pane %d has exited (%s)", p.Pane, exitWords(st))
			}
			s.mels.do(func() {
				mp := s.mels.panes[p.Pane]
				if old := mp.a; old != nil && old.live {
					err = errorf(proto.CodeFailed, "agent_register: pane %d already has a live melmux agent (%s %s); one agent per pane", p.Pane, old.role, old.id)
					return
				}
				mp.a = a
				if p.Working {
					// Its end is told as that of a turn seen starting.
					mp.melReportedLocked(p.Pane, a, "working", p.Turn, "", "")
				}
				mp.changedLocked()
				info = a.infoLocked(e.p)
			})
			if err != nil {
				return err
			}
			s.invalidateLocked()
			return nil
		})
		if err != nil {
			return nil, err
		}
		go s.bindAgent(ctx, p.Pane, a)
		s.log.Info("melmux agent registered", "pane", p.Pane, "agent", p.ID, "role", p.Role, "model", p.Model)
		return info, nil
	}})
}
