package server

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/pane/agentstate"
)

// explain says how a pane's agent state is decided: the kind and why, then
// every signal and rule with what it says now, the one that decided marked,
// and the last changes of state.
func init() {
	register(&Command{Name: "explain", Run: func(ctx context.Context, s *Server, raw json.RawMessage) (any, error) {
		var p proto.PaneRef
		if err := decodeParams("explain", raw, &p); err != nil {
			return nil, err
		}
		if err := paneParam("explain", p.Pane); err != nil {
			return nil, err
		}
		// The pane's agent alone, its emulator read first, whole: an
		// explanation is of a decision made now, and a pane busy printing
		// holds up this call, not the pane's agent nor every command.
		e, err := s.agentLookup(p.Pane)
		if err != nil {
			return nil, err
		}
		var r agentRead
		r.read(e.p, true)
		var out proto.ExplainResult
		var hooked bool // melmux's hooks run in the agent
		if !s.agentFresh(e, func() { out, hooked = s.explainLocked(p.Pane, e, &r), e.turns.hooks }) {
			return nil, s.goneError(p.Pane)
		}
		return s.hintHooks(out, hooked), nil
	}})
}

// hintHooks says, on the hook signal of an agent CLI that has not reported
// through one, that its hooks are not set up: a Gemini CLI's (melmux cannot
// add them to one it starts), or a Claude Code's or Codex's that melmux did
// not start (typed into a shell, or a wrapper's). Without them its turns
// end by its session files and screen, later. Read outside the session's
// locks: it reads a file.
func (s *Server) hintHooks(out proto.ExplainResult, added bool) proto.ExplainResult {
	switch {
	case out.Kind == "gemini":
	case (out.Kind == "claude" || out.Kind == "codex") && !added:
	default:
		return out
	}
	for i := range out.Signals {
		sig := &out.Signals[i]
		if sig.Signal != "hook" || sig.Detail != "no report" {
			continue
		}
		if st, ok := userHooks(out.Kind, func(k string) string { return envValue(s.env, k) }); !ok || !st.Complete() {
			sig.Detail += fmt.Sprintf(" (%s's settings run no melmux hooks: melmux hooks install %s)", cliName[out.Kind], out.Kind)
		}
	}
	return out
}

// cliName is each agent CLI's own name, for messages.
var cliName = map[string]string{"claude": "Claude Code", "codex": "Codex", "gemini": "Gemini CLI"}

// explainLocked is explain of pane id, decided anew from pre, a read of
// its emulator with the screen. Caller holds the pane's agent lock.
func (s *Server) explainLocked(id int, e *paneEntry, pre *agentRead) proto.ExplainResult {
	e.mustHoldAgent()
	out := proto.ExplainResult{Pane: id, Foreground: s.foregroundLocked(e), Signals: []proto.ExplainSignal{}, History: []proto.ExplainChange{}}
	d, kind, _ := s.decideFromLocked(id, e, true, pre)
	if d == nil {
		out.KindEvidence = "no coding agent among the foreground processes, no report from one, no banner on screen"
		return out
	}
	now := time.Now()
	out.Kind, out.State, out.Evidence = kind, string(d.State), d.Evidence
	out.KindEvidence = e.ag.kindWhy
	if k, why := s.agentKindLocked(e); k == kind {
		out.KindEvidence = why
	} else if kind == KindMelmux {
		out.KindEvidence = "a melmux agent registered for the pane"
	}
	out.SinceMS = now.Sub(d.Since).Milliseconds()
	for _, v := range d.Verdicts {
		out.Signals = append(out.Signals, proto.ExplainSignal{Signal: v.Signal, Says: string(v.Says), Detail: v.Detail, Decided: v.Decided})
	}
	for _, h := range e.ag.engine.History() {
		out.History = append(out.History, proto.ExplainChange{AgoMS: now.Sub(h.At).Milliseconds(), From: string(h.From), To: string(h.To), Evidence: h.Evidence})
	}
	if d.State == agentstate.Waiting && kind != KindMelmux {
		out.Question = questionInfo(e.turns.q)
	}
	out.Answers = explainAnswersLocked(e, now)
	return out
}
