package server

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/testexec"
	"github.com/melmux/melmux/pane/term"
)

// wait --match sees only output that arrives after it starts: not the
// command line just typed, not old output, even when that scrolls off; a
// line printed again with the same text is new.
func TestLineMatcherSeesOnlyNewOutput(t *testing.T) {
	tm := term.New(40, 4, term.Options{})
	fmt.Fprint(tm, "FINISHED earlier\r\n$ sleep 3; echo FINISHED\r\n")
	m := newLineMatcher(tm, regexp.MustCompile("FINISHED"), false)
	if l, ok := m.look(tm); ok {
		t.Fatalf("matched %q, which was on the screen before the wait", l)
	}
	// Output scrolls the old lines into history: they are still old.
	fmt.Fprint(tm, "a\r\nb\r\nc\r\nd\r\n")
	if l, ok := m.look(tm); ok {
		t.Fatalf("matched %q, an old line that scrolled off", l)
	}
	fmt.Fprint(tm, "FINISHED\r\n")
	if l, ok := m.look(tm); !ok || l != "FINISHED" {
		t.Fatalf("the new line: got %q, %v", l, ok)
	}

	// The same text as an old line, printed anew, is new.
	tm = term.New(40, 10, term.Options{})
	fmt.Fprint(tm, "ok\r\n$ ")
	m = newLineMatcher(tm, regexp.MustCompile("^ok$"), false)
	fmt.Fprint(tm, "true && echo ok\r\n")
	if l, ok := m.look(tm); ok {
		t.Fatalf("matched %q before the second ok", l)
	}
	fmt.Fprint(tm, "ok\r\n")
	if _, ok := m.look(tm); !ok {
		t.Fatal("a second ok printed after the wait began was not seen")
	}

	// With screen, what is shown already counts.
	tm = term.New(40, 4, term.Options{})
	fmt.Fprint(tm, "$ echo FINISHED\r\nFINISHED\r\n")
	if l, ok := newLineMatcher(tm, regexp.MustCompile("^FINISHED$"), true).look(tm); !ok || l != "FINISHED" {
		t.Fatalf("with screen: got %q, %v", l, ok)
	}
}

// A matching line that a burst pushes through the whole history between two
// looks is still seen (the history keeps 50 lines; 300 follow the line in
// one write), and one printed after the wait ends is not tapped any more.
func TestLineMatcherSeesLinesABurstScrolledAway(t *testing.T) {
	tm := term.New(40, 4, term.Options{Scrollback: 50})
	m := newLineMatcher(tm, regexp.MustCompile("^MARK41$"), false)
	var burst strings.Builder
	for i := range 300 {
		fmt.Fprintf(&burst, "%d\r\n", i)
	}
	fmt.Fprint(tm, burst.String()+"MARK41\r\n"+burst.String())
	if l, ok := m.look(tm); !ok || l != "MARK41" {
		t.Fatalf("the line that scrolled through the whole history: got %q, %v", l, ok)
	}
	m.close()
	m.mu.Lock()
	before := len(m.order)
	m.mu.Unlock()
	fmt.Fprint(tm, "MARK41\r\n"+burst.String())
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.order) != before || m.scrolled["MARK41"] != 1 {
		t.Fatalf("a closed matcher still taps the history: %d lines, MARK41 seen %d times", len(m.order), m.scrolled["MARK41"])
	}
}

// Waiting for an agent's state on a pane that runs none fails at once and
// says what runs there, unless asked to wait for an agent to start.
func TestWaitForAnAgentStateNeedsAnAgent(t *testing.T) {
	t.Parallel()
	_, c := startServer(t)
	ctx := context.Background()
	if err := c.Call(ctx, "new", proto.NewParams{Command: []string{"sleep", "600"}}, nil); err != nil {
		t.Fatal(err)
	}
	for _, state := range []string{"waiting", "working"} {
		err := c.Call(ctx, "wait", proto.WaitParams{Pane: 1, State: state, NoTimeout: true}, nil)
		if err == nil || !strings.Contains(err.Error(), "pane 1 runs no coding agent (it runs sleep 600), so it will never be "+state) ||
			!strings.Contains(err.Error(), "--for-agent") {
			t.Fatalf("wait --state %s on a pane with no agent: %v", state, err)
		}
	}
	// With for_agent the wait goes on (here until its timeout).
	err := c.Call(ctx, "wait", proto.WaitParams{Pane: 1, State: "waiting", ForAgent: true, TimeoutMS: 300}, nil)
	var pe *proto.Error
	if !errors.As(err, &pe) || pe.Code != proto.CodeTimeout {
		t.Fatalf("wait --for-agent should wait until its timeout: %v", err)
	}
}

