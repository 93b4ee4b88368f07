package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	mxclient "github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/testexec"
)

// The table test commands below exist only in this test binary.
func init() {
	register(&Command{Name: "test_panic", Run: func(ctx context.Context, s *Server, raw json.RawMessage) (any, error) {
		var m map[string]int
		m["boom"]++ // a nil map write: a real panic, not a simulated one
		return nil, nil
	}})
	// test_outlive answers only once the session has ended and its
	// connection's context is cancelled, a little later: a server that
	// closes the connection as the session ends has closed it by then.
	register(&Command{Name: "test_outlive", Run: func(ctx context.Context, s *Server, raw json.RawMessage) (any, error) {
		<-s.Done()
		<-ctx.Done()
		time.Sleep(50 * time.Millisecond)
		return "answered after the end", nil
	}})
}

// parallelSafe is the tuning of a server in a test that runs in parallel:
// it leaves the process's umask alone (the serial tests of socket_test.go
// keep the real one).
var parallelSafe = tuning{keepUmask: true}

// startServer runs a server in this process on a private socket; opts
// adjust its config.
func startServer(t *testing.T, opts ...func(*Config)) (*Server, *mxclient.Client) {
	t.Helper()
	dir, err := os.MkdirTemp("", "mxs")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	cfg := Config{Name: "t", SocketPath: filepath.Join(dir, "t.sock"), Cols: 80, Rows: 24,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Shell: "/bin/sh", tune: parallelSafe}
	for _, o := range opts {
		o(&cfg)
	}
	s := New(cfg)
	unlocked := noteUnlocked
	s.hooks.unlocked.Store(&unlocked)
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve() }()
	t.Cleanup(func() {
		s.Shutdown("test over")
		select {
		case err := <-served:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("Serve did not return after Shutdown")
		}
	})
	c, err := mxclient.Dial(filepath.Join(dir, "t.sock"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return s, c
}

func TestCommandPanicIsConfinedToItsRequest(t *testing.T) {
	t.Parallel()
	_, c := startServer(t)
	ctx := context.Background()
	if err := c.Call(ctx, "new", proto.NewParams{Command: []string{"sleep", "600"}}, nil); err != nil {
		t.Fatal(err)
	}
	err := c.Call(ctx, "test_panic", nil, nil)
	var pe *proto.Error
	if !errors.As(err, &pe) || pe.Code != proto.CodeInternal {
		t.Fatalf("a panicking command should give an internal error value, got %v", err)
	}
	var panes []proto.PaneInfo
	if err := c.Call(ctx, "list_panes", nil, &panes); err != nil {
		t.Fatalf("the server stopped serving after a command panic: %v", err)
	}
	if len(panes) != 1 || panes[0].Status != "running" {
		t.Fatalf("the pane did not survive the panic: %+v", panes)
	}
}

// A request under way when the session ends still gets its answer before
// the connection closes: the send_keys that typed `exit` into the last pane
// did what it was asked (TestRemainOnExitAuto lost that answer now and then).
func TestRequestUnderWayAnswersWhenTheSessionEnds(t *testing.T) {
	t.Parallel()
	s, c := startServer(t)
	ctx := context.Background()
	if err := c.Call(ctx, "new", proto.NewParams{Command: []string{"sleep", "600"}}, nil); err != nil {
		t.Fatal(err)
	}
	answered := make(chan error, 1)
	var got string
	go func() { answered <- c.Call(ctx, "test_outlive", nil, &got) }()
	other, err := mxclient.Dial(s.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	// kill_server's own answer may be cut off by the end it causes.
	_ = other.Call(ctx, "kill_server", nil, nil)
	select {
	case err := <-answered:
		if err != nil || got != "answered after the end" {
			t.Fatalf("the request under way got %q, %v; want its answer", got, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the request under way never returned")
	}
}

func TestSocketPermissions(t *testing.T) {
	t.Parallel()
	s, _ := startServer(t)
	fi, err := os.Stat(s.sock)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("socket mode %o, want 600", perm)
	}
	di, err := os.Stat(filepath.Dir(s.sock))
	if err != nil {
		t.Fatal(err)
	}
	if perm := di.Mode().Perm(); perm != 0o700 {
		t.Errorf("socket directory mode %o, want 700", perm)
	}
	// A second server on the same socket is refused while the first lives.
	other := New(Config{Name: "t", SocketPath: s.sock, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), tune: parallelSafe})
	if err := other.Listen(); err == nil {
		t.Fatal("a second server took over a live session's socket")
	}
}

func TestWaitIsWokenByOutputNotPolling(t *testing.T) {
	t.Parallel()
	_, c := startServer(t)
	ctx := context.Background()
	if err := c.Call(ctx, "new", proto.NewParams{Command: []string{"sh", "-c", "sleep 0.3; echo ready-now; exec sleep 600"}}, nil); err != nil {
		t.Fatal(err)
	}
	var res proto.WaitResult
	if err := c.Call(ctx, "wait", proto.WaitParams{Pane: 1, Match: "^ready-now$", Screen: true, TimeoutMS: 10000}, &res); err != nil {
		t.Fatal(err)
	}
	if res.Line != "ready-now" {
		t.Fatalf("wait matched %q", res.Line)
	}
}

func TestSendKeysToAPaneThatStopsReading(t *testing.T) {
	t.Parallel()
	_, c := startServer(t)
	ctx := context.Background()
	// In raw mode and never reading, the program lets the PTY's input buffer
	// fill, then the pane's backlog: send_keys must then fail cleanly, once
	// the program has taken nothing for a while, instead of blocking the
	// server.
	if err := c.Call(ctx, "new", proto.NewParams{Command: []string{"sh", "-c", "stty raw -echo; exec sleep 600"}}, nil); err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 4096)
	for i := range chunk {
		chunk[i] = 'x'
	}
	var full error
	for i := 0; i < 2000 && full == nil; i++ {
		full = c.Call(ctx, "send_keys", proto.SendKeysParams{Pane: 1, Text: string(chunk), NoWait: true}, nil)
	}
	// Nothing is dropped: the keys that did not fit are refused whole, and
	// the error says why.
	var pe *proto.Error
	if !errors.As(full, &pe) || pe.Code != proto.CodeFailed || !strings.Contains(pe.Message, "is not reading its input") ||
		!strings.Contains(pe.Message, "none of these 4096 bytes were sent") {
		t.Fatalf("want a failed error saying the program does not read, got %v", full)
	}
	var panes []proto.PaneInfo
	if err := c.Call(ctx, "list_panes", nil, &panes); err != nil || len(panes) != 1 {
		t.Fatalf("server stuck after a full input queue: %v %+v", err, panes)
	}
}

// A client that stops reading its socket must not slow a pane's reader or
// other clients, and must not keep the session from ending: its loop, stuck
// writing a frame, is released well before the 10 s slow-client limit.
func TestStalledClientBlocksNothing(t *testing.T) {
	t.Parallel()
	dir, err := os.MkdirTemp("", "mxs")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "t.sock")
	s := New(Config{Name: "t", SocketPath: sock, Cols: 200, Rows: 50,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Shell: "/bin/sh", tune: parallelSafe})
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve() }()
	c, err := mxclient.Dial(sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	// A pane that never stops printing different lines, so frames keep coming.
	flood := `i=0; while :; do i=$((i+1)); echo "line $i of a flood that fills every frame"; done`
	if err := c.Call(ctx, "new", proto.NewParams{Command: []string{"sh", "-c", flood}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, "open_pane", proto.OpenPaneParams{Layout: "tab", Command: "sh -c 'read go; echo other-pane; exec sleep 600'", NoWait: true}, nil); err != nil {
		t.Fatal(err)
	}
	stalled, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.Close()
	hello := proto.Hello{Version: proto.Version, Mode: proto.ModeAttach, Term: "xterm-256color", Cols: 200, Rows: 50}
	if err := proto.WriteJSON(stalled, hello); err != nil {
		t.Fatal(err)
	}
	// Nothing reads the stalled client's socket from here on; show it the
	// flooding tab so its frames pile up.
	s.mu.Lock()
	_ = s.layout.Focus(1)
	s.mu.Unlock()
	// The socket's buffers fill up: the client's loop is stuck in a write.
	for deadline := time.Now().Add(30 * time.Second); !writeParked(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no write to the client that does not read ever blocked")
		}
	}
	if err := c.Call(ctx, "send_keys", proto.SendKeysParams{Pane: 2, Text: "\n"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, "wait", proto.WaitParams{Pane: 2, Match: "^other-pane$", Screen: true, TimeoutMS: 60000}, nil); err != nil {
		t.Fatalf("another pane's output stalled behind a client that does not read: %v", err)
	}
	var info proto.SessionInfo
	if err := c.Call(ctx, "ls", nil, &info); err != nil || info.Clients != 1 {
		t.Fatalf("ls with a stalled client: %v %+v", err, info)
	}
	start := time.Now()
	s.Shutdown("test")
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the session did not end within 5s with a stalled client attached")
	}
	t.Logf("server gone %s after Shutdown with a stalled client", time.Since(start).Round(time.Millisecond))
}

