package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/melmux/melmux/internal/testreq"
)

// TestMCPServesThePaneTools connects the MCP SDK's own client to `melmux mcp`
// (the real binary on stdio) and drives a session through it.
func TestMCPServesTheOrchestrationTools(t *testing.T) {
	t.Parallel()
	se := newSessionEnv(t)
	se.must("new", "-d", "-x", "100", "-y", "30", "--", "sleep", "600")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.Command(se.bin, "mcp")
	cmd.Env = se.env
	cmd.Dir = t.TempDir()
	cl := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := cl.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	if got := strings.Join(names, " "); got != "list_panes open_pane read_agent read_pane send_agent send_keys spawn_agent" {
		t.Fatalf("tools: %s", got)
	}

	call := func(name string, args map[string]any) (string, bool) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: a protocol error instead of a result: %v", name, err)
		}
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String(), res.IsError
	}
	out, isErr := call("open_pane", map[string]any{"layout": "right", "command": "sh"})
	if isErr || !strings.HasPrefix(out, "opened pane 2 (layout right") || !strings.Contains(out, "--- screen ---") {
		t.Fatalf("open_pane: %v %q", isErr, out)
	}
	out, isErr = call("send_keys", map[string]any{"pane": 2, "text": "echo abc | tr a-c x-z\n"})
	if isErr || !strings.Contains(out, "\nxyz\n") {
		t.Fatalf("send_keys should answer with the settled screen: %v %q", isErr, out)
	}
	// send_agent to a program that is not a melmux agent types and submits
	// the text as a person would; read_agent of a shell answers with its screen.
	out, isErr = call("send_agent", map[string]any{"pane": 2, "text": "echo sent-$((40+2))"})
	if isErr || !strings.HasPrefix(out, "delivered to pane 2: submitted") || !strings.Contains(out, "\nsent-42\n") {
		t.Fatalf("send_agent to a shell: %v %q", isErr, out)
	}
	out, isErr = call("read_agent", map[string]any{"pane": 2})
	if isErr || !strings.HasPrefix(out, "pane 2: no agent detected (pane running") || !strings.Contains(out, "\nsent-42\n") {
		t.Fatalf("read_agent of a shell: %v %q", isErr, out)
	}
	out, isErr = call("spawn_agent", map[string]any{"layout": "tab", "task": " "})
	if !isErr || !strings.Contains(out, `"task" is required and must not be empty`) {
		t.Fatalf("spawn_agent without a task: %v %q", isErr, out)
	}
	out, isErr = call("list_panes", nil)
	if isErr || !strings.HasPrefix(out, "2 panes\n") {
		t.Fatalf("list_panes: %v %q", isErr, out)
	}
	// Failures are results marked as errors, naming what is allowed.
	out, isErr = call("read_pane", map[string]any{"pane": 9})
	if !isErr || !strings.Contains(out, "pane 9 does not exist (panes: 1, 2)") {
		t.Fatalf("read_pane of a missing pane: %v %q", isErr, out)
	}
	out, isErr = call("send_keys", map[string]any{"pane": "two", "text": "x"})
	if !isErr || !strings.Contains(out, `"pane" must be an integer`) {
		t.Fatalf("a wrongly typed argument: %v %q", isErr, out)
	}
	if se.must("read-pane", "-t", "2") == "" {
		t.Fatal("pane 2 is empty")
	}
}

// With --base-tools the workspace tools are served too, in the current directory.
func TestMCPBaseTools(t *testing.T) {
	t.Parallel()
	se := newSessionEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("alpha\nbeta\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(se.bin, "mcp", "--base-tools")
	cmd.Env = se.env
	cmd.Dir = dir
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 7+12 {
		t.Fatalf("want the 7 orchestration tools and the 12 worker tools, got %d", len(tools.Tools))
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "grep", Arguments: map[string]any{"pattern": "^b"}})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "notes.txt:2:beta\n" {
		t.Fatalf("grep through MCP: %v %+v", err, res)
	}
	// No session: the pane tools say so as a result, not a protocol error.
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_panes"})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "no melmux session") {
		t.Fatalf("list_panes without a session: %v %+v", err, res)
	}
}

// startMCP starts `melmux mcp --base-tools` in a fresh directory with raw
// pipes, initialised, for the tests that need to close its input.
func startMCP(t *testing.T) (cmd *exec.Cmd, stdin io.WriteCloser, stdout *bufio.Reader) {
	t.Helper()
	se := newSessionEnv(t)
	cmd = exec.Command(se.bin, "mcp", "--base-tools")
	cmd.Env = se.env
	cmd.Dir = t.TempDir()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	stdout = bufio.NewReader(out)
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
	if line, err := stdout.ReadString('\n'); err != nil || !strings.Contains(line, `"result"`) {
		t.Fatalf("initialize: %q %v", line, err)
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	return cmd, stdin, stdout
}

// The client going away (stdin at EOF) ends `melmux mcp` even while a call
// runs: the call's context is cancelled and run_command kills its command.
func TestMCPExitsAtEOFWithACallInFlight(t *testing.T) {
	t.Parallel()
	testreq.Tool(t, "pgrep")
	cmd, stdin, _ := startMCP(t)
	arg := strconv.Itoa(810000 + os.Getpid()%1000*10)
	fmt.Fprintf(stdin, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_command","arguments":{"command":"setsid sleep %[1]s & sleep %[1]s"}}}`+"\n", arg)
	waitFor(t, "the command to start", func() bool { return sleepers(arg) == 2 })
	stdin.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(hangLimit):
		t.Fatal("melmux mcp did not exit at EOF while a call was in flight")
	}
	waitFor(t, "the command's processes to be gone", func() bool { return sleepers(arg) == 0 })
}

// notifications/cancelled (sent by the SDK's client when a call's context
// ends) cancels the call: run_command kills its command, and the session
// goes on.
func TestMCPCancelledNotificationStopsTheCall(t *testing.T) {
	t.Parallel()
	testreq.Tool(t, "pgrep")
	se := newSessionEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.Command(se.bin, "mcp", "--base-tools")
	cmd.Env = se.env
	cmd.Dir = t.TempDir()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	arg := strconv.Itoa(820000 + os.Getpid()%1000*10)
	callCtx, cancelCall := context.WithCancel(ctx)
	callDone := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(callCtx, &mcp.CallToolParams{Name: "run_command",
			Arguments: map[string]any{"command": fmt.Sprintf("setsid sleep %[1]s & sleep %[1]s", arg)}})
		callDone <- err
	}()
	waitFor(t, "the command to start", func() bool { return sleepers(arg) == 2 })
	cancelCall()
	<-callDone
	waitFor(t, "the cancelled command's processes to be gone", func() bool { return sleepers(arg) == 0 })
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"command": "echo still here"}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "still here") {
		t.Fatalf("a call after the cancelled one: %v %+v", err, res)
	}
}

// A line that is not JSON is answered with a parse error and the session
// goes on.
func TestMCPSurvivesABadLine(t *testing.T) {
	t.Parallel()
	_, stdin, stdout := startMCP(t)
	io.WriteString(stdin, "this is not json\n")
	line, err := stdout.ReadString('\n')
	if err != nil || !strings.Contains(line, `"code":-32700`) || !strings.Contains(line, `"id":null`) {
		t.Fatalf("answer to a bad line: %q %v", line, err)
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_command","arguments":{"command":"echo alive"}}}`+"\n")
	line, err = stdout.ReadString('\n')
	if err != nil || !strings.Contains(line, `"id":2`) || !strings.Contains(line, `alive`) {
		t.Fatalf("a call after the bad line: %q %v", line, err)
	}
}
