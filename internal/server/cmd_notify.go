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
		case len(p.Reply) > maxReplyBytes || !utf8.ValidString(p.Reply):
			return nil, errorf(proto.CodeBadParams, "notify: reply must be UTF-8 text of at most %d bytes (got %d bytes)", maxReplyBytes, len(p.Reply))
		case len(p.Tool) > maxNotifyEvent || !utf8.ValidString(p.Tool) || len(p.Input) > maxNotifyMessage || !utf8.ValidString(p.Input):
			return nil, errorf(proto.CodeBadParams, "notify: tool must be UTF-8 text of at most %d bytes, input of at most %d", maxNotifyEvent, maxNotifyMessage)
		case p.Decide && p.State != string(agentstate.Waiting):
			return nil, errorf(proto.CodeBadParams, "notify: decide is for a question: state must be waiting, not %q", p.State)
		}
		if p.Kind != "" && !knownKind(s.rules(), p.Kind) {
			return nil, errorf(proto.CodeBadParams, "notify: kind %q is not a kind of agent (kinds: %v)", p.Kind, s.rules().Kinds())
		}
		// The pane's agent alone, no Server.mu: an agent's hooks report
		// while a command or a frame holds the pane table.
		e, err := s.agentLookup(p.Pane)
		if err != nil {
			return nil, err
		}
		// The pane's emulator is read holding no lock (its program status
		// here, its screen for the answer below): an emulator busy parsing
		// a flood holds up this report alone, not, through the agent lock,
		// whoever else needs the pane's agent.
		var status agentRead
		status.read(e.p, false)
		var out proto.NotifyResult
		if !s.agentFresh(e, func() { out = s.notifiedLocked(p, e, &status) }) {
			return nil, s.goneError(p.Pane)
		}
		info, _, ok := s.agentFreshInfo(p.Pane, e)
		if !ok {
			return nil, s.goneError(p.Pane)
		}
		out.Pane, out.Agent = p.Pane, info
		return out, nil
	}})
}

// notifiedLocked takes an agent's report from its hooks, with the pane's
// program status as read before the lock (status); the answer's agent is
// the caller's to decide. Caller holds the pane's agent lock.
func (s *Server) notifiedLocked(p proto.NotifyParams, e *paneEntry, status *agentRead) proto.NotifyResult {
	event := p.Event
	if event == "" {
		event = "melmux notify --state " + p.State
	}
	now := time.Now()
	var out proto.NotifyResult
	if p.Decide {
		// A permission hook asks before the agent draws its
		// question: the policy may answer it through the hook.
		kind := p.Kind
		if kind == "" {
			kind, _ = s.agentKindFromLocked(e, status)
		}
		q := &agentstate.Question{Text: p.Message, Tool: p.Tool, Input: p.Input}
		if dec, rule := s.decideByPolicyLocked(kind, q); dec != agentstate.Ask {
			out.Decision = string(dec)
			if rule != nil {
				out.Rule = rule.Name
			}
			s.answeredLocked(p.Pane, e, kind, q, string(dec), "", "policy", out.Rule, now)
			return out
		}
		// Left to a person: Claude Code draws its question next,
		// which the screen rules see once it is still. The hook's
		// report would say waiting before the question is there to
		// read, so it only names the tool and input.
		e.turns.hookQ = &hookQuestion{at: now, tool: p.Tool, input: p.Input}
		e.ag.gen++
		s.agentChangedLocked(e)
		return out
	}
	if p.State == string(agentstate.Idle) && (p.Reply != "" || p.Message != "") {
		reply := p.Reply
		if reply == "" {
			reply = p.Message
		}
		e.turns.stop = &hookReply{at: now, text: reply}
	}
	e.ag.hook = &agentstate.Report{Source: "hook", State: agentstate.State(p.State), Detail: oneLine(event),
		Message: oneLine(p.Message), At: now}
	e.ag.hookKind = p.Kind
	e.ag.gen++
	s.agentChangedLocked(e)
	return out
}

func knownKind(r *agentstate.Rules, kind string) bool {
	for _, k := range r.Kinds() {
		if k == kind {
			return true
		}
	}
	return false
}