// writeParked reports whether a goroutine of this process waits in a
// write to a client (ttyOut.Write) for the socket to take more.
func writeParked() bool {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "[IO wait") && strings.Contains(g, "(*ttyOut).Write(") {
			return true
		}
	}
	return false
}

// While a program holds synchronized output (mode 2026), attached clients are
// shown its last complete screen, not the half-drawn one.
func TestSyncOutputShowsTheLastCompleteFrame(t *testing.T) {
	t.Parallel()
	s, c := startServer(t)
	ctx := context.Background()
	script := `echo before; read go; printf '\033[?2026h'; echo during; read go; printf '\033[?2026l'; exec sleep 600`
	if err := c.Call(ctx, "new", proto.NewParams{Command: []string{"sh", "-c", script}}, nil); err != nil {
		t.Fatal(err)
	}
	viewer := &client{tty: newConnTty(nil, &sync.Mutex{}, 80, 24)}
	shows := func(word string) bool {
		sc, _ := s.scene(viewer)
		for _, row := range sc.Panes[0].Screen.Cells {
			var b strings.Builder
			for _, cell := range row {
				if cell.Rune != 0 {
					b.WriteRune(cell.Rune)
				}
			}
			if strings.Contains(b.String(), word) {
				return true
			}
		}
		return false
	}
	wait := func(pattern string) {
		t.Helper()
		if err := c.Call(ctx, "wait", proto.WaitParams{Pane: 1, Match: pattern, Screen: true, TimeoutMS: 10000}, nil); err != nil {
			t.Fatal(err)
		}
	}
	wait("before")
	if !shows("before") {
		t.Fatal("the first screen is not shown")
	}
	// The program opens a synchronized frame and draws into it.
	if err := c.Call(ctx, "send_keys", proto.SendKeysParams{Pane: 1, Text: "\n", NoWait: true}, nil); err != nil {
		t.Fatal(err)
	}
	wait("^during$")
	if shows("during") {
		t.Fatal("a client was shown a frame the program had not finished")
	}
	// The frame ends: now it shows.
	if err := c.Call(ctx, "send_keys", proto.SendKeysParams{Pane: 1, Text: "\n", NoWait: true}, nil); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !shows("during") {
		if time.Now().After(deadline) {
			t.Fatal("the finished frame was never shown")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A tab holding an agent that waits on a person is marked for attention, and
// the agent's pane shows its state.
func TestWaitingAgentMarksItsTab(t *testing.T) {
	t.Parallel()
	s, c := startServer(t)
	ctx := context.Background()
	bin := t.TempDir()
	script := "#!/bin/sh\nprintf 'Do you want to proceed?\\n1. Yes\\n2. No\\nEsc to cancel\\n'\nread answer\n"
	testexec.Write(t, filepath.Join(bin, "claude"), []byte(script))
	if err := c.Call(ctx, "new", proto.NewParams{Command: []string{"sleep", "600"}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, "open_pane", proto.OpenPaneParams{Layout: "tab", Argv: []string{filepath.Join(bin, "claude")}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, "wait", proto.WaitParams{Pane: 2, State: "waiting", TimeoutMS: 10000}, nil); err != nil {
		t.Fatal(err)
	}
	// Seen from tab 0, tab 1 is marked; visiting it shows the agent's
	// state and clears the mark.
	viewer := &client{tty: newConnTty(nil, &sync.Mutex{}, 100, 30)}
	s.withLock(func() { _ = s.layout.Focus(1) })
	sc, _ := s.scene(viewer)
	viewer.scene = sc
	if len(sc.Tabs) != 2 || sc.Tabs[0].Attention || !sc.Tabs[1].Attention {
		t.Fatalf("only tab 1 (the waiting agent's) should ask for attention: %+v", sc.Tabs)
	}
	s.withLock(func() { _ = s.layout.Focus(2) })
	sc, _ = s.scene(viewer)
	if len(sc.Panes) != 1 || sc.Panes[0].State != "waiting" || sc.Tabs[1].Attention {
		t.Fatalf("the agent's pane should show its state, its tab visited: %+v %+v", sc.Panes, sc.Tabs)
	}
}

// A pane's border and tab name show the program in its foreground (what the
// shell runs now), not only the command the pane started with.
func TestBorderNamesTheForegroundProgram(t *testing.T) {
	t.Parallel()
	s, c := startServer(t)
	ctx := context.Background()
	if err := c.Call(ctx, "new", proto.NewParams{Command: []string{"sh", "-i"}}, nil); err != nil {
		t.Fatal(err)
	}
	viewer := &client{tty: newConnTty(nil, &sync.Mutex{}, 100, 30)}
	command := func() string {
		s.mu.Lock()
		for _, e := range s.panes {
			e.agentDo(func() { e.kindAt = time.Time{} }) // look again now
		}
		s.mu.Unlock()
		sc, _ := s.scene(viewer)
		return sc.Panes[0].Command
	}
	if got := command(); got != "sh -i" {
		t.Fatalf("an idle shell's pane should show its command, got %q", got)
	}
	if err := c.Call(ctx, "send_keys", proto.SendKeysParams{Pane: 1, Text: "sleep 600\n", NoWait: true}, nil); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for command() != "sleep" {
		if time.Now().After(deadline) {
			t.Fatalf("the border never named the foreground program: %q", command())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
