package server

import (
	"context"
	"encoding/json"
	"time"
	"unicode/utf8"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/pane/agentstate"
)

// maxNotifyMessage bounds a hook's message, in bytes; maxNotifyEvent its
// event's name.
const (
	maxNotifyMessage = 4096
	maxNotifyEvent   = 200
)

// notify is an agent's own report of its state from its hooks (`melmux
// notify` in Claude Code's hooks, Codex's notify program): kept for the
// pane as its strongest signal while fresh (see agentstate.Engine), it
// wakes everything waiting on the pane's agent.
func init() {
	register(&Command{Name: "notify", Run: func(ctx context.Context, s *Server, raw json.RawMessage) (any, error) {
		var p proto.NotifyParams
		if err := decodeParams("notify", raw, &p); err != nil {
			return nil, err
		}
		if err := paneParam("notify", p.Pane); err != nil {
			return nil, err
		}
		switch st := agentstate.State(p.State); st {
		case agentstate.Working, agentstate.Waiting, agentstate.Idle:
		default:
			return nil, errorf(proto.CodeBadParams, "notify: state %q is not one of working, waiting, idle", p.State)
		}
		switch {
		case len(p.Message) > maxNotifyMessage || !utf8.ValidString(p.Message):
			return nil, errorf(proto.CodeBadParams, "notify: message must be UTF-8 text of at most %d bytes (got %d bytes)", maxNotifyMessage, len(p.Message))
		case len(p.Event) > maxNotifyEvent || !utf8.ValidString(p.Event):
			return nil, errorf(proto.CodeBadParams, "notify: event must be UTF-8 text of at most %d bytes (got %d bytes)", maxNotifyEvent, len(p.Event))
		}
		if p.Kind != "" && !knownKind(s.rules(), p.Kind) {
			return nil, errorf(proto.CodeBadParams, "notify: kind %q is not a kind of agent (kinds: %v)", p.Kind, s.rules().Kinds())
		}
		s.lockFresh(p.Pane)
		defer s.mu.Unlock()
		e, err := s.lookupLocked(p.Pane)
		if err != nil {
			return nil, err
		}
		event := p.Event
		if event == "" {
			event = "melmux notify --state " + p.State
		}
		e.ag.hook = &agentstate.Report{Source: "hook", State: agentstate.State(p.State), Detail: oneLine(event),
			Message: oneLine(p.Message), At: time.Now()}
		e.ag.hookKind = p.Kind
		e.ag.gen++
		s.agentChangedLocked(e)
		info, _ := s.agentLocked(p.Pane, e)
		return proto.NotifyResult{Pane: p.Pane, Agent: info}, nil
	}})
}

func knownKind(r *agentstate.Rules, kind string) bool {
	for _, k := range r.Kinds() {
		if k == kind {
			return true
		}
	}
	return false
}
