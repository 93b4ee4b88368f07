package server

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	mxclient "github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/ui"
)

// A pane's agent is the agents part's (paneAgent, under the pane's own
// agent lock): while Server.mu is held by a command or a frame, an agent
// CLI's hooks report (notify), read_agent reads the agent and its turn,
// and the pane's watcher decides a change the agent shows on its terminal
// and tells it (notify_command). Each of them waited on Server.mu before.
func TestAPaneAgentGoesOnWhileServerMuIsHeld(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	told, asked := filepath.Join(dir, "told"), filepath.Join(dir, "ask")
	notifying := awaitNotifyCommands(t)
	s, c := startServer(t, func(cfg *Config) {
		cfg.Agents = AgentsConfig{NotifyCommand: `echo "$MELMUX_PANE $MELMUX_AGENT_STATE" >> ` + told}
	})
	notifying(s)
	viewer := &client{tty: newConnTty(nil, &sync.Mutex{}, 100, 30), quit: make(chan string, 1)}
	attachViewer(t, s, viewer)
	// Pane 1 runs an agent known by its hooks; pane 2 one that reports
	// its state on its terminal (OSC 7501, again and again: a report from
	// before the pane's program was looked up is not taken for its own),
	// asking a question once the test says so, which settles (its watcher
	// decides it waiting) 3 s later, nothing showing it on the screen.
	newPane(t, c, "sleep", "600")
	openPane(t, c, "sh", "-c", `while [ ! -e `+asked+` ]; do printf '\033]7501;state=working:app=claude-code\033\\'; sleep 0.1; done
printf '\033]7501;state=blocked:app=claude-code:msg=approve?\033\\'
exec sleep 600`)
	lookElsewhere(t, s, c) // a pane nobody looks at is told about
	ctx := context.Background()
	if !waitFor(func() bool {
		a := listAgent(t, c, 2)
		return a != nil && a.State == "working"
	}) {
		t.Fatal("pane 2 was never seen working")
	}

	release := holdServerMu(t, s)
	var r proto.NotifyResult
	within(t, 10*time.Second, "notify", func() error {
		return c.Call(ctx, "notify", proto.NotifyParams{Pane: 1, State: "working", Kind: "claude", Event: "UserPromptSubmit"}, &r)
	})
	if r.Agent == nil || r.Agent.Kind != "claude" || r.Agent.State != "working" {
		t.Fatalf("notify: got %+v, want claude working", r.Agent)
	}
	var read proto.ReadAgentResult
	within(t, 10*time.Second, "read_agent", func() error {
		return c.Call(ctx, "read_agent", proto.ReadAgentParams{Pane: 1, WaitMS: -1}, &read)
	})
	if read.Agent == nil || read.Agent.State != "working" || read.Status != "running" {
		t.Fatalf("read_agent: got %+v (agent %+v), want claude working", read, read.Agent)
	}
	within(t, 10*time.Second, "notify idle", func() error {
		return c.Call(ctx, "notify", proto.NotifyParams{Pane: 1, State: "idle", Kind: "claude", Event: "Stop", Reply: "all done"}, &r)
	})
	if r.Agent == nil || r.Agent.State != "idle" {
		t.Fatalf("notify idle: got %+v, want idle", r.Agent)
	}
	// Pane 2's question, which only its watcher sees: decided and told
	// with the pane table still held.
	if err := os.WriteFile(asked, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	within(t, 15*time.Second, "the question's notification", func() error {
		for {
			b, _ := os.ReadFile(told)
			if strings.Contains(string(b), "2 waiting") {
				return nil
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
	within(t, 10*time.Second, "read_agent of the question", func() error {
		return c.Call(ctx, "read_agent", proto.ReadAgentParams{Pane: 2, WaitMS: -1}, &read)
	})
	if read.Agent == nil || read.Agent.State != "waiting" || read.Question == nil {
		t.Fatalf("read_agent of pane 2: got %+v (agent %+v), want waiting with its question", read, read.Agent)
	}
	release()

	// What was decided while the table was held is what list_panes shows.
	if a := listAgent(t, c, 1); a == nil || a.State != "idle" {
		t.Fatalf("list_panes, pane 1: %+v, want idle", a)
	}
	if a := listAgent(t, c, 2); a == nil || a.State != "waiting" {
		t.Fatalf("list_panes, pane 2: %+v, want waiting", a)
	}
}

// openPane opens a pane beside the others, running argv.
func openPane(t *testing.T, c *mxclient.Client, argv ...string) {
	t.Helper()
	if err := c.Call(context.Background(), "open_pane", proto.OpenPaneParams{Argv: argv, NoWait: true}, nil); err != nil {
		t.Fatal(err)
	}
}

// Whether a person looks at a pane is decided without Server.mu, from the
// focus the last section under it published: each way the focus moves
// publishes it as its section ends.
func TestTheFocusIsPublishedWhereItMoves(t *testing.T) {
	t.Parallel()
	s, c := startServer(t)
	newPane(t, c, "sleep", "600")
	if err := c.Call(context.Background(), "open_pane", proto.OpenPaneParams{Layout: "right", Argv: []string{"sleep", "600"}, NoWait: true}, nil); err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		how string
		do  func() error
	}{
		{"a key's next-pane", func() error { _, err := s.tmuxCommand(nil, ui.Command{Name: "next-pane"}); return err }},
		{"a new pane in a tab of its own", func() error {
			return c.Call(context.Background(), "open_pane", proto.OpenPaneParams{Layout: "tab", Argv: []string{"sleep", "600"}, Focus: true, NoWait: true}, nil)
		}},
		{"a key's next-tab", func() error { return s.uiCommand(nil, ui.Command{Name: "next-tab"}) }},
	} {
		var before int
		s.withLock(func() { before = s.layout.Focused() })
		if err := step.do(); err != nil {
			t.Fatalf("%s: %v", step.how, err)
		}
		s.mu.Lock() // by hand: withLock would publish
		after := s.layout.Focused()
		s.mu.Unlock()
		if after == before {
			t.Fatalf("%s did not move the focus (pane %d)", step.how, after)
		}
		if got := s.focus.Load(); got != int64(after) {
			t.Fatalf("after %s: published focus %d, the layout's %d", step.how, got, after)
		}
	}
}

// A pane's watcher reads the pane's emulator holding no lock, as a frame
// does: an emulator busy parsing (held here by a tap on its history, as a
// long parse holds it) leaves the pane's agent lock free, so the pane
// table's sections that take it (list_panes, frames) do not wait on the
// emulator through it.
func TestAWatcherReadsThePaneWithoutItsAgentLock(t *testing.T) {
	t.Parallel()
	s, c := startServer(t)
	e, free := busyEmulator(t, s, c, func() {
		// An agent known by its hooks, so that its watcher reads the screen.
		if err := c.Call(context.Background(), "notify", proto.NotifyParams{Pane: 1, State: "working", Kind: "claude"}, nil); err != nil {
			t.Fatal(err)
		}
	})
	// Wake the watcher (as a report would) and wait until it waits on the
	// emulator.
	s.mels.changed(1)
	awaitStacks(t, "the watcher began to read the pane", blockedReading)
	if !takes(func() { e.agentDo(func() {}) }, 10*time.Second) {
		t.Fatal("the pane's agent lock was held while its watcher waited for the emulator")
	}
	free()
}

// awaitStacks waits, up to 30 s, until the stacks of all goroutines show
// what happened (ready), and fails the test saying what did not.
func awaitStacks(t *testing.T, what string, ready func(stacks string) bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		buf := make([]byte, 1<<20)
		if ready(string(buf[:runtime.Stack(buf, true)])) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not within 30s: %s", what)
		}
	}
}

// takes says take returned within limit; it runs on a goroutine of its
// own, left blocked when it did not.
func takes(take func(), limit time.Duration) bool {
	took := make(chan struct{})
	go func() {
		take()
		close(took)
	}()
	select {
	case <-took:
		return true
	case <-time.After(limit):
		return false
	}
}

// blockedReading says a pane's watcher is among stacks reading its
// emulator.
func blockedReading(stacks string) bool {
	for _, g := range strings.Split(stacks, "\n\n") {
		if strings.Contains(g, "(*Server).watchAgent(") && strings.Contains(g, "(*agentRead).read(") {
			return true
		}
	}
	return false
}

// The waits on a pane's agent read the pane's emulator before they take
// its agent lock, as its watcher does: wait --state, read_agent (its look
// at the agent and its wait for a turn), and the waits for an agent CLI to
// be ready (send_agent, open_pane). While the emulator is busy parsing
// (held here by a tap on its history), a wait on it leaves the pane's
// agent lock free for whoever needs it: the watcher's look, the lookups
// of what the pane runs, and a frame asking under Server.mu what it must
// read, which would otherwise hold up every command behind the emulator.
func TestAWaitReadsThePaneWithoutItsAgentLock(t *testing.T) {
	t.Parallel()
	for _, w := range []struct {
		name string
		in   string // a frame of the wait's goroutine
		wait func(ctx context.Context, s *Server, c *mxclient.Client, e *paneEntry)
	}{
		{"wait --state", "(*waiter).agent(", func(ctx context.Context, s *Server, c *mxclient.Client, e *paneEntry) {
			_ = c.Call(ctx, "wait", proto.WaitParams{Pane: 1, State: "waiting", TimeoutMS: 1}, nil)
		}},
		{"read_agent", "cmd_read_agent.go:", func(ctx context.Context, s *Server, c *mxclient.Client, e *paneEntry) {
			_ = c.Call(ctx, "read_agent", proto.ReadAgentParams{Pane: 1, WaitMS: -1}, nil)
		}},
		{"read_agent's wait for a turn", "(*Server).waitCLITurn(", func(ctx context.Context, s *Server, c *mxclient.Client, e *paneEntry) {
			_, _ = s.waitCLITurn(ctx, 1, e, 0, 0)
		}},
		{"the wait for an agent to be ready", "(*Server).waitAgentReady(", func(ctx context.Context, s *Server, c *mxclient.Client, e *paneEntry) {
			s.waitAgentReady(ctx, 1, e, time.Millisecond, false)
		}},
	} {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			s, c := startServer(t)
			// An agent CLI known by its processes, so that what the pane
			// runs is looked up without its screen, and working by its
			// hooks, so that no wait is over at its first look.
			claude := standIn(t, "#!/bin/sh\necho ready; read x; seq 200; sleep 600\n")
			e, free := busyPane(t, s, c, []string{claude}, func() {
				notify(t, c, proto.NotifyParams{Pane: 1, State: "working", Kind: "claude"})
			})
			s.mels.changed(1) // the last decision no longer holds: the wait reads the screen
			done := make(chan struct{})
			go func() {
				defer close(done)
				w.wait(context.Background(), s, c, e)
			}()
			awaitStacks(t, "the wait began to read the pane", func(stacks string) bool { return waitsOnEmulator(stacks, w.in) })
			if !takes(func() { e.agentDo(func() {}) }, 10*time.Second) {
				t.Fatal("the pane's agent lock was held while a wait on it waited for its emulator")
			}
			free()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("the wait did not end once the emulator was free")
			}
		})
	}
}

