package server

import (
	"context"
	"encoding/json"
	"time"

	"github.com/melmux/melmux/internal/proto"
)

// agent_next hands a registered agent its next message, blocking until one
// is queued (or wait_ms passes, when given: then the result has turn 0). It
// sleeps on the agent's change channel; it does not poll. It takes
// melAgents.mu only: an agent gets its message while Server.mu is held.
func init() {
	register(&Command{Name: "agent_next", Run: func(ctx context.Context, s *Server, raw json.RawMessage) (any, error) {
		var p proto.AgentNextParams
		if err := decodeParams("agent_next", raw, &p); err != nil {
			return nil, err
		}
		if err := paneParam("agent_next", p.Pane); err != nil {
			return nil, err
		}
		if err := agentIDParam("agent_next", p.ID); err != nil {
			return nil, err
		}
		if p.WaitMS < 0 || p.WaitMS > maxWaitMS {
			return nil, errorf(proto.CodeBadParams, "agent_next: wait_ms must be 0 (wait for a message however long) to %d (a year)", maxWaitMS)
		}
		var timeout <-chan time.Time
		if p.WaitMS > 0 {
			t := time.NewTimer(time.Duration(p.WaitMS) * time.Millisecond)
			defer t.Stop()
			timeout = t.C
		}
		for {
			var m *proto.AgentMessage
			var ch <-chan struct{}
			err := s.withLiveAgent(ctx, "agent_next", p.Pane, p.ID, func(mp *melPane, a *melAgent) error {
				if len(a.queue) > 0 {
					next := a.queue[0]
					m = &next
					a.queue = a.queue[1:]
					mp.changedLocked()
					return nil
				}
				ch = mp.changesLocked()
				return nil
			})
			if m != nil {
				s.melChanged()
			}
			switch {
			case err != nil:
				return nil, err
			case m != nil:
				return *m, nil
			}
			select {
			case <-ch:
			case <-timeout:
				return proto.AgentMessage{}, nil
			case <-ctx.Done():
				return nil, errorf(proto.CodeFailed, "agent_next: cancelled")
			case <-s.done:
				return nil, errorf(proto.CodeFailed, "agent_next: the session ended")
			}
		}
	}})
}
