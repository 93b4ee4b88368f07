package server

import (
	"context"
	"encoding/json"

	"github.com/melmux/melmux/internal/proto"
)

// list_panes describes every pane, in layout order (tab, then tree).
func init() {
	register(&Command{Name: "list_panes", Run: func(ctx context.Context, s *Server, raw json.RawMessage) (any, error) {
		var p struct{}
		if err := decodeParams("list_panes", raw, &p); err != nil {
			return nil, err
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		out := []proto.PaneInfo{}
		for _, id := range s.layout.Panes() {
			if e, ok := s.panes[id]; ok {
				out = append(out, s.paneInfoLocked(id, e))
			}
		}
		return out, nil
	}})
}
