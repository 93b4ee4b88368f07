package server

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mxclient "github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/sessionstate"
	"github.com/melmux/melmux/pane"
)

// shownOn is what client c's terminal shows, row by row.
func shownOn(c *client) string {
	w, h := c.screen.Size()
	var b strings.Builder
	for y := range h {
		for x := range w {
			r, _, _, _ := c.screen.GetContent(x, y)
			b.WriteRune(r)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// waitShown waits until client c's terminal shows want.
func waitShown(t *testing.T, c *client, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(shownOn(c), want) {
		if time.Now().After(deadline) {
			t.Fatalf("the client never showed %q; it shows:\n%s", want, shownOn(c))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// attachedToOnePane starts a session of one pane and attaches a client of
// cols x rows to it: its connection, to write frames, and the server's side.
func attachedToOnePane(t *testing.T, cols, rows int) (*mxclient.Client, net.Conn, *client) {
	t.Helper()
	s, c := startServer(t)
	newPane(t, c, "sleep", "600")
	conn, frames, err := attachRaw(t, s, cols, rows)
	if err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = io.Copy(io.Discard, frames) }()
	return c, conn, onlyClient(t, s)
}

// A verb typed at the ":" prompt that panics inside the server fails alone:
// the person reads why in the output view, the client stays attached and
// takes the next verb, and the session goes on.
func TestPromptVerbPanicIsConfined(t *testing.T) {
	t.Parallel()
	hook := func(args []string) {
		if args[0] == "boom" {
			var m map[string]int
			m["boom"]++ // a nil map write: a real panic
		}
	}
	c, conn, cl := attachedToOnePane(t, 100, 30)
	cl.s.hooks.prompt.Store(&hook)
	typeKeys := func(keys string) {
		t.Helper()
		if err := proto.WriteFrame(conn, proto.FrameInput, []byte(keys)); err != nil {
			t.Fatal(err)
		}
	}
	typeKeys("\x02:boom now\r")
	waitShown(t, cl, "melmux boom (typed at the prompt) failed inside the server: assignment to entry in nil map")
	waitShown(t, cl, "The session goes on")

	var panes []proto.PaneInfo
	if err := c.Call(context.Background(), "list_panes", nil, &panes); err != nil || len(panes) != 1 || panes[0].Status != "running" {
		t.Fatalf("after the verb's panic: list_panes %+v, %v", panes, err)
	}
	// The client takes input still: the view closes, and the next verb runs
	// (and fails as it must here, with no melmux binary to run).
	typeKeys("q")
	typeKeys("\x02:list-panes\r")
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(cl.currentMessage(), "commands from the prompt need the melmux binary path") {
		if time.Now().After(deadline) {
			t.Fatalf("the client took no verb after the panic; its message is %q", cl.currentMessage())
		}
		time.Sleep(10 * time.Millisecond)
	}
	waitClients(t, c, 1)
}

// logBuffer collects a server's log for a test to read while it runs.
type logBuffer struct {
	mu  sync.Mutex // guards buf
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// A panic in a pane's agent watcher ends that watcher only, logged with its
// stack: the session goes on, and the other panes with it.
func TestAgentWatcherPanicIsConfined(t *testing.T) {
	t.Parallel()
	bad := standIn(t, "#!/bin/sh\nexec sleep 600\n")
	hook := func(p *pane.Pane) {
		if argv := p.Argv(); len(argv) > 0 && argv[0] == bad { // with the hooks melmux adds to claude
			var m map[string]int
			m["boom"]++
		}
	}
	var log logBuffer
	s, c := startServer(t, func(cfg *Config) { cfg.Log = slog.New(slog.NewTextHandler(&log, nil)) })
	s.hooks.look.Store(&hook)
	ctx := context.Background()
	// A command that looks the pane up answers with an internal error (its
	// request's recover); the watcher looks it up as it starts, and without
	// a recover of its own its panic would end the test binary.
	_ = c.Call(ctx, "new", proto.NewParams{Command: []string{bad}}, nil)
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(log.String(), `msg="pane 1's agent watcher panic" panic="assignment to entry in nil map" stack=`) {
		if time.Now().After(deadline) {
			t.Fatalf("the watcher's panic was never logged; the log:\n%s", log.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := c.Call(ctx, "open_pane", proto.OpenPaneParams{Layout: "tab", Argv: []string{"sh", "-c", "echo other-pane; exec sleep 600"}}, nil); err != nil {
		t.Fatalf("the session stopped serving after a watcher's panic: %v", err)
	}
	if err := c.Call(ctx, "wait", proto.WaitParams{Pane: 2, Match: "^other-pane$", Screen: true, TimeoutMS: 10000}, nil); err != nil {
		t.Fatal(err)
	}
}

// panicOnce is a test hook that panics (a real one, a nil map write) the
// first time it runs once armed.
type panicOnce struct{ armed atomic.Bool }

func (p *panicOnce) run() {
	if p.armed.Swap(false) {
		var m map[string]int
		m["boom"]++
	}
}

// waitLogged waits until the server's log holds want.
func waitLogged(t *testing.T, log *logBuffer, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(log.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("the log never said %q; it holds:\n%s", want, log.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// startSaved starts a server keeping a state file and logging to the
// returned buffer, with one pane saved.
func startSaved(t *testing.T) (*Server, *mxclient.Client, *logBuffer) {
	t.Helper()
	log := new(logBuffer)
	file := filepath.Join(t.TempDir(), "t.json")
	s, c := startServer(t, withState(file), func(cfg *Config) { cfg.Log = slog.New(slog.NewTextHandler(log, nil)) })
	call(t, c, "new", proto.NewParams{Command: []string{"sleep", "600"}}, nil)
	waitState(t, s, "one pane", func(st *sessionstate.State) bool { return len(st.Panes) == 1 })
	return s, c, log
}

// A panic building the state file (under Server.mu) is logged with its
// stack and ends that save only: Server.mu is let go of, so the session
// goes on serving, and the next change is saved.
func TestStateSavePanicIsConfined(t *testing.T) {
	t.Parallel()
	var boom panicOnce
	hook := boom.run
	s, c, log := startSaved(t)
	s.hooks.state.Store(&hook)

	boom.armed.Store(true)
	call(t, c, "open_pane", proto.OpenPaneParams{Layout: "tab", Argv: []string{"sleep", "601"}, NoWait: true}, nil)
	waitLogged(t, log, `msg="saving the session state panic" panic="assignment to entry in nil map" stack=`)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var panes []proto.PaneInfo
	if err := c.Call(ctx, "list_panes", nil, &panes); err != nil || len(panes) != 2 {
		t.Fatalf("after the saver's panic (Server.mu held?): list_panes %+v, %v", panes, err)
	}
	call(t, c, "open_pane", proto.OpenPaneParams{Layout: "tab", Argv: []string{"sleep", "602"}, NoWait: true}, nil)
	waitState(t, s, "three panes, saved after the panic", func(st *sessionstate.State) bool { return len(st.Panes) == 3 })
}

// A panic on the way of a session's end is logged with its stack and the
// session still ends (Done closes, the process exits): kill_server's (on a
// goroutine of its own, where a panic ended the process unlogged), and a
// signal's, whose last save of the state panics under Server.mu.
func TestSessionEndsDespiteAPanic(t *testing.T) {
	t.Parallel()
	endings := []struct {
		name  string
		state bool // the panic is in the state's build, else in a step of the end
		end   func(*Server, *mxclient.Client)
		want  string
	}{
		{"kill_server", false, func(s *Server, c *mxclient.Client) { call(t, c, "kill_server", nil, nil) },
			`msg="the state file's end panic" panic="assignment to entry in nil map" stack=`},
		{"signal", true, func(s *Server, c *mxclient.Client) { s.Shutdown("signal terminated") },
			`msg="the session state's last save panic" panic="assignment to entry in nil map" stack=`},
	}
	for _, e := range endings {
		t.Run(e.name, func(t *testing.T) {
			var boom panicOnce
			s, c, log := startSaved(t)
			if e.state {
				hook := boom.run
				s.hooks.state.Store(&hook)
			} else {
				hook := func(string) { boom.run() }
				s.hooks.end.Store(&hook)
			}
			boom.armed.Store(true)
			e.end(s, c)
			select {
			case <-s.Done():
			case <-time.After(10 * time.Second):
				t.Fatalf("the session never ended after a panic on the way; the log:\n%s", log.String())
			}
			waitLogged(t, log, e.want)
		})
	}
}
