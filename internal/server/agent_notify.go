package server

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"

	"github.com/melmux/melmux/pane/agentstate"
)

// A pane's change is worth telling a person in two kinds, and a third is
// not worth telling:
//
//   - needs you: its agent asks a question (a permission, a choice), a
//     melmux agent's turn failed, or its program failed (a non-zero exit,
//     a signal);
//   - done: its agent finished a turn, or its program ended with exit
//     code 0 (and the pane stays);
//   - ready for its next message: an agent idle at its prompt, a melmux
//     agent that registered and waits for its first message. Nothing is
//     told: the border says so.
//
// The two first mark the pane (its tab shows `!` for needs you, `+` for
// done, until the person visits the pane or its tab), ring the attached
// clients' terminals, send them an OSC 9 notification (as the config says)
// and run the config's notify_command. Nothing of it happens for the
// focused pane while a client is attached: the person is looking at it.
// Nor for a pane `restore` started, until something is typed into it after
// the restore: the states its programs come back in are where the restored
// session starts, not news.
//
// A pane is told about at most once per NotifyEvery (a second): a program
// flipping its state many times a second would otherwise ring, send OSC 9
// and run notify_command as often. A change within the second after the last one told waits until
// the second is over, and what is then told is the latest change, with how
// many others it stands for (merged), so nothing goes unsaid for longer
// than that, nor is said more often. The marks are not held back.

// AgentsConfig is the [agents] part of the config: the kinds and rules, and
// how changes are notified.
type AgentsConfig struct {
	Rules         *agentstate.Rules // nil = the built-in rules
	Bell          bool              // ring the attached clients' terminals
	OSC9          bool              // send them an OSC 9 notification
	NotifyCommand string            // run with /bin/sh -c, "" for none
	// NotifyEvery is the least time between two notifications of one
	// pane; 0 = DefaultNotifyEvery.
	NotifyEvery time.Duration
	// Policy decides agents' questions before a person or lead does; nil
	// for none (nothing is answered for anyone).
	Policy *agentstate.Policy
	// Audit is the audit log's path ("" for none): every answered
	// question is appended to it.
	Audit string
}

// DefaultNotifyEvery is AgentsConfig.NotifyEvery's default.
const DefaultNotifyEvery = time.Second

// notifyCommandTimeout bounds a notify_command; notifyCommandsAtOnce bounds
// how many run at once (more are dropped and logged).
const (
	notifyCommandTimeout = 30 * time.Second
	notifyCommandsAtOnce = 4
	maxNoteBytes         = 4096 // notes waiting for one client
	maxNoteMessage       = 200  // runes of the message in an OSC 9 notification
)

// attention is what a pane's change asks of the person, least first.
type attention uint8

const (
	attnNone  attention = iota
	attnDone            // it finished: a turn, or its program with exit code 0
	attnNeeds           // it needs the person: a question, a failure
)

// word is the attention as notify_command's $MELMUX_ATTENTION says it.
func (a attention) word() string {
	switch a {
	case attnNeeds:
		return "needs-you"
	case attnDone:
		return "done"
	}
	return ""
}

// agentEvent is one change worth telling.
type agentEvent struct {
	pane              int
	kind              string
	state, from       agentstate.State
	message, evidence string
	attn              attention
	// question says the event is a question asked (its mark goes once the
	// question does); what says a failure or an end in words ("turn 3
	// failed", "exited with exit code 2"), "" for a question or a turn
	// finished; command names a pane that runs no agent.
	question      bool
	what, command string
	// merged counts the changes of the pane not told because they came
	// within NotifyEvery of the last one told, and that this one stands for.
	merged int
}

// notifyGate holds a pane's changes back to one notification per
// NotifyEvery, and keeps the pane's attention mark. Guarded by the pane's
// agent lock.
type notifyGate struct {
	last    time.Time   // when the pane's last notification was told
	pending *agentEvent // the latest change not told yet
	timer   *time.Timer // tells pending once NotifyEvery has passed since last

	// mark is what the pane's tab shows until the person visits the pane
	// or its tab; markQ says a needs-you mark is a question's (it goes
	// with the question, once answered by anyone).
	mark  attention
	markQ bool

	// hushed is set on a pane restore started: nothing is told of it
	// until input typed after hushFrom (hushTyping: restore is still to
	// type its line, which is no one's input).
	hushed     bool
	hushTyping bool
	hushFrom   time.Time
}

