package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/pane"
)

// send_agent gives an agent its next message. A live melmux agent gets it
// through its queue, with the next turn id, in the order messages arrive from
// leads and from the person typing in its pane. Any other program (claude,
// codex, a shell) gets it typed and submitted as a person would (deliver.go).
func init() {
	register(&Command{Name: "send_agent", Run: func(ctx context.Context, s *Server, raw json.RawMessage) (any, error) {
		var p proto.SendAgentParams
		if err := decodeParams("send_agent", raw, &p); err != nil {
			return nil, err
		}
		if err := paneParam("send_agent", p.Pane); err != nil {
			return nil, err
		}
		if strings.TrimSpace(p.Text) == "" {
			return nil, errorf(proto.CodeBadParams, "send_agent: parameter \"text\" is required and must not be empty: the message")
		}
		from := "send_agent"
		switch p.From {
		case "":
		case "person", "task":
			from = p.From
		default:
			return nil, errorf(proto.CodeBadParams, "send_agent: from %q is not allowed (allowed: \"person\" or \"task\", from the agent's own REPL, or none)", p.From)
		}
		var e *paneEntry
		var queued *proto.SendAgentResult
		err := s.withLockErr(func() error {
			var err error
			if e, err = s.lookupLocked(p.Pane); err != nil {
				return err
			}
			if st := e.p.Status(); !st.Running {
				return writeError("send_agent", p.Pane, e.p, pane.ErrExited)
			}
			var kind string
			e.agentDo(func() { kind = e.kind })
			s.mels.do(func() {
				mp := s.mels.panes[p.Pane]
				if mp == nil {
					return
				}
				a := shownMelOf(mp.a, kind)
				switch {
				case a != nil && a.live:
					if err = remoteAgentRefusalLocked(p.Pane, e); err != nil {
						return
					}
					m, ahead, qerr := a.enqueueLocked(p.Text, from)
					if qerr != nil {
						err = errorf(proto.CodeFailed, "send_agent to pane %d: %v", p.Pane, qerr)
						return
					}
					mp.changedLocked()
					queued = &proto.SendAgentResult{Pane: p.Pane, Kind: KindMelmux, Turn: m.Turn, Ahead: ahead, Delivered: true,
						State: a.infoLocked(e.p).State, Note: queuedNote(m.Turn, ahead)}
				case a != nil:
					// Typing the message into whatever the agent left behind (a
					// shell) would run it as a command.
					err = errorf(proto.CodeFailed, "send_agent: the melmux agent in pane %d has exited; read_agent shows its last reply", p.Pane)
				}
			})
			if err != nil {
				return err
			}
			if queued != nil {
				s.invalidateLocked()
			}
			return nil
		})
		switch {
		case err != nil:
			return nil, err
		case queued != nil:
			return *queued, nil
		}
		return s.deliver(ctx, p.Pane, e, p.Text)
	}})
}

// queuedNote says where a message to a melmux agent stands.
func queuedNote(turn, ahead int) string {
	switch ahead {
	case 0:
		return fmt.Sprintf("queued as turn %d", turn)
	case 1:
		return fmt.Sprintf("queued as turn %d (1 turn ahead)", turn)
	}
	return fmt.Sprintf("queued as turn %d (%d turns ahead)", turn, ahead)
}
