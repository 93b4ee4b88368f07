package server

import (
	"context"
	"encoding/json"

	"github.com/melmux/melmux/internal/proto"
)

// detach sends every attached client away; the panes go on.
func init() {
	register(&Command{Name: "detach", Run: func(ctx context.Context, s *Server, raw json.RawMessage) (any, error) {
		var p struct{}
		if err := decodeParams("detach", raw, &p); err != nil {
			return nil, err
		}
		clients := s.clients.walk()
		for _, c := range clients {
			c.exit("detached (from session " + s.name + ")")
		}
		return proto.DetachResult{Detached: len(clients)}, nil
	}})
}