// summary says the event in words for a notification.
func (ev agentEvent) summary() string {
	who := fmt.Sprintf("%s in pane %d", ev.kind, ev.pane)
	if ev.kind == "" {
		who = fmt.Sprintf("pane %d", ev.pane)
		if ev.command != "" {
			who += " (" + ev.command + ")"
		}
	}
	var what string
	switch {
	case ev.question:
		what = "is waiting on you"
	case ev.attn == attnNeeds:
		what = "needs you: " + ev.what
	case ev.what != "":
		what = "is done: " + ev.what
	default:
		what = "finished its turn"
	}
	s := "melmux: " + who + " " + what
	switch {
	case ev.merged == 1:
		s += " (1 more change merged)"
	case ev.merged > 1:
		s += fmt.Sprintf(" (%d more changes merged)", ev.merged)
	}
	if ev.message != "" {
		s += ": " + ev.message
	}
	return s
}

// agentChangedStateLocked runs when a pane's agent state changed: it wakes
// whoever waits on the pane's agent, redraws, and tells a new question
// (needs you) or a finished turn (done). A melmux agent's turns are told
// from its reports (melReportedLocked): its "waiting" is for its next
// message, which is nobody's news. Caller holds the pane's agent lock.
func (s *Server) agentChangedStateLocked(id int, e *paneEntry, kind string, d agentstate.Decision) {
	s.log.Info("agent state", "pane", id, "kind", kind, "from", string(d.From), "to", string(d.State), "evidence", d.Evidence)
	s.agentChangedLocked(e)
	if kind == KindMelmux {
		return
	}
	if g := &e.notify; d.From == agentstate.Waiting && d.State != agentstate.Waiting && g.mark == attnNeeds && g.markQ {
		g.mark, g.markQ = attnNone, false // answered, by whoever: nobody is needed any more
	}
	ev := agentEvent{pane: id, kind: kind, state: d.State, from: d.From, message: oneLine(d.Message), evidence: d.Evidence}
	switch {
	case d.State == agentstate.Waiting && d.From != agentstate.Waiting:
		ev.attn, ev.question = attnNeeds, true
	case d.State == agentstate.Idle && d.EndsTurn:
		ev.attn = attnDone
	default:
		return
	}
	s.attendLocked(e, ev, true)
}

// melReportedLocked runs with every report of pane id's melmux agent a: a
// turn it was seen start (working) and now reports finished (idle or
// waiting after it) is done, or needs you when it failed. Each turn is
// told once; a turn it resumed at (a restored conversation) was never seen
// start and is no news. It returns the event to tell (attendLocked, under
// the pane's agent lock, without melAgents.mu), if any. Caller holds
// melAgents.mu.
func (mp *melPane) melReportedLocked(id int, a *melAgent, state string, turn int, reply, failure string) (agentEvent, bool) {
	if mp.toldID != a.id {
		mp.toldID, mp.started, mp.told = a.id, 0, 0
	}
	if state == "working" {
		mp.started = turn
		return agentEvent{}, false
	}
	if turn == 0 || turn != mp.started || turn <= mp.told {
		return agentEvent{}, false
	}
	mp.told = turn
	ev := agentEvent{pane: id, kind: KindMelmux, state: agentstate.State(state), from: agentstate.Working,
		evidence: fmt.Sprintf("melmux agent reported %s (turn %d)", state, turn), attn: attnDone, message: oneLine(reply)}
	if failure != "" {
		ev.attn, ev.what, ev.message = attnNeeds, fmt.Sprintf("turn %d failed", turn), oneLine(failure)
	}
	// Its turns come from messages sent since it registered, never from
	// what a restore found: no hush (attendLocked's false).
	return ev, true
}

// paneEndedLocked runs when pane id's program ended and the pane stays:
// a failure needs the person, exit code 0 is done. Caller holds Server.mu
// and the pane's agent lock.
func (s *Server) paneEndedLocked(id int, e *paneEntry) {
	st := e.p.Status()
	ev := agentEvent{pane: id, kind: e.kind, state: agentstate.Exited, evidence: "the process ended (" + exitWords(st) + ")",
		attn: attnDone, what: "it exited (" + exitWords(st) + ")", command: e.command}
	if st.Signal != nil || st.ExitCode == nil || *st.ExitCode != 0 {
		ev.attn = attnNeeds
	}
	s.attendLocked(e, ev, true)
	s.invalidateLocked()
}

