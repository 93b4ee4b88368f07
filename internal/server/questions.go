package server

import (
	"context"
	"fmt"
	"time"

	"github.com/melmux/melmux/internal/audit"
	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/pane/agentstate"
)

// A coding agent waiting on a person asks a question: melmux gives it as
// data (list_panes' agent.question, read_agent, wait --state waiting,
// explain), from the agent's permission hook where one fired, else read
// from its screen (agentstate.ParseQuestion). The policy
// ([[agents.policy]]) decides a question before anyone sees it: the hook's
// decision where the agent asked through one, else the option's key typed
// into the pane. Every answer — by the policy, `melmux answer`, a lead's
// send_keys or a person's key — is appended to the audit log.

// hookQuestionFresh bounds how long after a permission hook its tool and
// input describe the question on screen.
const hookQuestionFresh = 30 * time.Second

// paneQuestion is the question a pane's agent asks now.
type paneQuestion struct {
	q      *agentstate.Question
	since  time.Time
	source string // screen or hook
	// decided is set once the policy was asked about it, so it is decided
	// once; decision is what it said.
	decided  bool
	decision agentstate.PolicyDecision
	rule     string
}

// asksLocked says whether q (nil for none) waits for someone to answer it:
// a question the policy decided is being answered by its key, and a
// read_agent waits on for the turn to go on.
func (q *paneQuestion) asksLocked() bool {
	return q != nil && (!q.decided || q.decision == agentstate.Ask)
}

// hookQuestion is what a permission hook (Claude Code's PermissionRequest)
// asked.
type hookQuestion struct {
	at          time.Time
	tool, input string
}

// typedKeys are the last keys a command (send_keys, answer, the policy)
// typed into a pane, so that the answer to a question can be told apart
// from a person's.
type typedKeys struct {
	at   time.Time
	by   string // send_keys, answer, policy
	text string
	rule string
}

// answered is one question answered in the pane, for explain.
type answered struct {
	at   time.Time
	q    *agentstate.Question
	dec  string
	by   string
	rule string
}

// trackQuestionLocked follows the pane's question with a new decision:
// reads it when the agent waits, notes who answered when it is gone, and
// asks the policy once per question. Caller holds the pane's agent lock.
func (s *Server) trackQuestionLocked(id int, e *paneEntry, kind string, d *agentstate.Decision, screen agentstate.Screen, now time.Time) {
	t := &e.turns
	if d.State != agentstate.Waiting {
		if t.q != nil {
			s.questionGoneLocked(id, e, kind, now)
		}
		return
	}
	q, source := s.readQuestionLocked(e, kind, d, screen)
	if t.q != nil && t.q.q.Equal(q) {
		return
	}
	if t.q != nil {
		s.questionGoneLocked(id, e, kind, now)
	}
	t.q = &paneQuestion{q: q, since: now, source: source}
	s.policyLocked(id, e, kind)
}

// readQuestionLocked reads what the agent asks: the question on its
// screen, with the tool and input of a permission hook that fired for it.
func (s *Server) readQuestionLocked(e *paneEntry, kind string, d *agentstate.Decision, screen agentstate.Screen) (*agentstate.Question, string) {
	q := agentstate.ParseQuestion(kind, screen)
	source := "screen"
	if q == nil {
		text := d.Message
		if text == "" {
			text = "(a question melmux cannot read from the screen; read_pane shows it)"
		}
		q = &agentstate.Question{Text: text}
	}
	if h := e.turns.hookQ; h != nil && time.Since(h.at) < hookQuestionFresh {
		if q.Tool == "" || q.Input == "" {
			source = "hook"
		}
		if q.Tool == "" {
			q.Tool = h.tool
		}
		if q.Input == "" {
			q.Input = h.input
		}
	}
	return q, source
}

// questionGoneLocked records the answer to the question that went away:
// by the keys a command typed after it showed, else by the person's keys,
// else by the agent itself (a hook's decision, an interrupt).
func (s *Server) questionGoneLocked(id int, e *paneEntry, kind string, now time.Time) {
	t := &e.turns
	pq := t.q
	t.q = nil
	if pq.decided && pq.decision != agentstate.Ask {
		return // the policy answered it, and said so in the log
	}
	by, dec, key, rule := "", "answered", "", ""
	switch {
	case !t.typed.at.Before(pq.since):
		by, key, rule = t.typed.by, t.typed.text, t.typed.rule
		if o, ok := optionOfKeys(pq.q, key); ok {
			dec = o.Label
		}
	case e.p.LastInput().After(pq.since):
		by = "person"
	default:
		return // nobody typed: the agent moved on by itself
	}
	s.answeredLocked(id, e, kind, pq.q, dec, key, by, rule, now)
}

