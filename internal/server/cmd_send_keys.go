package server

import (
	"context"
	"encoding/json"
	"path/filepath"
	"time"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/pane"
)

// Bounds of the settle wait of send_keys.
const (
	defaultSettle  = 300 * time.Millisecond
	defaultMaxWait = 5 * time.Second
	maxMaxWait     = 60 * time.Second
	firstOutput    = time.Second
)

// send_keys types text (pane/keys' notation, or as it is with
// literal) into a pane and answers with the screen once the output settled,
// within a bound.
func init() {
	register(&Command{Name: "send_keys", Run: func(ctx context.Context, s *Server, raw json.RawMessage) (any, error) {
		var p proto.SendKeysParams
		if err := decodeParams("send_keys", raw, &p); err != nil {
			return nil, err
		}
		if err := paneParam("send_keys", p.Pane); err != nil {
			return nil, err
		}
		if p.SettleMS < 0 || p.MaxWaitMS < 0 {
			return nil, errorf(proto.CodeBadParams, "send_keys: settle_ms and max_wait_ms must not be negative")
		}
		// Keys typed into a question answer it: noted so the answer is
		// told apart from a person's, and reported whether it went away.
		// The pane's agent alone, its emulator read before (agentFreshRead):
		// a pane busy printing holds up these keys, not every command.
		var asked *paneQuestion
		e, err := s.agentLookup(p.Pane)
		if err != nil {
			return nil, err
		}
		if !s.agentFreshRead(e, func(pre *agentRead) bool {
			info, _, short := s.agentFromLocked(p.Pane, e, pre)
			if short {
				return true
			}
			if info != nil && info.Question != nil {
				asked = e.turns.q
			}
			e.turns.typed = typedKeys{at: time.Now(), by: "send_keys", text: p.Text}
			return false
		}) {
			return nil, s.goneError(p.Pane)
		}
		since := time.Now()
		n, err := len(p.Text), error(nil)
		if p.Literal {
			err = e.p.WriteContext(ctx, []byte(p.Text))
		} else {
			n, err = e.p.SendKeys(ctx, p.Text)
		}
		if err != nil {
			return nil, writeError("send_keys", p.Pane, e.p, err)
		}
		out := proto.SendKeysResult{Pane: p.Pane, Bytes: n}
		if !p.NoWait {
			settle, maxWait := defaultSettle, defaultMaxWait
			if p.SettleMS > 0 {
				settle = time.Duration(p.SettleMS) * time.Millisecond
			}
			if p.MaxWaitMS > 0 {
				maxWait = min(time.Duration(p.MaxWaitMS)*time.Millisecond, maxMaxWait)
			}
			out.Settled = e.p.WaitSettled(ctx, since, settle, firstOutput, maxWait)
			out.Lines = trimTrailingEmpty(e.p.Term().Lines())
			out.Running = startedProgram(e.p)
		}
		out.Status = statusWord(e.p.Status())
		if asked != nil {
			out.Question = questionInfo(asked)
			out.QuestionGone = s.questionGone(ctx, p.Pane, e, asked, questionGoneWait)
		}
		return out, nil
	}})
}

// startedProgram names the program in p's foreground when it is not p's
// own process (a shell's job: what the keys started, still running), ""
// when it is, or when it cannot be told.
func startedProgram(p *pane.Pane) string {
	st := p.Status()
	pg := p.ForegroundGroup()
	if !st.Running || pg == 0 || pg == st.PID {
		return ""
	}
	if argv := readProc(pg).Argv; len(argv) > 0 && argv[0] != "" {
		return filepath.Base(argv[0])
	}
	return ""
}