// A pane started as melmux-agent's agent verb (what `melmux agent` becomes)
// runs a melmux agent that has not registered yet: a wait for its state
// waits for it.
func TestWaitForAStateOfMelmuxAgent(t *testing.T) {
	t.Parallel()
	_, c := startServer(t)
	ctx := context.Background()
	prog := filepath.Join(t.TempDir(), "melmux-agent")
	testexec.Write(t, prog, []byte("#!/bin/sh\nexec sleep 600\n"))
	if err := c.Call(ctx, "new", proto.NewParams{Command: []string{prog, "agent", "--task", "x"}}, nil); err != nil {
		t.Fatal(err)
	}
	err := c.Call(ctx, "wait", proto.WaitParams{Pane: 1, State: "waiting", TimeoutMS: 300}, nil)
	var pe *proto.Error
	if !errors.As(err, &pe) || pe.Code != proto.CodeTimeout {
		t.Fatalf("wait --state waiting on melmux-agent agent should wait until its timeout: %v", err)
	}
}

// A wait that can no longer hold ends at once with the reason; a wait for
// the exit of a pane that already closed by itself holds.
func TestWaitThatCanNeverHold(t *testing.T) {
	t.Parallel()
	_, c := startServer(t)
	ctx := context.Background()
	if err := c.Call(ctx, "new", proto.NewParams{Command: []string{"sh", "-c", "echo done; exit 3"}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, "wait", proto.WaitParams{Pane: 1, Exit: true, TimeoutMS: 10000}, nil); err != nil {
		t.Fatal(err)
	}
	for _, w := range []proto.WaitParams{
		{Pane: 1, State: "busy", NoTimeout: true},
		{Pane: 1, State: "running", NoTimeout: true},
		{Pane: 1, Match: "never printed", NoTimeout: true},
	} {
		err := c.Call(ctx, "wait", w, nil)
		if err == nil || !strings.Contains(err.Error(), "its program has ended (exit code 3)") {
			t.Errorf("wait %+v on an exited pane: %v", w, err)
		}
	}
}

func TestWaitRefusesBadParams(t *testing.T) {
	t.Parallel()
	_, c := startServer(t)
	ctx := context.Background()
	if err := c.Call(ctx, "new", proto.NewParams{Command: []string{"sleep", "600"}}, nil); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		w    proto.WaitParams
		want string
	}{
		{proto.WaitParams{Pane: 1, Exit: true, TimeoutMS: 5, NoTimeout: true}, "timeout_ms or no_timeout, not both"},
		{proto.WaitParams{Pane: 1, Exit: true, Screen: true}, "screen goes with match"},
		{proto.WaitParams{Pane: 1, State: "idle", ForAgent: true}, "for_agent goes with state working or waiting"},
	} {
		if err := c.Call(ctx, "wait", tc.w, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("wait %+v: %v, want %q", tc.w, err, tc.want)
		}
	}
}

// Every wait is bounded unless it asks for no bound.
func TestWaitTimeout(t *testing.T) {
	for _, tc := range []struct {
		p       proto.WaitParams
		want    time.Duration
		bounded bool
	}{
		{proto.WaitParams{}, proto.DefaultWaitTimeout, true},
		{proto.WaitParams{TimeoutMS: 1500}, 1500 * time.Millisecond, true},
		{proto.WaitParams{NoTimeout: true}, 0, false},
	} {
		if got, bounded := waitTimeout(tc.p); got != tc.want || bounded != tc.bounded {
			t.Errorf("waitTimeout(%+v) = %s, %v; want %s, %v", tc.p, got, bounded, tc.want, tc.bounded)
		}
	}
}

// A line a grow brings back from history onto the screen is not new output:
// neither one that was on the screen when the wait began (a shrink pushed it
// off, a grow brings it back, as a zoom or a split and its undo do) nor one
// that had scrolled off before.
func TestLineMatcherIgnoresLinesAGrowBringsBack(t *testing.T) {
	tm := term.New(40, 6, term.Options{})
	fmt.Fprint(tm, "DONE before\r\n1\r\n2\r\nDONE shown\r\n3\r\n4\r\n5\r\n$ ")
	m := newLineMatcher(tm, regexp.MustCompile("^DONE"), false)
	defer m.close()
	for range 2 {
		tm.Resize(40, 2) // DONE shown scrolls off
		if l, ok := m.look(tm); ok {
			t.Fatalf("matched %q after a shrink", l)
		}
		tm.Resize(40, 8) // both come back
		if l, ok := m.look(tm); ok {
			t.Fatalf("matched %q, which a grow brought back", l)
		}
	}
	fmt.Fprint(tm, "\r\nDONE shown\r\n")
	if l, ok := m.look(tm); !ok || l != "DONE shown" {
		t.Fatalf("the line printed again: got %q, %v", l, ok)
	}
}
