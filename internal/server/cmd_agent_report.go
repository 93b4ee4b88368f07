package server

import (
	"context"
	"encoding/json"
	"time"

	"github.com/melmux/melmux/internal/proto"
)

// agent_report is a registered agent's state change: working on a turn,
// waiting for its next message, or idle after a finished turn, with its
// latest reply and its counters. Idle or waiting finishes every turn up to
// the one reported, which is what read_agent waits for. It takes
// melAgents.mu alone, and Server.mu after it only for a finished turn to
// tell.
func init() {
	register(&Command{Name: "agent_report", Run: func(ctx context.Context, s *Server, raw json.RawMessage) (any, error) {
		var p proto.AgentReportParams
		if err := decodeParams("agent_report", raw, &p); err != nil {
			return nil, err
		}
		if err := paneParam("agent_report", p.Pane); err != nil {
			return nil, err
		}
		if err := agentIDParam("agent_report", p.ID); err != nil {
			return nil, err
		}
		if !reportStates[p.State] {
			return nil, errorf(proto.CodeBadParams, "agent_report: state %q is not one of working, waiting, idle", p.State)
		}
		if p.Turn < 0 || p.Legs < 0 || p.InputTokens < 0 || p.OutputTokens < 0 {
			return nil, errorf(proto.CodeBadParams, "agent_report: turn, legs, input_tokens and output_tokens must not be negative")
		}
		var info *proto.AgentInfo
		var ev agentEvent
		var tell bool
		err := s.withLiveAgent(ctx, "agent_report", p.Pane, p.ID, func(mp *melPane, a *melAgent) error {
			if p.Turn > a.given {
				return errorf(proto.CodeBadParams, "agent_report: turn %d was never given to the agent (turns given: 1-%d)", p.Turn, a.given)
			}
			if p.Turn != a.turn {
				a.err = "" // a new turn starts without the last one's failure (kept unread in a.unread)
			}
			a.state, a.turn, a.at = p.State, p.Turn, time.Now()
			a.endedLocked(p.Turn, p.Reply, p.Error)
			a.legs, a.inTokens, a.outTokens = p.Legs, p.InputTokens, p.OutputTokens
			if p.State != "working" {
				a.finished = max(a.finished, p.Turn)
			}
			ev, tell = mp.melReportedLocked(p.Pane, a, p.State, p.Turn, p.Reply, p.Error)
			mp.changedLocked()
			info = a.infoLocked(mp.p)
			return nil
		})
		if err != nil {
			return nil, err
		}
		s.melChanged()
		if tell {
			// A turn finished is done, or needs you when it failed: the
			// pane's marks are its agent's, under its own lock.
			if e := s.agentEntry(p.Pane); e != nil {
				e.agentDo(func() {
					if !e.gone {
						s.attendLocked(e, ev, false)
					}
				})
			}
		}
		return info, nil
	}})
}
