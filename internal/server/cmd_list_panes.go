package server

import (
	"context"
	"encoding/json"

	"github.com/melmux/melmux/internal/proto"
)

// list_panes describes every pane, in layout order (tab, then tree); with
// resources, also what each pane's process tree uses (CPU, memory).
func init() {
	register(&Command{Name: "list_panes", Run: func(ctx context.Context, s *Server, raw json.RawMessage) (any, error) {
		var p proto.ListPanesParams
		if err := decodeParams("list_panes", raw, &p); err != nil {
			return nil, err
		}
		var out []proto.PaneInfo
		// The panes' emulators are read first, holding no lock: one busy
		// parsing a flood holds up this list, not every command.
		s.withAgentsRead(false, func(ar *agentsRead) {
			out = []proto.PaneInfo{}
			for _, id := range s.layout.Panes() {
				if e, ok := s.panes[id]; ok {
					out = append(out, s.paneInfoLocked(ar, id, e))
				}
			}
		})
		if p.Resources {
			// /proc is read without Server.mu.
			if err := s.addResources(ctx, out); err != nil {
				return nil, err
			}
		}
		return out, nil
	}})
}
