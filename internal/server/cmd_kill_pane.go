package server

import (
	"context"
	"encoding/json"

	"github.com/melmux/melmux/internal/proto"
)

// kill_pane ends a pane's process and removes the pane; its space goes back
// to its neighbour. Killing the last pane ends the session.
func init() {
	register(&Command{Name: "kill_pane", Run: func(ctx context.Context, s *Server, raw json.RawMessage) (any, error) {
		var p proto.PaneRef
		if err := decodeParams("kill_pane", raw, &p); err != nil {
			return nil, err
		}
		if err := paneParam("kill_pane", p.Pane); err != nil {
			return nil, err
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
