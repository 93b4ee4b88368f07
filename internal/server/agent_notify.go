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

// When a pane's agent starts waiting on a person or finishes a turn, the
// people and programs watching are told: the attached clients' terminals
// get a bell and an OSC 9 notification (as the config says), and the
// config's notify_command runs. The status line's marker and `wait --state`
// need nothing more: they read the state.
//
// A pane is told about at most once per NotifyEvery (a second): a program
// flipping its state every 10 ms made 352 bells, OSC 9s and notify_commands
// in 20 s. A change within the second after the last one told waits until
// the second is over, and what is then told is the latest change, with how
// many others it stands for (merged), so nothing goes unsaid for longer
// than that, nor is said more often.

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

// agentEvent is one change worth telling.
type agentEvent struct {
	pane              int
	kind              string
	state, from       agentstate.State
	message, evidence string
	// merged counts the changes of the pane not told because they came
	// within NotifyEvery of the last one told, and that this one stands for.
	merged int
}

// notifyGate holds a pane's changes back to one notification per
// NotifyEvery. Guarded by Server.mu.
type notifyGate struct {
	last    time.Time   // when the pane's last notification was told
	pending *agentEvent // the latest change not told yet
	timer   *time.Timer // tells pending once NotifyEvery has passed since last
}

// summary says the event in words for a notification.
func (ev agentEvent) summary() string {
	what := "is waiting on you"
	if ev.state != agentstate.Waiting || ev.kind == KindMelmux {
		what = "finished its turn"
	}
	s := fmt.Sprintf("melmux: %s in pane %d %s", ev.kind, ev.pane, what)
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
// whoever waits on the pane's agent, redraws, and notifies a new wait on a
// person or a finished turn. Caller holds Server.mu.
func (s *Server) agentChangedStateLocked(id int, e *paneEntry, kind string, d agentstate.Decision) {
	s.log.Info("agent state", "pane", id, "kind", kind, "from", string(d.From), "to", string(d.State), "evidence", d.Evidence)
	s.agentChangedLocked(e)
	asks := d.State == agentstate.Waiting && d.From != agentstate.Waiting
	done := d.State == agentstate.Idle && d.EndsTurn
	if !asks && !done {
		return
	}
	s.notifyLocked(e, agentEvent{pane: id, kind: kind, state: d.State, from: d.From, message: oneLine(d.Message), evidence: d.Evidence})
}

// notifyLocked tells ev now, or once NotifyEvery has passed since the
// pane's last notification, merged with the changes after it. Caller holds
// Server.mu.
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
	s.withLock(func() {
		g := &e.notify
		ev := g.pending
		g.pending, g.timer = nil, nil
		if ev == nil || s.shutdown {
			return
		}
		g.last = time.Now()
		s.tellLocked(*ev)
	})
}

// tellLocked rings the clients, sends them OSC 9 and runs notify_command,
// as the config says, for ev. Caller holds Server.mu.
func (s *Server) tellLocked(ev agentEvent) {
	id := ev.pane
	ac := s.cfg().agents
	var note []byte
	if ac.Bell {
		note = append(note, '\a')
	}
	if ac.OSC9 {
		note = append(note, "\x1b]9;"+clipRunes(ev.summary(), maxNoteMessage)+"\x1b\\"...)
	}
	if len(note) > 0 {
		for c := range s.clients {
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
		"MELMUX_AGENT_EVIDENCE="+ev.evidence, "MELMUX_AGENT_MERGED="+strconv.Itoa(ev.merged))
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
	c.msgMu.Lock()
	if len(c.notes)+len(b) <= maxNoteBytes {
		c.notes = append(c.notes, b...)
	}
	c.msgMu.Unlock()
	c.invalidate()
}

// flushNotes writes the queued notes; the client's loop calls it after a
// frame, so they never land inside one.
func (c *client) flushNotes() {
	c.msgMu.Lock()
	b := c.notes
	c.notes = nil
	c.msgMu.Unlock()
	if len(b) > 0 {
		_, _ = c.tty.Write(b) // best effort, as OSC 52
	}
}
