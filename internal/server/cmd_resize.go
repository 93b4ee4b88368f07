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
		if err := checkSize("resize", p.Cols, p.Rows, false); err != nil {
			return nil, err
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		s.cols, s.rows = p.Cols, p.Rows
		s.sizeByResize = true
		s.relayoutLocked()
		return proto.ResizeResult{Cols: p.Cols, Rows: p.Rows, Clients: s.clients.count()}, nil
	}})
}

// checkSize refuses a session size outside the limits; zero may mean
// "default" where the caller allows it.
func checkSize(method string, cols, rows int, zeroOK bool) error {
	ok := func(v, lo, hi int) bool { return (zeroOK && v == 0) || (v >= lo && v <= hi) }
	if !ok(cols, proto.MinSessionCols, proto.MaxSessionCols) || !ok(rows, proto.MinSessionRows, proto.MaxSessionRows) {
		return errorf(proto.CodeBadParams, "%s: size %dx%d is out of range (cols %d-%d, rows %d-%d)",
			method, cols, rows, proto.MinSessionCols, proto.MaxSessionCols, proto.MinSessionRows, proto.MaxSessionRows)
	}
	return nil
}
