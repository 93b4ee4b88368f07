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
		var added bool // melmux added its hooks to the agent's command line
		res, err := freshDo(s, func() (any, error) {
			e, err := s.lookupLocked(p.Pane)
			if err != nil {
				return nil, err
			}
			var out proto.ExplainResult
			e.agentDo(func() { out, added = s.explainLocked(p.Pane, e), e.turns.hooks })
			return out, nil
		}, p.Pane)
		if out, ok := res.(proto.ExplainResult); ok && err == nil {
			return s.hintHooks(out, added), nil
		}
		return res, err
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

// explainLocked is explain of pane id. Caller holds Server.mu and the
// pane's agent lock.
func (s *Server) explainLocked(id int, e *paneEntry) proto.ExplainResult {
	out := proto.ExplainResult{Pane: id, Foreground: s.foregroundLocked(e), Signals: []proto.ExplainSignal{}, History: []proto.ExplainChange{}}
	d, kind := s.decideLocked(id, e, true)
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
