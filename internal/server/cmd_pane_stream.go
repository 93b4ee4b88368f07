package server

import (
	"context"
	"encoding/json"
	"time"

	"github.com/melmux/melmux/internal/proto"
)

// pane_stream answers a pane's output from an offset, waiting up to wait_ms
// for some: what a mirror of the pane on another host draws (docs/remote.md).
// The first call starts keeping the pane's output (proto.StreamRetain bytes)
// and asks for a repaint; a mirror back from a dropped link asks from where
// it was and gets every byte it missed, or a repaint once they are gone.
func init() {
	register(&Command{Name: "pane_stream", Run: func(ctx context.Context, s *Server, raw json.RawMessage) (any, error) {
		var p proto.PaneStreamParams
		if err := decodeParams("pane_stream", raw, &p); err != nil {
			return nil, err
		}
		if err := paneParam("pane_stream", p.Pane); err != nil {
			return nil, err
		}
		if p.From < -1 || p.Max < 0 || p.WaitMS < 0 {
			return nil, errorf(proto.CodeBadParams, "pane_stream: from must be an offset or -1, max and wait_ms not negative")
		}
		e, err := s.lookup(p.Pane)
		if err != nil {
			return nil, err
		}
		e.p.Retain(proto.StreamRetain)
		limit := p.Max
		if limit == 0 || limit > proto.StreamChunk {
			limit = proto.StreamChunk
		}
		var deadline <-chan time.Time
		if p.WaitMS > 0 {
			t := time.NewTimer(time.Duration(p.WaitMS) * time.Millisecond)
			defer t.Stop()
			deadline = t.C
		}
		for {
			out := proto.PaneStreamResult{Foreground: s.streamForeground(e)}
			out.Cols, out.Rows = e.p.Size()
			ch := e.p.Changed()
			exited := false
			select {
			case <-e.p.Exited():
				exited = true // taken before the read: every byte is in it
			default:
			}
			data, next, ok := e.p.OutputSince(p.From, limit)
			if p.From == -1 || !ok {
				scr, at := e.p.SnapshotAt()
				out.Data, out.Next, out.Repaint = repaint(scr), at, true
				return out, nil
			}
			out.Data, out.Next = data, next
			if len(data) > 0 {
				return out, nil
			}
			if exited {
				st := e.p.Status()
				out.Exited = &proto.RemoteExit{ExitCode: st.ExitCode, Signal: st.Signal}
				return out, nil
			}
			select {
			case <-ch:
			case <-e.p.Exited():
			case <-deadline:
				return out, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
	}})
}

// streamForeground is what e runs now, from a lookup no older than
// agentKindTTL: one stream's answers, however many, cost the host at most
// one lookup of /proc a second.
func (s *Server) streamForeground(e *paneEntry) *proto.RemoteForeground {
	var fg proto.RemoteForeground
	s.agentFresh(e, func() { fg = proto.RemoteForeground{Program: e.fg, Kind: e.kind, Why: e.ag.kindWhy} })
	return &fg
}
