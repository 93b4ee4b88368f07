package server

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"sync"
	"time"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/pane"
	"github.com/melmux/melmux/pane/agentstate"
	"github.com/melmux/melmux/pane/term"
)

// waitStates are the values wait --state accepts. For a pane running a coding
// agent, idle, working, waiting and exited are the agent's states; running and
// busy are the process's and its output's.
var waitStates = map[string]bool{"running": true, "exited": true, "busy": true, "idle": true, "working": true, "waiting": true}

// agentOnly are the states only a coding agent has: waiting for them on a
// pane without one would never end.
var agentOnly = map[string]bool{"working": true, "waiting": true}

// maxWaitMS bounds every wait a request asks for: a year.
const maxWaitMS = int64(365 * 24 * time.Hour / time.Millisecond)

// wait blocks until a condition holds on a pane: its process exited, its
// output has been quiet for a while, a line of new output matches, or it is
// in a state. It sleeps on the pane's change notifications; it does not poll.
// A condition that can no longer come true (the program ended, the agent
// waited on is gone) ends the wait at once with an error saying why.
func init() {
	register(&Command{Name: "wait", Run: func(ctx context.Context, s *Server, raw json.RawMessage) (any, error) {
		var p proto.WaitParams
		if err := decodeParams("wait", raw, &p); err != nil {
			return nil, err
		}
		re, err := checkWaitParams(p)
		if err != nil {
			return nil, err
		}
		start := time.Now()
		e, err := s.lookup(p.Pane)
		if err != nil {
			if held := s.closedWaitHolds(p); held != "" {
				return proto.WaitResult{Pane: p.Pane, Held: held}, nil
			}
			return nil, err
		}
		timeout, bounded := waitTimeout(p)
		if bounded {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, timeout)
			defer cancel()
		}
		w := &waiter{s: s, e: e, p: p, idle: time.Duration(p.IdleMS) * time.Millisecond}
		if re != nil {
			w.lines = newLineMatcher(e.p.Term(), re, p.Screen)
			defer w.lines.close()
		}
		if agentOnly[p.State] && !p.ForAgent {
			if a, _ := w.agent(); a == nil && !s.startsAgent(e) {
				var runs string
				s.withFresh(func() { runs = s.runningLocked(e) }, p.Pane)
				return nil, errorf(proto.CodeFailed, "wait: pane %d runs no coding agent (it runs %s), so it will never be %s: working and waiting are an agent's states. "+
					"Wait for its output with --idle DUR or --match RE, or add --for-agent to wait for an agent to start in it", p.Pane, runs, p.State)
			}
		}
		for {
			ch := e.p.Changed()
			ach := s.agentChanges(e) // a melmux agent's state changes without output
			var exitCh <-chan struct{}
			if !isClosed(e.exitDone) {
				exitCh = e.exitDone // the exit handled: the pane stays or has closed
			}
			held, line, wake, never := w.check()
			if held != "" {
				return proto.WaitResult{Pane: p.Pane, Held: held, Line: line, WaitedMS: time.Since(start).Milliseconds(), Evidence: w.evidence, Question: w.question}, nil
			}
			if never != "" {
				return nil, errorf(proto.CodeFailed, "wait: pane %d will never %s: %s", p.Pane, describeWait(p), never)
			}
			if gone := s.goneWhy(p.Pane); gone != "" {
				if held := s.closedWaitHolds(p); held != "" {
					return proto.WaitResult{Pane: p.Pane, Held: held, WaitedMS: time.Since(start).Milliseconds()}, nil
				}
				return nil, errorf(proto.CodeFailed, "wait: pane %d is gone while waiting: %s", p.Pane, gone)
			}
			var timer <-chan time.Time
			var t *time.Timer
			if wake > 0 {
				t = time.NewTimer(wake)
				timer = t.C
			}
			stop := func() {
				if t != nil {
					t.Stop()
				}
			}
			select {
			case <-ctx.Done():
				stop()
				if ctx.Err() == context.DeadlineExceeded {
					how := fmt.Sprintf("after %s", timeout)
					if p.TimeoutMS == 0 {
						how = fmt.Sprintf("after %s (the default; give --timeout DUR, or --timeout 0 to wait without limit)", timeout)
					}
					return nil, errorf(proto.CodeTimeout, "wait: timed out %s waiting for pane %d to %s", how, p.Pane, describeWait(p))
				}
				return nil, errorf(proto.CodeFailed, "wait: cancelled")
			case <-s.done:
				stop()
				return nil, errorf(proto.CodeFailed, "wait: the session ended")
			case <-ch:
				stop()
			case <-ach:
				stop()
			case <-exitCh:
				stop()
			case <-timer:
			}
		}
	}})
}

