package server

import (
	"context"
	"encoding/json"

	"github.com/melmux/melmux/internal/proto"
)

// kill_pane ends a pane's process and removes the pane; its space goes back
// to its neighbour. Killing the last pane ends the session. With worktree
// it removes the pane's worktree too (killWithWorktree).
func init() {
	register(&Command{Name: "kill_pane", Run: func(ctx context.Context, s *Server, raw json.RawMessage) (any, error) {
		var p proto.KillPaneParams
		if err := decodeParams("kill_pane", raw, &p); err != nil {
			return nil, err
		}
		if err := paneParam("kill_pane", p.Pane); err != nil {
			return nil, err
		}
		if p.Force && !p.Worktree {
			return nil, errorf(proto.CodeBadParams, "kill_pane: force goes with worktree (it removes a worktree holding uncommitted work); a pane is killed without it")
		}
		if p.Worktree {
			return s.killWithWorktree(ctx, p)
		}
		last, err := s.removePane(p.Pane, true)
		if err != nil {
			return nil, err
		}
		res := proto.KillPaneResult{Pane: p.Pane, SessionEnded: last}
		if last {
			return thenResult{result: res, then: func() { go s.lastPaneGone("last pane killed") }}, nil
		}
		return res, nil
	}})
}
