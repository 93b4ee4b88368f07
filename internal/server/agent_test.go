package server

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	mxclient "github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/testexec"
	"github.com/melmux/melmux/pane"
)

func notify(t *testing.T, c *mxclient.Client, p proto.NotifyParams) proto.NotifyResult {
	t.Helper()
	var r proto.NotifyResult
	if err := c.Call(context.Background(), "notify", p, &r); err != nil {
		t.Fatalf("notify %+v: %v", p, err)
	}
	return r
}

func explain(t *testing.T, c *mxclient.Client, pane int) proto.ExplainResult {
	t.Helper()
	var r proto.ExplainResult
	if err := c.Call(context.Background(), "explain", proto.PaneRef{Pane: pane}, &r); err != nil {
		t.Fatalf("explain %d: %v", pane, err)
	}
	return r
}

// A program melmux knows nothing of becomes an agent by reporting through
// its hooks: its reports decide its state, with their evidence in
// list_panes, and wake a wait for the state; input typed after a report
// makes it stale.
func TestNotifyMakesAnAgentAndDecides(t *testing.T) {
	t.Parallel()
	_, c := startServer(t)
	newPane(t, c, "sh", "-c", "read x; echo got $x; exec sleep 600")
	if a := listAgent(t, c, 1); a != nil {
		t.Fatalf("a shell reading a line is no agent: %+v", a)
	}
	waited := make(chan error, 1)
	go func() {
		waited <- c.Call(context.Background(), "wait", proto.WaitParams{Pane: 1, State: "idle", ForAgent: false, TimeoutMS: 10000}, nil)
	}()
	r := notify(t, c, proto.NotifyParams{Pane: 1, State: "working", Event: "UserPromptSubmit"})
	if r.Agent == nil || r.Agent.Kind != KindAgent || r.Agent.State != "working" || !strings.HasPrefix(r.Agent.Evidence, "hook: UserPromptSubmit ") {
		t.Fatalf("after a working report: %+v", r.Agent)
	}
	r = notify(t, c, proto.NotifyParams{Pane: 1, State: "waiting", Event: "Notification (permission_prompt)", Message: "needs\nyour permission", Kind: "claude"})
	if r.Agent.Kind != "claude" || r.Agent.State == "waiting" {
		t.Fatalf("a waiting report is waiting only once the screen settled: %+v", r.Agent)
	}
	var w proto.WaitResult
	if err := c.Call(context.Background(), "wait", proto.WaitParams{Pane: 1, State: "waiting", TimeoutMS: 10000}, &w); err != nil {
		t.Fatal(err)
	}
	if w.Held != "claude is waiting" || !strings.HasPrefix(w.Evidence, `hook: Notification (permission_prompt) "needs your permission" `) {
		t.Fatalf("wait --state waiting: %+v", w)
	}
	notify(t, c, proto.NotifyParams{Pane: 1, State: "idle", Event: "Stop"})
	if err := <-waited; err != nil {
		t.Fatalf("the wait for idle was not woken by the report: %v", err)
	}
	if a := listAgent(t, c, 1); a.State != "idle" || !strings.HasPrefix(a.Evidence, "hook: Stop ") {
		t.Fatalf("list_panes after Stop: %+v", a)
	}
	// Typed into: the report is stale, the screen decides (quiet: idle).
	if err := c.Call(context.Background(), "send_keys", proto.SendKeysParams{Pane: 1, Text: "hello\n"}, nil); err != nil {
		t.Fatal(err)
	}
	waitLine(t, c, 1, "^got hello$")
	x := explain(t, c, 1)
	var hook proto.ExplainSignal
	for _, s := range x.Signals {
		if s.Signal == "hook" {
			hook = s
		}
	}
	if hook.Says != "" || !strings.Contains(hook.Detail, "stale: input was typed") {
		t.Fatalf("the hook after input: %+v", hook)
	}
}

func TestNotifyRefusesBadParams(t *testing.T) {
	t.Parallel()
	_, c := startServer(t)
	newPane(t, c, "sleep", "600")
	for _, tc := range []struct {
		p    proto.NotifyParams
		want string
	}{
		{proto.NotifyParams{State: "idle"}, `notify: parameter "pane" is required`},
		{proto.NotifyParams{Pane: 1, State: "done"}, `notify: state "done" is not one of working, waiting, idle`},
		{proto.NotifyParams{Pane: 1, State: "idle", Kind: "robot"}, `notify: kind "robot" is not a kind of agent (kinds: [aider claude codex gemini])`},
		{proto.NotifyParams{Pane: 1, State: "idle", Message: strings.Repeat("x", 5000)}, "notify: message must be UTF-8 text of at most 4096 bytes (got 5000 bytes)"},
		{proto.NotifyParams{Pane: 9, State: "idle"}, "pane 9 does not exist (panes: 1)"},
	} {
		err := c.Call(context.Background(), "notify", tc.p, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("notify %+v: %v, want %q", tc.p, err, tc.want)
		}
	}
}

