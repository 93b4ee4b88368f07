package server

import (
	"context"
	"encoding/json"
)

// kill_server ends the session: every pane's process, every client, and its
// state file (there is nothing to restore). It answers first, then ends, so
// the caller learns it worked. kill-server, its
// name before every method was spelt with underscores, still works.
func init() {
	run := func(ctx context.Context, s *Server, raw json.RawMessage) (any, error) {
		var p struct{}
		if err := decodeParams("kill_server", raw, &p); err != nil {
			return nil, err
		}
		return thenResult{
			result: struct {
				Session string `json:"session"`
			}{s.name},
			then: func() { go s.kill("kill_server") },
		}, nil
	}
	register(&Command{Name: "kill_server", Run: run})
	register(&Command{Name: "kill-server", Run: run, Alias: true})
}
