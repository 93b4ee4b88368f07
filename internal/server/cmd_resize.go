package server

import (
	"context"
	"encoding/json"

	"github.com/melmux/melmux/internal/proto"
)

// resize sets the session size (the window, status line included) and
// re-lays every tab; each pane's program gets SIGWINCH.
func init() {
	register(&Command{Name: "resize", Run: func(ctx context.Context, s *Server, raw json.RawMessage) (any, error) {
		var p proto.ResizeParams
		if err := decodeParams("resize", raw, &p); err != nil {
			return nil, err
		}
		if p.Cols < 2 || p.Rows < 2 || p.Cols > 10000 || p.Rows > 10000 {
			return nil, errorf(proto.CodeBadParams, "resize: size %dx%d is out of range (cols and rows 2-10000)", p.Cols, p.Rows)
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		s.cols, s.rows = p.Cols, p.Rows
		s.relayoutLocked()
		return p, nil
	}})
}