// waitTimeout is how long a wait may take: timeout_ms, else
// proto.DefaultWaitTimeout; not bounded with no_timeout.
func waitTimeout(p proto.WaitParams) (time.Duration, bool) {
	if p.NoTimeout {
		return 0, false
	}
	if p.TimeoutMS > 0 {
		return time.Duration(p.TimeoutMS) * time.Millisecond, true
	}
	return proto.DefaultWaitTimeout, true
}

// checkWaitParams checks a wait request and compiles its pattern.
func checkWaitParams(p proto.WaitParams) (*regexp.Regexp, error) {
	if err := paneParam("wait", p.Pane); err != nil {
		return nil, err
	}
	n := 0
	for _, set := range []bool{p.Exit, p.IdleMS > 0, p.Match != "", p.State != ""} {
		if set {
			n++
		}
	}
	if n != 1 {
		return nil, errorf(proto.CodeBadParams, "wait: give exactly one condition: exit, idle_ms (> 0), match or state")
	}
	if p.IdleMS < 0 || p.TimeoutMS < 0 || p.IdleMS > maxWaitMS || p.TimeoutMS > maxWaitMS {
		return nil, errorf(proto.CodeBadParams, "wait: idle_ms and timeout_ms must be 0-%d (a year)", maxWaitMS)
	}
	if p.NoTimeout && p.TimeoutMS > 0 {
		return nil, errorf(proto.CodeBadParams, "wait: give timeout_ms or no_timeout, not both")
	}
	if p.Screen && p.Match == "" {
		return nil, errorf(proto.CodeBadParams, "wait: screen goes with match: it lets the pattern match what is already shown")
	}
	if p.ForAgent && !agentOnly[p.State] {
		return nil, errorf(proto.CodeBadParams, "wait: for_agent goes with state working or waiting")
	}
	if p.State != "" && !waitStates[p.State] {
		return nil, errorf(proto.CodeBadParams, "wait: state %q is not one of running, exited, busy, idle, working, waiting", p.State)
	}
	if p.Match == "" {
		return nil, nil
	}
	re, err := regexp.Compile(p.Match)
	if err != nil {
		return nil, errorf(proto.CodeBadParams, "wait: match %q is not a valid RE2 pattern: %v", p.Match, err)
	}
	return re, nil
}

