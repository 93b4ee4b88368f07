package server

import (
	"context"
	"encoding/json"

	"github.com/melmux/melmux/internal/proto"
)

// pane_input types bytes into a pane as part of a numbered stream (a
// mirror's typing, docs/remote.md): bytes already taken are skipped, so a
// mirror that cannot know whether its last sends arrived before its link
// dropped sends them again and each is typed once. Empty data asks how far
// the stream got.
func init() {
	register(&Command{Name: "pane_input", Run: func(ctx context.Context, s *Server, raw json.RawMessage) (any, error) {
		var p proto.PaneInputParams
		if err := decodeParams("pane_input", raw, &p); err != nil {
			return nil, err
		}
		if err := paneParam("pane_input", p.Pane); err != nil {
			return nil, err
		}
		if p.Stream == "" || p.At < 0 {
			return nil, errorf(proto.CodeBadParams, "pane_input: stream is required and at must not be negative")
		}
		var e *paneEntry
		var l *paneLink
		err := s.withLockErr(func() (err error) {
			if e, err = s.lookupLocked(p.Pane); err == nil {
				l = e.linkLocked()
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		l.inMu.Lock()
		defer l.inMu.Unlock()
		if l.stream != p.Stream {
			// Another mirror, or this one started again: a stream of its own.
			l.stream, l.received = p.Stream, 0
		}
		if p.At > l.received {
			return nil, errorf(proto.CodeBadParams, "pane_input: stream %s resumes at byte %d, but pane %d has taken %d: bytes between are missing", p.Stream, p.At, p.Pane, l.received)
		}
		data := p.Data[min(int64(len(p.Data)), l.received-p.At):]
		if len(data) > 0 {
			if err := e.p.WriteContext(ctx, data); err != nil {
				return nil, writeError("pane_input", p.Pane, e.p, err)
			}
			l.received += int64(len(data))
		}
		return proto.PaneInputResult{Received: l.received}, nil
	}})
}
