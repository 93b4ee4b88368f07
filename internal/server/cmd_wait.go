package server

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"time"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/pane"
)

// waitStates are the values wait --state accepts. For a pane running a coding
// agent, idle, working, waiting and exited are the agent's states; running and
// busy are the process's and its output's.
var waitStates = map[string]bool{"running": true, "exited": true, "busy": true, "idle": true, "working": true, "waiting": true}

// maxWaitMS bounds every wait a request asks for: a year.
const maxWaitMS = int64(365 * 24 * time.Hour / time.Millisecond)

// wait blocks until a condition holds on a pane: its process exited, its
// output has been quiet for a while, a screen line matches, or it is in a
// state. It sleeps on the pane's change notifications; it does not poll.
func init() {
	register(&Command{Name: "wait", Run: func(ctx context.Context, s *Server, raw json.RawMessage) (any, error) {
		var p proto.WaitParams
		if err := decodeParams("wait", raw, &p); err != nil {
			return nil, err
		}
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
		var re *regexp.Regexp
		if p.Match != "" {
			var err error
			if re, err = regexp.Compile(p.Match); err != nil {
				return nil, errorf(proto.CodeBadParams, "wait: match %q is not a valid RE2 pattern: %v", p.Match, err)
			}
		}
		if p.State != "" && !waitStates[p.State] {
			return nil, errorf(proto.CodeBadParams, "wait: state %q is not one of running, exited, busy, idle, working, waiting", p.State)
		}
		e, err := s.lookup(p.Pane)
		if err != nil {
			return nil, err
		}
		start := time.Now()
		if p.TimeoutMS > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, time.Duration(p.TimeoutMS)*time.Millisecond)
			defer cancel()
		}
		idle := time.Duration(p.IdleMS) * time.Millisecond
		// A line that matches may scroll off the screen between two looks:
		// the lines saved to history since the last look are searched too.
		seen := e.p.Term().HistoryTotal()
		for {
			if re != nil {
				if line, ok := scrolledMatch(e.p, re, &seen); ok {
					return proto.WaitResult{Pane: p.Pane, Held: "matched " + p.Match, Line: line, WaitedMS: time.Since(start).Milliseconds()}, nil
				}
			}
			ch := e.p.Changed()
			ach := s.agentChanges(e) // a melmux agent's state changes without output
			agent := func() (*proto.AgentInfo, time.Duration) {
				s.mu.Lock()
				defer s.mu.Unlock()
				return e.agentLocked(p.Pane)
			}
			held, line, wake := checkWait(e.p, p, re, idle, agent)
			if held != "" {
				return proto.WaitResult{Pane: p.Pane, Held: held, Line: line, WaitedMS: time.Since(start).Milliseconds()}, nil
			}
			if _, err := s.lookup(p.Pane); err != nil {
				return nil, errorf(proto.CodeFailed, "wait: pane %d was killed while waiting", p.Pane)
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
				if p.TimeoutMS > 0 && ctx.Err() == context.DeadlineExceeded {
					return nil, errorf(proto.CodeTimeout, "wait: timed out after %s waiting for pane %d to %s", time.Duration(p.TimeoutMS)*time.Millisecond, p.Pane, describeWait(p))
				}
				return nil, errorf(proto.CodeFailed, "wait: cancelled")
			case <-s.done:
				stop()
				return nil, errorf(proto.CodeFailed, "wait: the session ended")
			case <-ch:
				stop()
			case <-ach:
				stop()
			case <-timer:
			}
		}
	}})
}

// checkWait tests the condition once. It returns what held (empty if
// nothing), the matching line, and when a time-based condition could next
// become true without any output.
func checkWait(p *pane.Pane, w proto.WaitParams, re *regexp.Regexp, idle time.Duration,
	agent func() (*proto.AgentInfo, time.Duration)) (held, line string, wake time.Duration) {
	st := p.Status()
	quiet := time.Since(p.LastOutput())
	switch {
	case w.Exit:
		if !st.Running {
			return "exited (" + exitWords(st) + ")", "", 0
		}
	case idle > 0:
		if quiet >= idle {
			return fmt.Sprintf("idle for %s", quiet.Round(time.Millisecond)), "", 0
		}
		return "", "", idle - quiet
	case re != nil:
		for _, l := range p.Term().Lines() {
			if re.MatchString(l) {
				return "matched " + w.Match, l, 0
			}
		}
	case w.State != "":
		if w.State != "running" && w.State != "busy" {
			if a, change := agent(); a != nil {
				if a.State == w.State {
					return a.Kind + " is " + a.State, "", 0
				}
				return "", "", change
			}
		}
		busy, left := p.BusyFor(busyWindow)
		switch w.State {
		case "running":
			if st.Running {
				return "running", "", 0
			}
		case "exited":
			if !st.Running {
				return "exited (" + exitWords(st) + ")", "", 0
			}
		case "busy":
			if busy {
				return "busy", "", 0
			}
		case "idle":
			if !busy {
				return "idle", "", 0
			}
			return "", "", left
		}
	}
	return "", "", 0
}

func describeWait(w proto.WaitParams) string {
	switch {
	case w.Exit:
		return "exit"
	case w.IdleMS > 0:
		return fmt.Sprintf("be idle for %s", time.Duration(w.IdleMS)*time.Millisecond)
	case w.Match != "":
		return fmt.Sprintf("show a line matching %q", w.Match)
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

// scrolledMatch searches the history lines saved since *seen (as many as the
// history still holds) and moves *seen on.
func scrolledMatch(p *pane.Pane, re *regexp.Regexp, seen *uint64) (string, bool) {
	t := p.Term()
	total := t.HistoryTotal()
	fresh := total - *seen
	*seen = total
	if fresh == 0 {
		return "", false
	}
	for _, l := range t.History(int(min(fresh, uint64(t.HistoryLen())))) {
		if re.MatchString(l) {
			return l, true
		}
	}
	return "", false
}