// closedWaitHolds answers a wait for the exit of a pane that has already
// closed by itself (remain_on_exit): its program did exit. "" otherwise.
func (s *Server) closedWaitHolds(p proto.WaitParams) string {
	if !p.Exit && p.State != string(agentstate.Exited) {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cp, ok := s.closed.byID[p.Pane]
	if !ok || cp.killed {
		return ""
	}
	return "exited (" + exitWords(cp.status) + "); the pane has closed"
}

// goneWhy says how a pane that was there went ("it was killed"), "" while
// it is there.
func (s *Server) goneWhy(id int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.panes[id]; ok {
		return ""
	}
	if cp, ok := s.closed.byID[id]; ok {
		return cp.how()
	}
	return "it was removed"
}

// startsAgent reports whether a pane was started as a coding agent or a
// melmux agent (one that may not be in its foreground or registered yet):
// a wait for an agent state on it waits for the agent.
func (s *Server) startsAgent(e *paneEntry) bool {
	argv := e.p.Argv()
	if k, _ := s.rules().KindOfProcs([]agentstate.Proc{{Argv: argv}}); k != "" {
		return true
	}
	if len(argv) < 2 || argv[1] != "agent" {
		return false
	}
	// melmux-agent holds the agent verb; `melmux agent` becomes it.
	name := filepath.Base(argv[0])
	return name == "melmux" || name == "melmux-agent" || s.self != "" && (argv[0] == s.self || name == filepath.Base(s.self))
}

// waiter is one wait request's condition and what it has seen so far.
type waiter struct {
	s        *Server
	e        *paneEntry
	p        proto.WaitParams
	idle     time.Duration
	lines    *lineMatcher    // for match
	hadAgent bool            // the pane ran an agent at some look
	evidence string          // what decided the agent state that held
	question *proto.Question // what the agent asks, when the state that held is waiting
}

// agent is the pane's agent now, decided from what was read of the pane's
// emulator before the pane's agent lock was taken (agentFreshRead): a wait
// on a pane busy printing holds up nobody else's use of its agent.
func (w *waiter) agent() (a *proto.AgentInfo, change time.Duration) {
	w.s.agentFreshRead(w.e, func(pre *agentRead) (short bool) {
		a, change, short = w.s.agentFromLocked(w.p.Pane, w.e, pre)
		return short
	})
	return a, change
}

// check tests the condition once. It returns what held (empty if nothing)
// and the matching line; when nothing held, when a time-based condition
// could next become true without any output, or why it never can.
func (w *waiter) check() (held, line string, wake time.Duration, never string) {
	pp := w.e.p
	// An exit counts once the server has handled it, so that a caller sees
	// the pane closed when remain_on_exit closes it.
	exited := isClosed(w.e.exitDone)
	// The status is read before the screen: once the program has ended,
	// everything it wrote is on the screen, so one more look is final.
	st := pp.Status()
	ended := "its program has ended (" + exitWords(st) + ")"
	switch {
	case w.p.Exit:
		if exited {
			return "exited (" + exitWords(st) + ")", "", 0, ""
		}
	case w.idle > 0:
		quiet := time.Since(pp.LastOutput())
		if quiet >= w.idle {
			return fmt.Sprintf("idle for %s", quiet.Round(time.Millisecond)), "", 0, ""
		}
		return "", "", w.idle - quiet, ""
	case w.lines != nil:
		if l, ok := w.lines.look(pp.Term()); ok {
			return "matched " + w.p.Match, l, 0, ""
		}
		if !st.Running {
			return "", "", 0, ended + " and no new line matched"
		}
	case w.p.State != "":
		return w.checkState(st, exited, ended)
	}
	return "", "", 0, ""
}

func (w *waiter) checkState(st pane.Status, exited bool, ended string) (held, line string, wake time.Duration, never string) {
	want := w.p.State
	if want != "running" && want != "busy" {
		a, change := w.agent()
		if a != nil {
			w.hadAgent = true
			switch a.State {
			case want:
				w.evidence, w.question = a.Evidence, a.Question
				return a.Kind + " is " + a.State, "", 0, ""
			case string(agentstate.Exited):
				return "", "", 0, "the " + a.Kind + " agent in it has exited"
			}
			return "", "", change, ""
		}
		if agentOnly[want] {
			switch {
			case !st.Running:
				return "", "", 0, ended
			case w.hadAgent && !w.p.ForAgent && w.backAtStart():
				return "", "", 0, "the coding agent in it has ended; " + filepath.Base(w.e.p.Argv()[0]) + " runs there again"
			}
			return "", "", w.agentLookupDue(), ""
		}
	}
	busy, left := w.e.p.BusyFor(busyWindow)
	switch want {
	case "running":
		if st.Running {
			return "running", "", 0, ""
		}
		return "", "", 0, ended
	case "exited":
		if exited {
			return "exited (" + exitWords(st) + ")", "", 0, ""
		}
	case "busy":
		if busy {
			return "busy", "", 0, ""
		}
		if !st.Running {
			return "", "", 0, ended
		}
	case "idle":
		if !busy {
			return "idle", "", 0, ""
		}
		return "", "", left, ""
	}
	return "", "", 0, ""
}

// backAtStart reports whether the pane's own program is in its foreground
// again (the shell a coding agent ran in, once the agent has ended).
func (w *waiter) backAtStart() bool {
	var fg string
	w.s.agentFresh(w.e, func() { fg = w.s.foregroundLocked(w.e) })
	start := w.e.p.Argv()
	return len(start) > 0 && fg == filepath.Base(start[0])
}

// agentLookupDue is when a wait for an agent to start should look again:
// the foreground program is looked up at most once per agentKindTTL, so
// output since the last lookup (an agent drawing its first screen) is
// checked once the lookup is due again. 0 when nothing happened since.
func (w *waiter) agentLookupDue() time.Duration {
	var at time.Time
	w.e.agentDo(func() { at = w.e.kindAt })
	if !w.e.p.LastOutput().After(at) {
		return 0
	}
	return max(agentKindTTL-time.Since(at), time.Millisecond)
}

func describeWait(w proto.WaitParams) string {
	switch {
	case w.Exit:
		return "exit"
	case w.IdleMS > 0:
		return fmt.Sprintf("be idle for %s", time.Duration(w.IdleMS)*time.Millisecond)
	case w.Match != "" && w.Screen:
		return fmt.Sprintf("show a line matching %q", w.Match)
	case w.Match != "":
		return fmt.Sprintf("print a new line matching %q", w.Match)
	default:
		return "be " + w.State
	}
}

// exitWords says how a process ended: "exit code 1" or "killed by SIGTERM".
func exitWords(st pane.Status) string {
	switch {
	case st.Running:
		return "running"
	case st.Signal != nil:
		return "killed by " + *st.Signal
	case st.ExitCode != nil:
		return fmt.Sprintf("exit code %d", *st.ExitCode)
	}
	return "ended"
}

// lineMatcher finds the lines of a pane's output that match a pattern and
// arrived after the wait began. Text is compared, not positions, so
// scrolling, redraws and full-screen programs do not make old lines look
// new: a matching line is new when its text shows more often — on the
// screen and in the lines scrolled off since the start — than it did on the
// screen at the start. (A line rewritten in place and printed again later
// with the same text is therefore not seen; a pattern with something unique
// in it, or --idle, serves then.)
type lineMatcher struct {
	re   *regexp.Regexp
	old  map[string]int // matching lines on the screen at the start, by text
	stop func()         // ends the tap on the pane's history

	mu       sync.Mutex     // guards old, scrolled and order: the tap runs on the pane's feeding goroutine
	scrolled map[string]int // matching lines saved to history since the start
	order    []string       // the same lines, oldest first, each text once
}

// newLineMatcher starts matching at the pane's current screen; with screen,
// what it shows already counts as new. Lines saved to history are seen as
// they are saved (Terminal.TapScrolled), so a burst that scrolls more lines
// than the history holds between two looks loses none of them. The caller
// must call close when the wait ends.
func newLineMatcher(t *term.Terminal, re *regexp.Regexp, screen bool) *lineMatcher {
	m := &lineMatcher{re: re, old: map[string]int{}, scrolled: map[string]int{}}
	var start []string
	start, m.stop = t.TapScrolled(func(line string, saved bool) {
		if !re.MatchString(line) {
			return
		}
		m.mu.Lock()
		defer m.mu.Unlock()
		if !saved {
			// A grow took the line back onto the screen, where look counts
			// it: it no longer counts as scrolled off, or, having scrolled
			// off before the start, it is an old line.
			if m.scrolled[line] > 0 {
				m.scrolled[line]--
			} else {
				m.old[line]++
			}
			return
		}
		if m.scrolled[line] == 0 {
			m.order = append(m.order, line)
		}
		m.scrolled[line]++
	})
	if !screen {
		locked(&m.mu, func() { m.old = m.count(start, m.old) })
	}
	return m
}

func (m *lineMatcher) close() { m.stop() }

func (m *lineMatcher) count(lines []string, into map[string]int) map[string]int {
	for _, l := range lines {
		if m.re.MatchString(l) {
			into[l]++
		}
	}
	return into
}

// look returns the oldest new matching line, if there is one.
func (m *lineMatcher) look(t *term.Terminal) (string, bool) {
	screen := t.TextSince(math.MaxUint64).Lines
	now := m.count(screen, map[string]int{})
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, l := range append(m.order, screen...) {
		if m.re.MatchString(l) && m.scrolled[l]+now[l] > m.old[l] {
			return l, true
		}
	}
	return "", false
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
