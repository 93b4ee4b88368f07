package server

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	mxclient "github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
)

// fakeWorkerEnv makes this test binary, started by spawn_agent as the
// session's melmux binary, play a worker agent: the edge of these tests, so
// that the server's real spawn, registration and queue are what is tested.
const fakeWorkerEnv = "MELMUX_TEST_FAKE_WORKER"

// unlockedUses counts the uses of a pane's agent state without its lock
// that the servers of startServer found (testHooks.unlocked); any fails
// the test binary.
var unlockedUses atomic.Int64

// noteUnlocked is every test server's testHooks.unlocked.
func noteUnlocked(what string) {
	if unlockedUses.Add(1) <= 5 {
		fmt.Fprintf(os.Stderr, "%s:\n%s\n", what, debug.Stack())
	}
}

func TestMain(m *testing.M) {
	playWeb()
	if mode := os.Getenv(fakeWorkerEnv); mode != "" {
		os.Exit(fakeWorker(mode, os.Args[1:]))
	}
	// The parallel tests wait far more than they compute (on programs in
	// PTYs, clients, timers), so more of them run at once than -parallel's
	// default, GOMAXPROCS; a -parallel given on the command line still wins.
	flag.Set("test.parallel", strconv.Itoa(4*runtime.GOMAXPROCS(0)))
	// The server reads the agent CLIs' settings (melmux's hooks in them)
	// from the pane's home: a private one, never the user's.
	home, err := os.MkdirTemp("", "mxhome")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, k := range []string{"HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"} {
		os.Setenv(k, home)
	}
	for _, k := range []string{"CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME"} {
		os.Unsetenv(k)
	}
	code := m.Run()
	os.RemoveAll(home)
	if n := unlockedUses.Load(); n > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: %d uses of a pane's agent state without its lock (the first are above)\n", n)
		code = 1
	}
	os.Exit(code)
}

// fakeWorker registers as `melmux agent --role worker --id ID` would with
// the task in its environment (which queues its task), answers it with the
// flags it was given, and waits for more; mode "fail" exits at once as a
// worker without a provider does.
func fakeWorker(mode string, args []string) int {
	if mode == "fail" {
		fmt.Println("agent: no provider configured (set MELMUX_RELAY_URL, or [agent] provider in config.toml)")
		return 3
	}
	flags := map[string]string{}
	for i := 1; i+1 < len(args); i += 2 {
		flags[args[i]] = args[i+1]
	}
	task := os.Getenv(proto.AgentTaskEnv)
	fmt.Println("worker starting on:", task)
	ctx := context.Background()
	c, err := mxclient.Dial(os.Getenv("MELMUX_SOCKET"))
	if err != nil {
		fmt.Println(err)
		return 1
	}
	pane := 0
	fmt.Sscan(os.Getenv("MELMUX_PANE"), &pane)
	id := flags["--id"]
	must := func(err error) {
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
	}
	must(c.Call(ctx, "agent_register", proto.AgentRegisterParams{Pane: pane, ID: id, Role: flags["--role"], Model: flags["--model"], Task: task}, nil))
	for {
		var m proto.AgentMessage
		must(c.Call(ctx, "agent_next", proto.AgentNextParams{Pane: pane, ID: id}, &m))
		must(c.Call(ctx, "agent_report", proto.AgentReportParams{Pane: pane, ID: id, State: "working", Turn: m.Turn}, nil))
		reply := fmt.Sprintf("done %q with provider=%s model=%s base-url=%s key-env=%s max-legs=%s",
			m.Text, flags["--provider"], flags["--model"], flags["--base-url"], flags["--key-env"], flags["--max-legs"])
		must(c.Call(ctx, "agent_report", proto.AgentReportParams{Pane: pane, ID: id, State: "idle", Turn: m.Turn, Reply: reply, Legs: 1}, nil))
	}
}

func withSelf(cfg *Config) { cfg.Self = os.Args[0] }

// spawn_agent starts the worker in a placed pane with the settings given, and
// answers once it registered and queued its task: a read_agent right after
// waits for the task's reply.
func TestSpawnAgentStartsARegisteredWorker(t *testing.T) {
	t.Parallel()
	_, c := startServer(t, withSelf)
	newPane(t, c, "sleep", "600")
	ctx := context.Background()
	var r proto.SpawnAgentResult
	p := proto.SpawnAgentParams{Layout: "right", Task: "list the files", Model: "m2", Provider: "relay",
		BaseURL: "http://127.0.0.1:9/v1", KeyEnv: "MY_KEY", MaxLegs: 7, Env: []string{fakeWorkerEnv + "=ok"}}
	if err := c.Call(ctx, "spawn_agent", p, &r); err != nil {
		t.Fatal(err)
	}
	if r.ID != 2 || r.Layout != "right" || r.AgentID == "" || !slices.Contains(r.Lines, "worker starting on: list the files") {
		t.Fatalf("spawn_agent: %+v", r)
	}
	var rr proto.ReadAgentResult
	if err := c.Call(ctx, "read_agent", proto.ReadAgentParams{Pane: 2, WaitMS: 60000}, &rr); err != nil {
		t.Fatal(err)
	}
	want := `done "list the files" with provider=relay model=m2 base-url=http://127.0.0.1:9/v1 key-env=MY_KEY max-legs=7`
	if !rr.TurnDone || rr.Reply != want || rr.Agent.ID != r.AgentID || rr.Agent.Role != "worker" || rr.Agent.Model != "m2" {
		t.Fatalf("read_agent after spawn_agent: %+v %+v", rr, rr.Agent)
	}
	if sr := send(t, c, 2, "and the dirs", ""); sr.Turn != 2 || sr.Ahead != 0 {
		t.Fatalf("the worker's next message is turn 2: %+v", sr)
	}
}

