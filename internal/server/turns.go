package server

import (
	"context"
	"strings"
	"time"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/pane/agentstate"
)

// A coding-agent CLI in a pane (claude, codex, gemini, aider, any kind the
// rules know) has turns as a melmux agent has, seen from outside: a turn
// starts when send_agent submits a message, or when the agent goes to work
// on something typed into its pane by a person; it ends when the agent is
// idle again or exits. A question pauses it (read_agent returns with the
// question; the turn goes on once it is answered). The turn's reply is
// looked for when it is read (reply.go): the agent's own hook, its session
// transcript, else the screen since the message.

const (
	// turnQuietEnd ends a turn whose agent was never seen at work (it
	// answered between two looks): idle, printed since the message, and
	// quiet this long.
	turnQuietEnd = 3 * time.Second
	// maxReplyBytes bounds a turn's reply kept for read_agent.
	maxReplyBytes = 256 << 10
	// maxAnswers bounds the answered questions explain shows.
	maxAnswers = 8
)

// cliTurns are the turns of the agent CLI in a pane, and the turns in
// them (cliTurn). Guarded by the pane's agent lock.
type cliTurns struct {
	given  int        // the last turn id given out
	cur    *cliTurn   // the turn under way, nil between turns
	unread []*cliTurn // ended turns no read_agent returned yet, oldest first
	last   *cliTurn   // the turn that ended last

	// hooks is set when melmux's hooks run in the agent (melmux added them
	// to its command line, or the user's settings have them): a turn's end
	// waits a moment for the Stop hook's reply.
	hooks bool
	// stop is the last reply a hook carried (Claude Code's Stop, Codex's
	// agent-turn-complete), with when it came.
	stop *hookReply

	// proc is where the agent process procPID keeps its sessions (its
	// environment and cwd), read once (reply.go).
	proc    agentProc
	procPID int

	// kind is the agent kind the turns are followed for, and kindSince
	// when the pane was first seen running it: keys typed before then went
	// to the program that started it (a shell's `claude` and Enter), and
	// begin no turn of the agent's.
	kind      string
	kindSince time.Time

	q       *paneQuestion // the question asked now, nil for none
	hookQ   *hookQuestion // what the last permission hook asked
	typed   typedKeys     // the last keys a command typed into the pane
	answers []answered    // the last questions answered, oldest first
}

type hookReply struct {
	at   time.Time
	text string
}

// cliTurn is one turn of an agent CLI.
type cliTurn struct {
	id    int
	from  string // "send_agent" or "person"
	text  string // the message, "" for the person's
	start time.Time
	// enter is when the message was submitted (its Enter pressed, or the
	// person's last key before the agent went to work); submitted says
	// delivery saw the agent take it.
	enter     time.Time
	submitted bool
	// mark is the pane's history count when the turn began, so the screen
	// fallback reads only what came after.
	mark uint64
	busy bool // seen working or asking since enter

	ended  bool
	end    string // "idle" or "exited"
	endAt  time.Time
	reply  string
	source string // hook, transcript or screen
	found  bool   // the reply was looked for
}

// lastEndLocked is when the last turn ended (zero for none).
func (t *cliTurns) lastEndLocked() time.Time {
	if t.last == nil {
		return time.Time{}
	}
	return t.last.endAt
}

// beginLocked starts a turn.
func (t *cliTurns) beginLocked(from, text string, start time.Time, mark uint64) *cliTurn {
	t.given++
	c := &cliTurn{id: t.given, from: from, text: text, start: start, enter: start, mark: mark}
	t.cur = c
	return c
}

// trackTurnLocked follows the pane's turns with a new decision of its
// agent's state: it starts a turn the person began, notes work, ends the
// turn under way. Caller holds the pane's agent lock.
func (s *Server) trackTurnLocked(id int, e *paneEntry, kind string, d *agentstate.Decision, screen agentstate.Screen, now time.Time) {
	e.mustHoldAgent()
	t := &e.turns
	if kind != t.kind {
		t.kind, t.kindSince = kind, now
	}
	switch d.State {
	case agentstate.Working, agentstate.Waiting:
		if t.cur == nil && d.Changed && (d.From == agentstate.Idle || d.From == agentstate.Waiting) {
			in := e.p.LastInput()
			if !in.IsZero() && in.After(t.lastEndLocked()) && in.After(t.kindSince) {
				c := t.beginLocked("person", "", in, 0)
				c.submitted = true
			}
		}
		if c := t.cur; c != nil && now.After(c.enter) {
			c.busy = true
		}
	}
	s.trackQuestionLocked(id, e, kind, d, screen, now)
	s.endTurnIfOverLocked(e, d.State, now)
}