// explain names the kind and why, every signal and rule with its verdict,
// the one that decided, and the changes so far.
func TestExplainNamesTheDecidingRule(t *testing.T) {
	t.Parallel()
	_, c := startServer(t)
	newPane(t, c, standIn(t, "#!/bin/sh\nprintf 'Bash command\\n  rm -rf build\\nDo you want to proceed?\\n  1. Yes\\n  2. No\\n'\nsleep 600\n"))
	var w proto.WaitResult
	if err := c.Call(context.Background(), "wait", proto.WaitParams{Pane: 1, State: "waiting", TimeoutMS: 10000}, &w); err != nil {
		t.Fatal(err)
	}
	x := explain(t, c, 1)
	if x.Kind != "claude" || !strings.Contains(x.KindEvidence, "(sh runs ") || x.State != "waiting" ||
		!strings.HasPrefix(x.Evidence, `rule claude.permission matched "Do you want to proceed?" on row 3; still for `) {
		t.Fatalf("explain: %+v", x)
	}
	var decided []string
	seen := map[string]bool{}
	for _, s := range x.Signals {
		seen[s.Signal] = true
		if s.Decided {
			decided = append(decided, s.Signal)
		}
	}
	for _, want := range []string{"kind", "hook", "program status", "rule claude.permission", "rule claude.busy", "notification", "bell", "title", "prompt mark", "activity", "quiet", "input"} {
		if !seen[want] {
			t.Errorf("explain lists no %q signal: %+v", want, x.Signals)
		}
	}
	if len(decided) != 1 || decided[0] != "rule claude.permission" {
		t.Errorf("decided by %v", decided)
	}
	if n := len(x.History); n == 0 || x.History[n-1].To != "waiting" {
		t.Errorf("history %+v", x.History)
	}
	if y := explain(t, c, 1); y.Kind != "claude" {
		t.Errorf("explain again: %+v", y)
	}
	_, c2 := startServer(t)
	newPane(t, c2, "sleep", "600")
	if x := explain(t, c2, 1); x.Kind != "" || x.Foreground != "sleep" || !strings.Contains(x.KindEvidence, "no coding agent") || len(x.Signals) != 0 {
		t.Errorf("explain on a pane with no agent: %+v", x)
	}
}

// An agent started through a wrapper that does not exec it (a script, npx)
// is found among the processes of the foreground group.
func TestAgentFoundUnderAWrapper(t *testing.T) {
	t.Parallel()
	_, c := startServer(t)
	claude := standIn(t, "#!/bin/sh\nprintf 'Do you want to proceed?\\n  1. Yes\\n  2. No\\n'\nsleep 600\n")
	wrapper := filepath.Join(t.TempDir(), "ai")
	testexec.Write(t, wrapper, []byte("#!/bin/sh\n"+claude+"\necho wrapper done\n"))
	newPane(t, c, wrapper)
	var w proto.WaitResult
	if err := c.Call(context.Background(), "wait", proto.WaitParams{Pane: 1, State: "waiting", ForAgent: true, TimeoutMS: 10000}, &w); err != nil {
		t.Fatal(err)
	}
	x := explain(t, c, 1)
	if x.Kind != "claude" || !strings.Contains(x.KindEvidence, filepath.Base(filepath.Dir(claude))+"/claude") || x.Foreground != "sh" {
		t.Fatalf("a wrapped agent: kind %q (%s), foreground %q", x.Kind, x.KindEvidence, x.Foreground)
	}
}

// A pane's agent starting to wait on a person, and finishing its turn, is
// told: the attached clients get a bell and an OSC 9 notification, and
// notify_command runs with what happened in its environment.
func TestStateChangesAreNotified(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "notified")
	s, c := startServer(t, func(cfg *Config) {
		cfg.Agents = AgentsConfig{Bell: true, OSC9: true,
			NotifyCommand: `echo "$MELMUX_PANE $MELMUX_AGENT_KIND $MELMUX_AGENT_PREVIOUS>$MELMUX_AGENT_STATE $MELMUX_AGENT_MESSAGE" >> ` + out}
	})
	viewer := &client{tty: newConnTty(nil, &sync.Mutex{}, 100, 30), quit: make(chan string, 1)}
	attachViewer(t, s, viewer)
	newPane(t, c, "sleep", "600")
	lookElsewhere(t, s, c) // nothing is told of the pane the person looks at
	notify(t, c, proto.NotifyParams{Pane: 1, State: "working", Kind: "codex"})
	notify(t, c, proto.NotifyParams{Pane: 1, State: "waiting", Message: "approve\x07 rm -rf build", Kind: "codex"})
	if err := c.Call(context.Background(), "wait", proto.WaitParams{Pane: 1, State: "waiting", TimeoutMS: 10000}, nil); err != nil {
		t.Fatal(err)
	}
	notify(t, c, proto.NotifyParams{Pane: 1, State: "working", Kind: "codex"})
	notify(t, c, proto.NotifyParams{Pane: 1, State: "idle", Message: "The build ran.", Kind: "codex"})
	// The commands run on their own, in any order.
	want := "1 codex working>idle The build ran.\n1 codex working>waiting approve rm -rf build"
	deadline := time.Now().Add(10 * time.Second)
	for {
		raw, _ := os.ReadFile(out)
		lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
		slices.Sort(lines)
		got := strings.Join(lines, "\n")
		if got == want {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("notify_command wrote %q, want %q", got, want)
		}
		time.Sleep(20 * time.Millisecond) // a command runs on its own; its file is all there is to watch
	}
	viewer.msgMu.Lock()
	notes := string(viewer.notes)
	viewer.msgMu.Unlock()
	wantNotes := "\a\x1b]9;melmux: codex in pane 1 is waiting on you: approve rm -rf build\x1b\\" +
		"\a\x1b]9;melmux: codex in pane 1 finished its turn: The build ran.\x1b\\"
	if notes != wantNotes {
		t.Errorf("the client's notes %q, want %q", notes, wantNotes)
	}
}

