package server

import (
	"context"
	"encoding/json"
	"time"

	"github.com/melmux/melmux/internal/proto"
)

// remote_link is a remote pane's `melmux __remote` telling the state of its
// link to the host (docs/remote.md): the border shows it, and while it is
// not connected typing into the pane is refused saying why, so nothing a
// person or an agent types is lost unseen.
func init() {
	register(&Command{Name: "remote_link", Run: func(ctx context.Context, s *Server, raw json.RawMessage) (any, error) {
		var p proto.RemoteLinkParams
		if err := decodeParams("remote_link", raw, &p); err != nil {
			return nil, err
		}
		if err := paneParam("remote_link", p.Pane); err != nil {
			return nil, err
		}
		switch p.State {
		case proto.LinkConnecting, proto.LinkConnected, proto.LinkDisconnected, proto.LinkFailed:
		case "":
			// What the pane runs or uses, told on its own: a report
			// that said connected might come after a drop and undo it.
			if p.Foreground == nil && p.Usage == nil && p.RTTMS == nil {
				return nil, errorf(proto.CodeBadParams, "remote_link: give a state, a foreground, a usage or a round trip")
			}
		default:
			return nil, errorf(proto.CodeBadParams, "remote_link: state %q is not one of connecting, connected, disconnected, failed", p.State)
		}
		if p.Host == "" {
			return nil, errorf(proto.CodeBadParams, "remote_link: host is required")
		}
		err := s.withLockErr(func() error {
			e, err := s.lookupLocked(p.Pane)
			if err != nil {
				return err
			}
			l := e.linkLocked()
			l.host = p.Host
			if p.Foreground != nil && (l.fg == nil || *l.fg != *p.Foreground) {
				fg := *p.Foreground
				l.fg = &fg
				e.agentDo(func() {
					e.remoteFg, e.remoteHost = &fg, l.host
					e.kindAt = time.Time{} // the next lookup takes it
					s.agentChangedLocked(e)
				})
			}
			if p.Usage != nil {
				l.tookUsageLocked(*p.Usage)
			}
			if p.RTTMS != nil && *p.RTTMS >= 0 {
				l.rttMS = *p.RTTMS
			}
			if p.State == "" {
				return nil
			}
			if l.state != p.State || l.since.IsZero() {
				l.since = time.Now()
				l.rttMS = 0 // the last connection's: the new one measures its own
			}
			l.state, l.err = p.State, p.Error
			if p.Session != "" {
				l.session = p.Session
			}
			e.p.RefuseInput(linkRefusal(p.Pane, l))
			close(l.ch)
			l.ch = make(chan struct{})
			s.invalidateLocked()
			return nil
		})
		if err == nil && p.State != "" {
			s.log.Info("remote link", "pane", p.Pane, "host", p.Host, "state", p.State, "err", p.Error)
		}
		return nil, err
	}})
}