// attendLocked marks the pane with ev's attention and tells ev, unless the
// person is looking at the pane or (hush) it is hushed since a restore.
// Caller holds the pane's agent lock.
func (s *Server) attendLocked(e *paneEntry, ev agentEvent, hush bool) {
	e.mustHoldAgent()
	switch {
	case hush && s.hushedLocked(e):
		s.log.Info("not told: the pane is as restore found it", "pane", ev.pane, "attention", ev.attn.word())
		return
	case s.lookedAt(ev.pane):
		return
	}
	g := &e.notify
	switch {
	case ev.attn > g.mark:
		g.mark, g.markQ = ev.attn, ev.question
	case ev.attn == attnNeeds && !ev.question:
		g.markQ = false // a failure stays marked once its question goes
	}
	s.notifyLocked(e, ev)
}

// lookedAt says a person is looking at pane id: it is the focused pane
// (as the last section under Server.mu left the layout) and a client is
// attached. It takes no lock of the server's but the clients'.
func (s *Server) lookedAt(id int) bool {
	return s.clients.count() > 0 && s.focus.Load() == int64(id)
}

// hushLocked hushes a pane restore started (see notifyGate.hushed);
// typing says restore will type a line into it (restoreTypedLocked ends
// that). Caller holds the pane's agent lock.
func (e *paneEntry) hushLocked(typing bool) {
	e.mustHoldAgent()
	g := &e.notify
	g.hushed, g.hushTyping, g.hushFrom = true, typing, time.Now()
}

// restoreTypedLocked says restore typed its line into the pane: input
// after this is someone's. Caller holds the pane's agent lock.
func (e *paneEntry) restoreTypedLocked() {
	e.mustHoldAgent()
	g := &e.notify
	g.hushTyping, g.hushFrom = false, time.Now()
}

// hushedLocked says the pane is still as restore found it: nothing typed
// into it since. Caller holds the pane's agent lock.
func (s *Server) hushedLocked(e *paneEntry) bool {
	e.mustHoldAgent()
	g := &e.notify
	if !g.hushed {
		return false
	}
	if g.hushTyping || !e.p.LastInput().After(g.hushFrom) {
		return true
	}
	g.hushed = false
	return false
}

// attnSeen is the active tab as the clients' frames last showed it: a
// frame showing another is a visit to it.
type attnSeen struct {
	tab int
	ok  bool // a frame was drawn
}

// seeLocked clears the attention marks of what client c's frame shows: the
// focused pane always, and every pane on the active tab when the tab is
// new to the clients (a tab switched to, a client's first frame): the
// person has visited them. Caller holds Server.mu (not the panes' agent
// locks, which it takes).
func (s *Server) seeLocked(c *client) {
	active := s.layout.ActiveTab()
	if c.scene == nil || !s.seen.ok || s.seen.tab != active {
		w, h := s.paneAreaLocked()
		for _, pl := range s.layout.Place(active, w, h) {
			if e, ok := s.panes[pl.Pane]; ok {
				e.agentDo(e.unmarkLocked)
			}
		}
	}
	s.seen.tab, s.seen.ok = active, true
	if e, ok := s.panes[s.layout.Focused()]; ok {
		e.agentDo(e.unmarkLocked)
	}
}

// unmarkLocked clears the pane's attention mark: the person saw it.
// Caller holds the pane's agent lock.
func (e *paneEntry) unmarkLocked() {
	e.notify.mark, e.notify.markQ = attnNone, false
}

// notifyLocked tells ev now, or once NotifyEvery has passed since the
// pane's last notification, merged with the changes after it. Caller holds
// the pane's agent lock.
func (s *Server) notifyLocked(e *paneEntry, ev agentEvent) {
	g := &e.notify
	every := s.cfg().agents.NotifyEvery
	if every <= 0 {
		every = DefaultNotifyEvery
	}
	now := time.Now()
	if g.pending == nil && now.Sub(g.last) >= every {
		g.last = now
		s.tellLocked(ev)
		return
	}
	if g.pending != nil {
		ev.merged = g.pending.merged + 1
	}
	g.pending = &ev
	if g.timer == nil {
		g.timer = time.AfterFunc(g.last.Add(every).Sub(now), func() { s.tellPending(e) })
	}
}