// waitsOnEmulator says a goroutine among stacks with frame in waits for a
// pane's emulator's lock.
func waitsOnEmulator(stacks, in string) bool {
	for _, g := range strings.Split(stacks, "\n\n") {
		if strings.Contains(g, in) && strings.Contains(g, "term.(*Terminal).") && strings.Contains(g, "SemacquireMutex") {
			return true
		}
	}
	return false
}

// The commands that decide a pane's agent read the pane's emulator before
// they take Server.mu and its agent lock, as a frame does: while pane 1's
// emulator is busy parsing (held here by a tap on its history) and its
// last decision no longer holds, list_panes, agents, notify, send_keys and
// answer wait on it holding neither, so every other command of the
// session, and whoever needs the pane's agent, goes on. Once it is free
// they answer, with the pane's agent decided.
func TestTheCommandsReadThePaneWithoutTheLocks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, cmd := range []struct {
		name string
		in   string // a frame of the command's goroutine
		// call makes the call and checks what it answered.
		call func(c *mxclient.Client) error
	}{
		{"list_panes", "cmd_list_panes.go:", func(c *mxclient.Client) error {
			var out []proto.PaneInfo
			if err := c.Call(ctx, "list_panes", proto.ListPanesParams{}, &out); err != nil {
				return err
			}
			if len(out) != 1 {
				return fmt.Errorf("%d rows, want pane 1's", len(out))
			}
			return decidedClaude(out[0].Agent)
		}},
		{"agents", "cmd_agents.go:", func(c *mxclient.Client) error {
			var out []proto.AgentRow
			if err := c.Call(ctx, "agents", proto.AgentsParams{}, &out); err != nil {
				return err
			}
			if len(out) != 1 {
				return fmt.Errorf("%d rows, want pane 1's", len(out))
			}
			return decidedClaude(&out[0].Agent)
		}},
		{"notify", "cmd_notify.go:", func(c *mxclient.Client) error {
			var out proto.NotifyResult
			if err := c.Call(ctx, "notify", proto.NotifyParams{Pane: 1, State: "working", Kind: "claude"}, &out); err != nil {
				return err
			}
			return decidedClaude(out.Agent)
		}},
		{"send_keys", "cmd_send_keys.go:", func(c *mxclient.Client) error {
			return c.Call(ctx, "send_keys", proto.SendKeysParams{Pane: 1, Text: "x", Literal: true, NoWait: true}, nil)
		}},
		{"explain", "cmd_explain.go:", func(c *mxclient.Client) error {
			var out proto.ExplainResult
			if err := c.Call(ctx, "explain", proto.PaneRef{Pane: 1}, &out); err != nil {
				return err
			}
			if out.Kind != "claude" || out.State == "" || len(out.Signals) == 0 {
				return fmt.Errorf("explain of pane 1: %+v, want claude's, decided, with its signals", out)
			}
			return nil
		}},
		{"answer", "cmd_answer.go:", func(c *mxclient.Client) error {
			err := c.Call(ctx, "answer", proto.AnswerParams{Pane: 1, Choice: "1"}, nil)
			if err == nil || !strings.Contains(err.Error(), "asks nothing now") {
				return fmt.Errorf("answer of a pane that asks nothing: %v", err)
			}
			return nil
		}},
	} {
		t.Run(cmd.name, func(t *testing.T) {
			t.Parallel()
			s, c := startServer(t)
			// An agent CLI known by its processes and working by its hooks.
			claude := standIn(t, "#!/bin/sh\necho ready; read x; seq 200; sleep 600\n")
			e, free := busyPane(t, s, c, []string{claude}, func() {
				notify(t, c, proto.NotifyParams{Pane: 1, State: "working", Kind: "claude"})
			})
			s.mels.changed(1) // the last decision no longer holds: the command reads the screen
			done := make(chan error, 1)
			go func() { done <- cmd.call(c) }()
			awaitStacks(t, cmd.name+" began to read the pane", func(stacks string) bool { return waitsOnEmulator(stacks, cmd.in) })
			// Each lock is taken by a goroutine of its own: the test says
			// of each whether it was held.
			locks := []struct {
				name string
				take func()
				took chan struct{}
			}{
				{"Server.mu", func() { s.withLock(func() {}) }, make(chan struct{})},
				{"the pane's agent lock", func() { e.agentDo(func() {}) }, make(chan struct{})},
			}
			for _, lock := range locks {
				go func() {
					lock.take()
					close(lock.took)
				}()
			}
			deadline := time.Now().Add(10 * time.Second)
			for _, lock := range locks {
				select {
				case <-lock.took:
				case <-time.After(time.Until(deadline)):
					t.Errorf("%s was held while %s waited for the pane's emulator", lock.name, cmd.name)
				}
			}
			free()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("%s: %v", cmd.name, err)
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("%s did not end once the emulator was free", cmd.name)
			}
		})
	}
}

// decidedClaude says what is wrong with a, which should be pane 1's
// claude, decided.
func decidedClaude(a *proto.AgentInfo) error {
	if a == nil || a.Kind != "claude" || a.State == "" {
		return fmt.Errorf("pane 1's agent %+v, want claude's, decided", a)
	}
	return nil
}
