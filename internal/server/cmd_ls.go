package server

import (
	"context"
	"encoding/json"
	"os"
	"time"

	"github.com/melmux/melmux/internal/proto"
)

// ls describes this session; the CLI asks every server in the socket
// directory and prints one row each.
func init() {
	register(&Command{Name: "ls", Run: func(ctx context.Context, s *Server, raw json.RawMessage) (any, error) {
		var p struct{}
		if err := decodeParams("ls", raw, &p); err != nil {
			return nil, err
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		return proto.SessionInfo{
			Name: s.name, Panes: len(s.panes), Clients: s.clients.count(),
			Created: s.created.Format(time.RFC3339), Used: s.clients.usedAt(s.created).Format(time.RFC3339Nano), PID: os.Getpid(),
			Cols: s.cols, Rows: s.rows, Socket: s.sock,
		}, nil
	}})
}
