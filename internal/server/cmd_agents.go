package server

import (
	"context"
	"encoding/json"
	"time"

	"github.com/melmux/melmux/internal/proto"
)

// agents lists every agent pane of the session: its state and since when,
// its question, its worktree's branch and changes, its cost; those that
// wait on a person first, the longest waiting first. Worktree counts older
// than a border's are made again first, so no client need be attached.
func init() {
	register(&Command{Name: "agents", Run: func(ctx context.Context, s *Server, raw json.RawMessage) (any, error) {
		var p proto.AgentsParams
		if err := decodeParams("agents", raw, &p); err != nil {
			return nil, err
		}
		s.countAgentWorktrees(ctx)
		var rows []proto.AgentRow
		s.withAgentsRead(false, func(ar *agentsRead) { rows = s.agentRowsLocked(ar, time.Now()) })
		return rows, nil
	}})
}
