package server

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/pane/agentstate"
)

// A question the policy decides is being answered: read_agent waits
// through it for the rest of the turn instead of returning the question
// to a lead that has nothing to do about it. The policy's key is held
// until read_agent is seen waiting, so the test does not depend on who is
// faster.
func TestReadAgentWaitsThroughAPolicyAnswer(t *testing.T) {
	t.Parallel()
	policy, err := agentstate.NewPolicy([]agentstate.PolicyRule{{Kind: "*", Tool: "*", Decision: agentstate.Deny}})
	if err != nil {
		t.Fatal(err)
	}
	var log logBuffer
	s, c := startServer(t, func(cfg *Config) {
		cfg.Agents = AgentsConfig{Policy: policy}
		cfg.Log = slog.New(slog.NewTextHandler(&log, nil))
	})
	// A stand-in agent: it takes a message, asks as Claude Code does, and
	// once answered clears the question, as Claude Code does, and says what
	// it was answered.
	newPane(t, c, standIn(t, "#!/bin/sh\nprintf '> '\nread msg\n"+
		"printf 'Bash command\\n  rm -rf build\\nDo you want to proceed?\\n\\342\\235\\257 1. Yes\\n  2. No\\n'\n"+
		"stty raw -echo\nkey=$(dd bs=1 count=1 2>/dev/null)\nstty sane\n"+
		"printf '\\033[H\\033[2J\\342\\227\\217 You answered %s.\\n> ' \"$key\"\nsleep 600\n"))
	waitLine(t, c, 1, `^>`)

	waiting := make(chan struct{})
	var once sync.Once
	onWait := func() { once.Do(func() { close(waiting) }) }
	s.hooks.turnWait.Store(&onWait)
	held := func() {
		select {
		case <-waiting:
		case <-time.After(20 * time.Second):
		}
	}
	s.hooks.policyKey.Store(&held)

	r := send(t, c, 1, "fix the tests", "")
	if r.Turn != 1 {
		t.Fatalf("send_agent: %+v", r)
	}
	var out proto.ReadAgentResult
	if err := c.Call(context.Background(), "read_agent", proto.ReadAgentParams{Pane: 1, WaitMS: 30000}, &out); err != nil {
		t.Fatal(err)
	}
	if !out.TurnDone || out.Question != nil || !strings.Contains(out.Reply, "You answered 2.") {
		var ex proto.ExplainResult
		_ = c.Call(context.Background(), "explain", proto.PaneRef{Pane: 1}, &ex)
		t.Fatalf("read_agent returned before the policy's answer went through: turn_done %v, question %+v, reply %q, note %q; screen %q; explain %+v; log %s",
			out.TurnDone, out.Question, out.Reply, out.WaitNote, out.Lines, ex, log.String())
	}
}

// An agent at work takes a message (Claude Code queues it): send_agent
// does not wait for it to be idle again. A first screen being drawn is no
// sign of readiness, whatever the state says.
func TestAgentReadyState(t *testing.T) {
	quiet := time.Now().Add(-2 * time.Second)
	for _, c := range []struct {
		name   string
		kind   string
		d      agentstate.Decision
		busyOK bool
		want   bool
	}{
		{"working by a rule, for a message", "claude", agentstate.Decision{State: agentstate.Working, Evidence: `rule claude.busy matched "esc to interrupt" on row 9`}, true, true},
		{"working by its report, for a message", "codex", agentstate.Decision{State: agentstate.Working, Evidence: "program status: OSC 7501 working 1s ago"}, true, true},
		{"working by a rule, to start", "claude", agentstate.Decision{State: agentstate.Working, Evidence: `rule claude.busy matched "esc to interrupt" on row 9`}, false, false},
		{"drawing its first screen", "gemini", agentstate.Decision{State: agentstate.Working, Evidence: "output: 2 writes in the last 1.5s"}, true, false},
		{"idle at its prompt", "claude", agentstate.Decision{State: agentstate.Idle, Evidence: `rule claude.prompt matched "❯" on row 20`}, false, true},
		{"quiet, not at its prompt", "claude", agentstate.Decision{State: agentstate.Idle, Evidence: "no question, busy marker or report; quiet for 2s"}, true, false},
		{"quiet, a kind with no prompt rule", "aider", agentstate.Decision{State: agentstate.Idle, Evidence: "no question, busy marker or report; quiet for 2s"}, false, true},
		{"asking", "claude", agentstate.Decision{State: agentstate.Waiting, Evidence: "rule claude.permission"}, false, true},
	} {
		if got := agentReadyState(c.kind, &c.d, quiet, c.busyOK); got != c.want {
			t.Errorf("%s: ready %v, want %v", c.name, got, c.want)
		}
	}
}