// An attached terminal gets the bell and the OSC 9 notification as output,
// between frames.
func TestAttachedClientGetsBellAndOSC9(t *testing.T) {
	t.Parallel()
	s, c := startServer(t, func(cfg *Config) { cfg.Agents = AgentsConfig{Bell: true, OSC9: true} })
	newPane(t, c, "sleep", "600")
	conn, frames, err := attachRaw(t, s, 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	waitClients(t, c, 1)
	lookElsewhere(t, s, c) // nothing is told of the pane the person looks at
	notify(t, c, proto.NotifyParams{Pane: 1, State: "working", Kind: "claude"})
	notify(t, c, proto.NotifyParams{Pane: 1, State: "waiting", Message: "approve Bash: make", Kind: "claude"})
	want := "\a\x1b]9;melmux: claude in pane 1 is waiting on you: approve Bash: make\x1b\\"
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 64<<10)
	var got []byte
	for !strings.Contains(string(got), want) {
		typ, p, err := proto.ReadFrame(frames, buf)
		if err != nil {
			t.Fatalf("no notification in the client's output %q: %v", got, err)
		}
		if typ == proto.FrameOutput {
			got = append(got, p...)
		}
	}
}

// A pane's lookup reads /proc without Server.mu: while it is held up in
// the middle, the lock is free; a list_panes asked meanwhile waits for the
// lookup under way and answers with what it found.
func TestLookupLeavesServerLockFree(t *testing.T) {
	t.Parallel()
	claude := standIn(t, "#!/bin/sh\nsleep 600\n")
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	hook := func(p *pane.Pane) {
		if argv := p.Argv(); len(argv) > 0 && argv[0] == claude { // with the hooks melmux adds to claude
			once.Do(func() {
				close(entered)
				<-release
			})
		}
	}
	s, c := startServer(t)
	s.hooks.look.Store(&hook)
	newPane(t, c, claude)
	<-entered
	locked := make(chan struct{})
	go func() {
		s.mu.Lock()
		s.mu.Unlock()
		close(locked)
	}()
	select {
	case <-locked:
	case <-time.After(10 * time.Second):
		close(release) // let the server end
		t.Fatal("Server.mu is held while the lookup reads /proc")
	}
	listed := make(chan error, 1)
	var panes []proto.PaneInfo
	go func() { listed <- c.Call(context.Background(), "list_panes", nil, &panes) }()
	close(release)
	if err := <-listed; err != nil || len(panes) != 1 || panes[0].Agent == nil || panes[0].Agent.Kind != "claude" {
		t.Fatalf("list_panes during the lookup: %v %+v", err, panes)
	}
}

// A program that is no known agent by its processes but draws an agent's
// banner is that agent, found on its screen.
func TestAgentFoundByItsBanner(t *testing.T) {
	t.Parallel()
	_, c := startServer(t)
	newPane(t, c, "sh", "-c", "printf ' * Claude Code v2.1.3\\n> '; exec sleep 600")
	// A lookup may catch sh before it execs sleep (the banner is printed
	// first); the next, a second later, sees sleep, and the banner stays
	// the group's.
	deadline := time.Now().Add(10 * time.Second)
	for listAgent(t, c, 1) == nil || explain(t, c, 1).Foreground != "sleep" {
		if time.Now().After(deadline) {
			x := explain(t, c, 1)
			t.Fatalf("the banner never made the pane running sleep an agent: kind %q (%s), foreground %q", x.Kind, x.KindEvidence, x.Foreground)
		}
		time.Sleep(20 * time.Millisecond) // a lookup is due once a second
	}
	if x := explain(t, c, 1); x.Kind != "claude" || !strings.HasPrefix(x.KindEvidence, `banner "* Claude Code v2.1.3" on row 1`) {
		t.Fatalf("explain: kind %q (%s), foreground %q", x.Kind, x.KindEvidence, x.Foreground)
	}
}