// tellPending tells the pane's change held back by notifyLocked.
func (s *Server) tellPending(e *paneEntry) {
	defer s.recovered("agent notification", nil)
	e.agentDo(func() {
		g := &e.notify
		ev := g.pending
		g.pending, g.timer = nil, nil
		if ev == nil {
			return
		}
		g.last = time.Now()
		s.tellLocked(*ev)
	})
}

// tellLocked rings the clients, sends them OSC 9 and runs notify_command,
// as the config says, for ev. Caller holds the pane's agent lock.
func (s *Server) tellLocked(ev agentEvent) {
	id := ev.pane
	switch {
	case s.ending.Load():
		return // the session is ending: its panes are closed by the person's doing, not the agents'
	case s.lookedAt(id):
		return // focused since, with a client attached: the person sees it
	}
	ac := s.cfg().agents
	var note []byte
	if ac.Bell {
		note = append(note, '\a')
	}
	if ac.OSC9 {
		note = append(note, "\x1b]9;"+clipRunes(ev.summary(), maxNoteMessage)+"\x1b\\"...)
	}
	if len(note) > 0 {
		for _, c := range s.clients.walk() {
			c.addNote(note)
		}
	}
	if ac.NotifyCommand != "" {
		select {
		case s.notifySlots <- struct{}{}:
			go func() {
				defer func() { <-s.notifySlots }()
				defer s.recovered("notify_command", nil)
				s.runNotifyCommand(ev)
			}()
		default:
			s.log.Warn("notify_command skipped: too many still running", "pane", id, "running", notifyCommandsAtOnce)
		}
	}
}

// runNotifyCommand runs the config's notify_command for ev, with what
// happened in its environment, in its own process group, killed after
// notifyCommandTimeout. Its output goes to the log.
func (s *Server) runNotifyCommand(ev agentEvent) {
	ctx, cancel := context.WithTimeout(context.Background(), notifyCommandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", s.cfg().agents.NotifyCommand)
	env := s.env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(append([]string(nil), env...),
		"MELMUX_SESSION="+s.name, "MELMUX_SOCKET="+s.sock, "MELMUX_PANE="+strconv.Itoa(ev.pane),
		"MELMUX_AGENT_KIND="+ev.kind, "MELMUX_AGENT_STATE="+string(ev.state),
		"MELMUX_AGENT_PREVIOUS="+string(ev.from), "MELMUX_AGENT_MESSAGE="+ev.message,
		"MELMUX_AGENT_EVIDENCE="+ev.evidence, "MELMUX_AGENT_MERGED="+strconv.Itoa(ev.merged),
		"MELMUX_ATTENTION="+ev.attn.word())
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &limitedWriter{w: &out, n: 4096}, &limitedWriter{w: &out, n: 4096}
	if err := cmd.Run(); err != nil {
		s.log.Warn("notify_command failed", "pane", ev.pane, "state", string(ev.state), "err", err, "output", out.String())
		return
	}
	s.log.Info("notify_command ran", "pane", ev.pane, "state", string(ev.state))
}

// limitedWriter keeps the first n bytes and discards the rest.
type limitedWriter struct {
	w *bytes.Buffer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if room := l.n - l.w.Len(); room > 0 {
		l.w.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// oneLine makes text safe and short for a notification and an environment
// variable: controls become spaces, runs of space one.
func oneLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// addNote queues bytes for the client's terminal (a bell, an OSC 9
// notification), written after its next frame.
func (c *client) addNote(b []byte) {
	locked(&c.msgMu, func() {
		if len(c.notes)+len(b) <= maxNoteBytes {
			c.notes = append(c.notes, b...)
		}
	})
	c.invalidate()
}

// flushNotes writes the queued notes; the client's loop calls it after a
// frame, so they never land inside one.
func (c *client) flushNotes() {
	if b := c.takeNotes(); len(b) > 0 {
		_, _ = c.tty.Write(b) // best effort, as OSC 52
	}
}

// takeNotes is what addNote queued, leaving none.
func (c *client) takeNotes() []byte {
	c.msgMu.Lock()
	defer c.msgMu.Unlock()
	b := c.notes
	c.notes = nil
	return b
}
