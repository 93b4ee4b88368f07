package server

import (
	"context"
	"encoding/json"

	"github.com/melmux/melmux/internal/proto"
)

// kill_server ends the session: every pane's process, every client, and its
// state file (there is nothing to restore), unless keep asks to keep that,
// as a signal to the server keeps it, for a restore. It answers first, then
// ends, so the caller learns it worked. kill-server, its
// name before every method was spelt with underscores, still works.
func init() {
	run := func(ctx context.Context, s *Server, raw json.RawMessage) (any, error) {
		var p proto.KillServerParams
		if err := decodeParams("kill_server", raw, &p); err != nil {
			return nil, err
		}
		end := func() { s.kill("kill_server") }
		if p.Keep {
			end = func() { s.Shutdown("kill_server keeping its state") }
		}
		return thenResult{
			result: struct {
				Session string `json:"session"`
				Kept    bool   `json:"kept,omitempty"`
			}{s.name, p.Keep},
			then: func() { go end() },
		}, nil
	}
	register(&Command{Name: "kill_server", Run: run})
	register(&Command{Name: "kill-server", Run: run, Alias: true})
}
