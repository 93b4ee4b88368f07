package server

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/pane"
	"github.com/melmux/melmux/pane/agentstate"
)

// answer answers the question the agent in a pane asks: the choice is an
// option's key or a word of its label. It refuses when the pane asks
// nothing, or asks something else than the question the caller read; it
// types the option's key and returns once the question is gone, or says it
// is still there.
func init() {
	register(&Command{Name: "answer", Run: func(ctx context.Context, s *Server, raw json.RawMessage) (any, error) {
		var p proto.AnswerParams
		if err := decodeParams("answer", raw, &p); err != nil {
			return nil, err
		}
		if err := paneParam("answer", p.Pane); err != nil {
			return nil, err
		}
		if strings.TrimSpace(p.Choice) == "" {
			return nil, errorf(proto.CodeBadParams, "answer: parameter \"choice\" is required: an option's key (\"1\", \"y\") or a word of its label (\"yes\", \"no\", \"always\")")
		}
		if p.WaitMS < 0 || p.WaitMS > maxWaitMS {
			return nil, errorf(proto.CodeBadParams, "answer: wait_ms must be between 0 (the default, %s) and %d", questionGoneWait, maxWaitMS)
		}
		e, asked, opt, err := s.answerable(p, answeredBy(ctx))
		if err != nil {
			return nil, err
		}
		q := questionInfo(asked)

		if _, err := e.p.SendKeys(ctx, opt.Key); err != nil {
			return nil, writeError("answer", p.Pane, e.p, err)
		}
		bound := questionGoneWait
		if p.WaitMS > 0 {
			bound = time.Duration(p.WaitMS) * time.Millisecond
		}
		out := proto.AnswerResult{Pane: p.Pane, Question: q, Option: proto.QuestionOption{Key: opt.Key, Label: opt.Label}}
		out.Gone = s.questionGone(ctx, p.Pane, e, asked, bound)
		if info, _, _ := s.agentFreshInfo(p.Pane, e); info != nil {
			out.State = info.State
		}
		out.Lines = trimTrailingEmpty(e.p.Term().Lines())
		return out, nil
	}})
}

// answerable checks that pane p.Pane asks the question the answer is for,
// and finds the option p.Choice names; it notes the key as typed by by
// (answer, or web for a browser's), so the answer is audited as such. It
// takes the pane's agent lock alone, and reads the pane's emulator before
// it (agentFreshRead): a pane busy printing holds up this answer alone.
func (s *Server) answerable(p proto.AnswerParams, by string) (e *paneEntry, asked *paneQuestion, opt agentstate.Option, err error) {
	if e, err = s.agentLookup(p.Pane); err != nil {
		return nil, nil, opt, err
	}
	if !s.agentFreshRead(e, func(pre *agentRead) bool {
		info, _, short := s.agentFromLocked(p.Pane, e, pre)
		if !short {
			asked, opt, err = s.answerableAgentLocked(p, e, info, by)
		}
		return short
	}) {
		return nil, nil, opt, s.goneError(p.Pane)
	}
	if err != nil {
		return nil, nil, opt, err
	}
	return e, asked, opt, nil
}

// answerableAgentLocked is answerable's part under the pane's agent lock,
// with the pane's agent as decided (info).
func (s *Server) answerableAgentLocked(p proto.AnswerParams, e *paneEntry, info *proto.AgentInfo, by string) (asked *paneQuestion, opt agentstate.Option, err error) {
	e.mustHoldAgent()
	asked = e.turns.q
	switch {
	case !e.p.Status().Running:
		return nil, opt, writeError("answer", p.Pane, e.p, pane.ErrExited)
	case info == nil:
		return nil, opt, errorf(proto.CodeFailed, "answer: pane %d runs no agent that melmux knows, so it asks nothing melmux can answer; send_keys types into it", p.Pane)
	case info.Question == nil || asked == nil:
		return nil, opt, errorf(proto.CodeFailed, "answer: the %s agent in pane %d asks nothing now (it is %s)", info.Kind, p.Pane, info.State)
	case p.Question != "" && p.Question != asked.q.Text:
		return nil, opt, errorf(proto.CodeFailed, "answer: pane %d now asks %q, not %q: read it again before answering (%s)", p.Pane, asked.q.Text, p.Question, asked.q.Describe())
	}
	opt, err = asked.q.Choose(p.Choice)
	if err != nil {
		return nil, opt, errorf(proto.CodeBadParams, "answer: pane %d: %v", p.Pane, err)
	}
	e.turns.typed = typedKeys{at: time.Now(), by: by, text: opt.Key}
	return asked, opt, nil
}