// endTurnIfOverLocked ends the turn under way when the agent is done with
// it: exited, or idle after it was seen at work or a hook or its status
// said it finished, or idle and quiet long after printing. It returns when
// to look again for the quiet end, 0 for no need. Caller holds the pane's
// agent lock.
func (s *Server) endTurnIfOverLocked(e *paneEntry, state agentstate.State, now time.Time) time.Duration {
	e.mustHoldAgent()
	t := &e.turns
	c := t.cur
	if c == nil {
		return 0
	}
	over, end := false, "idle"
	switch {
	case !e.p.Status().Running || state == agentstate.Exited:
		over, end = true, "exited"
	case state != agentstate.Idle || !c.submitted:
	case c.busy:
		over = true
	case t.stop != nil && t.stop.at.After(c.enter):
		over = true
	case e.ag.status != nil && e.ag.status.State == agentstate.Idle && e.ag.status.At.After(c.enter):
		over = true
	default:
		last := e.p.LastOutput()
		if !last.After(c.enter) {
			return 0
		}
		if quiet := now.Sub(last); quiet < turnQuietEnd {
			return turnQuietEnd - quiet
		}
		over = true
	}
	if !over {
		return 0
	}
	s.endTurnNowLocked(e, end)
	return 0
}

// endTurnNowLocked ends the turn under way as end says. Caller holds the
// pane's agent lock.
func (s *Server) endTurnNowLocked(e *paneEntry, end string) {
	e.mustHoldAgent()
	t := &e.turns
	c := t.cur
	c.ended, c.end, c.endAt = true, end, time.Now()
	t.cur, t.last = nil, c
	if len(t.unread) == maxUnread {
		t.unread = append(t.unread[:0], t.unread[1:]...)
	}
	t.unread = append(t.unread, c)
	s.agentChangedLocked(e)
}

// turnOfLocked finds turn id among those kept, nil when gone.
func (t *cliTurns) turnOfLocked(id int) *cliTurn {
	if t.cur != nil && t.cur.id == id {
		return t.cur
	}
	for _, c := range t.unread {
		if c.id == id {
			return c
		}
	}
	if t.last != nil && t.last.id == id {
		return t.last
	}
	return nil
}

// turnReplyOf is a turn as read_agent gives it.
func turnReplyOf(c *cliTurn) proto.TurnReply {
	r := proto.TurnReply{Turn: c.id, Reply: c.reply, Source: c.source}
	if c.end == "exited" && c.reply == "" {
		r.Error = "the agent exited during the turn"
	}
	return r
}

// agentStartWait bounds open_pane's wait for an agent CLI to be ready.
const agentStartWait = 30 * time.Second

// waitAgentReady waits, up to bound, until the agent CLI in pane id is
// ready for a message (idle at its prompt; with busyOK, at work too: it
// takes a message while it works) or asks something (a trust question), or
// its program exits. It takes the pane's agent lock, and no Server.mu,
// and reads the pane's emulator before it (agentDecided): a wait on an
// agent busy printing holds up nobody else's use of its agent.
func (s *Server) waitAgentReady(ctx context.Context, id int, e *paneEntry, bound time.Duration, busyOK bool) {
	deadline := time.NewTimer(bound)
	defer deadline.Stop()
	for {
		var ready bool
		var next time.Duration
		var ch <-chan struct{}
		pch := e.p.Changed() // before the read: output after it wakes the wait
		if !s.agentDecided(id, e, func(d *agentstate.Decision, kind string) {
			ready = d != nil && agentReadyState(kind, d, e.p.LastOutput(), busyOK) || !e.p.Status().Running
			if d != nil {
				next = d.Next
			}
			ch = s.agentChanges(e)
		}) {
			return // gone: nothing to wait for
		}
		if ready {
			return
		}
		again := time.NewTimer(next)
		if next <= 0 {
			again.Stop()
		}
		select {
		case <-ch:
		case <-pch:
		case <-again.C:
		case <-e.p.Exited():
		case <-deadline.C:
			again.Stop()
			return
		case <-ctx.Done():
			again.Stop()
			return
		}
		again.Stop()
	}
}

// agentReadyState says whether an agent CLI's state shows it ready for a
// message: asking something (a trust question), or idle by its own prompt
// rule or report. A first look says idle before anything is drawn, and
// some CLIs start twice (Gemini CLI relaunches itself), so "quiet" alone is
// readiness only for kinds with no prompt rule, after a second of it. Work
// counts (with busyOK) only when a rule or the agent's own report says so:
// a program drawing its first screen prints as busily.
func agentReadyState(kind string, d *agentstate.Decision, lastOutput time.Time, busyOK bool) bool {
	own := strings.HasPrefix(d.Evidence, "rule ") || strings.HasPrefix(d.Evidence, "program status") || strings.HasPrefix(d.Evidence, "hook")
	switch {
	case d.State == agentstate.Waiting:
		return true
	case d.State == agentstate.Working:
		return busyOK && own
	case d.State != agentstate.Idle:
		return false
	case own:
		return true
	}
	return !promptRuleKinds[kind] && !lastOutput.IsZero() && time.Since(lastOutput) >= time.Second
}

// promptRuleKinds have a rule for their idle prompt (rules.toml).
var promptRuleKinds = map[string]bool{"claude": true, "codex": true, "gemini": true}