// answeredLocked notes an answer for explain and appends it to the audit
// log (on its own goroutine: the log is a file). Caller holds the pane's
// agent lock.
func (s *Server) answeredLocked(id int, e *paneEntry, kind string, q *agentstate.Question, dec, key, by, rule string, now time.Time) {
	e.mustHoldAgent()
	t := &e.turns
	if len(t.answers) == maxAnswers {
		t.answers = append(t.answers[:0], t.answers[1:]...)
	}
	t.answers = append(t.answers, answered{at: now, q: q, dec: dec, by: by, rule: rule})
	s.log.Info("question answered", "pane", id, "kind", kind, "tool", q.Tool, "input", q.Input, "decision", dec, "by", by, "rule", rule)
	if s.audit == nil {
		return
	}
	entry := audit.Entry{Time: now, Session: s.name, Pane: id, Kind: kind, Tool: q.Tool, Input: q.Input,
		Question: q.Text, Decision: dec, Key: key, By: by, Rule: rule}
	go func() {
		defer s.recovered("the audit log", nil)
		if err := s.audit.Append(entry); err != nil {
			s.log.Warn("audit log", "err", err)
		}
	}()
}

// optionOfKeys is the option whose key the typed text is.
func optionOfKeys(q *agentstate.Question, typed string) (agentstate.Option, bool) {
	for _, o := range q.Options {
		if o.Key == typed {
			return o, true
		}
	}
	return agentstate.Option{}, false
}

// policyLocked asks the policy about the pane's new question once, and
// types the key of the option it decides, on its own goroutine. Caller
// holds the pane's agent lock.
func (s *Server) policyLocked(id int, e *paneEntry, kind string) {
	e.mustHoldAgent()
	pq := e.turns.q
	if pq == nil || pq.decided {
		return
	}
	pq.decided = true
	dec, rule := s.decideByPolicyLocked(kind, pq.q)
	pq.decision = dec
	if rule != nil {
		pq.rule = rule.Name
	}
	if dec == agentstate.Ask {
		return
	}
	o, ok := pq.q.KeyFor(string(dec))
	if !ok {
		s.log.Warn("policy: the question has no option for the decision", "pane", id, "decision", dec, "question", pq.q.Describe())
		pq.decision = agentstate.Ask
		return
	}
	e.turns.typed = typedKeys{at: time.Now(), by: "policy", text: o.Key, rule: pq.rule}
	s.answeredLocked(id, e, kind, pq.q, string(dec), o.Key, "policy", pq.rule, time.Now())
	p := e.p
	go func() {
		defer s.recovered(fmt.Sprintf("pane %d's policy answer", id), nil)
		runHook(&s.hooks.policyKey)
		if _, err := p.SendKeys(context.Background(), o.Key); err != nil {
			s.log.Warn("policy: typing the answer", "pane", id, "key", o.Key, "err", err)
		}
	}()
}

// decideByPolicyLocked is the policy's decision on q, asked by an agent of
// kind; Ask (a person decides) when there is no policy.
func (s *Server) decideByPolicyLocked(kind string, q *agentstate.Question) (agentstate.PolicyDecision, *agentstate.PolicyRule) {
	p := s.cfg().agents.Policy
	if p == nil {
		return agentstate.Ask, nil
	}
	return p.Decide(kind, q.Tool, q.Input)
}

// questionInfo is a question as the wire gives it.
func questionInfo(pq *paneQuestion) *proto.Question {
	if pq == nil {
		return nil
	}
	out := &proto.Question{Text: pq.q.Text, Tool: pq.q.Tool, Input: pq.q.Input, Since: pq.since,
		Source: pq.source, Options: []proto.QuestionOption{}, Keys: pq.q.Describe()}
	for _, o := range pq.q.Options {
		out.Options = append(out.Options, proto.QuestionOption{Key: o.Key, Label: o.Label})
	}
	return out
}

// explainAnswersLocked lists the questions answered in the pane.
func explainAnswersLocked(e *paneEntry, now time.Time) []proto.ExplainAnswer {
	var out []proto.ExplainAnswer
	for _, a := range e.turns.answers {
		out = append(out, proto.ExplainAnswer{AgoMS: now.Sub(a.at).Milliseconds(), Question: a.q.Text,
			Tool: a.q.Tool, Input: a.q.Input, Decision: a.dec, By: a.by, Rule: a.rule})
	}
	return out
}

// questionGoneWait bounds how long send_keys and answer wait for a
// question to go away after its key.
const questionGoneWait = 3 * time.Second

// questionGone waits, up to bound, until the pane no longer asks asked,
// and reports whether it went away. It takes the pane's agent lock, and
// no Server.mu, and reads the pane's emulator before it (agentDecided).
func (s *Server) questionGone(ctx context.Context, id int, e *paneEntry, asked *paneQuestion, bound time.Duration) bool {
	deadline := time.NewTimer(bound)
	defer deadline.Stop()
	for {
		var gone bool
		var ch <-chan struct{}
		pch := e.p.Changed() // before the read: output after it wakes the wait
		if !s.agentDecided(id, e, func(*agentstate.Decision, string) {
			gone = e.turns.q != asked || !e.p.Status().Running
			ch = s.agentChanges(e)
		}) {
			return true
		}
		if gone {
			return true
		}
		select {
		case <-ch:
		case <-pch:
		case <-e.p.Exited():
		case <-deadline.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// openAudit opens the audit log at path, nil for "".
func openAudit(path string) *audit.Log {
	if path == "" {
		return nil
	}
	return audit.Open(path)
}
