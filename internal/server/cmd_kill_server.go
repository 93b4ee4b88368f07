package server

import (
	"context"
	"encoding/json"
)

// kill-server ends the session: every pane's process, every client. It
// answers first, then ends, so the caller learns it worked.
func init() {
	register(&Command{Name: "kill-server", Run: func(ctx context.Context, s *Server, raw json.RawMessage) (any, error) {
		var p struct{}
		if err := decodeParams("kill-server", raw, &p); err != nil {
			return nil, err
		}
		return thenResult{
			result: struct {
				Session string `json:"session"`
			}{s.name},
			then: func() { go s.Shutdown("kill-server") },
		}, nil
	}})
}