// A worker's task is not on its command line, which every user of the
// machine may read (/proc/PID/cmdline); it comes in its environment, which
// only its user may.
func TestWorkerTaskIsNotOnItsCommandLine(t *testing.T) {
	t.Parallel()
	_, c := startServer(t, withSelf)
	newPane(t, c, "sleep", "600")
	task := "the secret plan: rotate the keys in vault-7"
	var r proto.SpawnAgentResult
	call(t, c, "spawn_agent", proto.SpawnAgentParams{Layout: "tab", Task: task, Env: []string{fakeWorkerEnv + "=ok"}}, &r)
	var panes []proto.PaneInfo
	call(t, c, "list_panes", nil, &panes)
	pid := 0
	for _, p := range panes {
		if p.ID == r.ID {
			pid = p.PID
		}
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(cmdline), "secret plan") || !strings.Contains(string(cmdline), "\x00agent\x00--role\x00worker\x00--id\x00"+r.AgentID) {
		t.Fatalf("the worker's command line %q", cmdline)
	}
	var rr proto.ReadAgentResult
	call(t, c, "read_agent", proto.ReadAgentParams{Pane: r.ID, WaitMS: 60000}, &rr)
	if !strings.HasPrefix(rr.Reply, fmt.Sprintf("done %q", task)) {
		t.Fatalf("the worker did not work on its task: %+v", rr)
	}
	// Too big for an environment variable, or holding a NUL: said at once.
	for _, bad := range []struct{ task, want string }{
		{strings.Repeat("x", proto.MaxWorkerTask+1), fmt.Sprintf("spawn_agent: task is %d bytes, over the %d a worker's task may be", proto.MaxWorkerTask+1, proto.MaxWorkerTask)},
		{"a\x00b", "spawn_agent: task holds a NUL byte"},
	} {
		err := c.Call(context.Background(), "spawn_agent", proto.SpawnAgentParams{Layout: "tab", Task: bad.task, Env: []string{fakeWorkerEnv + "=ok"}}, nil)
		var pe *proto.Error
		if !errors.As(err, &pe) || pe.Code != proto.CodeBadParams || !strings.Contains(pe.Message, bad.want) {
			t.Errorf("spawn_agent of a %d-byte task: %v, want bad_params %q", len(bad.task), err, bad.want)
		}
	}
	// The largest task that may be still reaches the worker.
	call(t, c, "spawn_agent", proto.SpawnAgentParams{Layout: "tab", Task: strings.Repeat("y", proto.MaxWorkerTask), Env: []string{fakeWorkerEnv + "=ok"}}, &r)
	call(t, c, "read_agent", proto.ReadAgentParams{Pane: r.ID, WaitMS: 60000}, &rr)
	if !rr.TurnDone || !strings.Contains(rr.Reply, strings.Repeat("y", 100)) {
		t.Fatalf("a task of %d bytes: %+v", proto.MaxWorkerTask, rr.Agent)
	}
}

// A worker that exits before registering (no provider configured) makes
// spawn_agent fail with its exit status and its screen.
func TestSpawnAgentShowsWhyTheWorkerDidNotStart(t *testing.T) {
	t.Parallel()
	_, c := startServer(t, withSelf)
	newPane(t, c, "sleep", "600")
	err := c.Call(context.Background(), "spawn_agent", proto.SpawnAgentParams{Layout: "tab", Task: "x", Env: []string{fakeWorkerEnv + "=fail"}}, nil)
	var pe *proto.Error
	if !errors.As(err, &pe) || pe.Code != proto.CodeFailed ||
		!strings.Contains(pe.Message, "the worker in pane 2 exited (exit code 3) before it registered") ||
		!strings.Contains(pe.Message, "agent: no provider configured") {
		t.Fatalf("spawn_agent of a worker that cannot start: %v", err)
	}
}

func TestOverrideEnv(t *testing.T) {
	got := overrideEnv([]string{"A=1", "B=2", "C=3"}, []string{"B=x", "D=4"})
	if want := []string{"A=1", "C=3", "B=x", "D=4"}; !slices.Equal(got, want) {
		t.Fatalf("overrideEnv: %q, want %q", got, want)
	}
}
