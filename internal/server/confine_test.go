package server

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/proto"
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

// A verb typed at the ":" prompt that panics inside the server fails alone:
// the person reads why in the output view, the client stays attached and
// takes the next verb, and the session goes on.
func TestPromptVerbPanicIsConfined(t *testing.T) {
	hook := func(args []string) {
		if args[0] == "boom" {
			var m map[string]int
			m["boom"]++ // a nil map write: a real panic
		}
	}
	promptHook.Store(&hook)
	t.Cleanup(func() { promptHook.Store(nil) })
	s, c := startServer(t)
	newPane(t, c, "sleep", "600")
	conn, frames, err := attachRaw(t, s, 100, 30)
	if err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = io.Copy(io.Discard, frames) }()
	cl := onlyClient(t, s)
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
	bad := standIn(t, "#!/bin/sh\nexec sleep 600\n")
	hook := func(p *pane.Pane) {
		if slices.Equal(p.Argv(), []string{bad}) {
			var m map[string]int
			m["boom"]++
		}
	}
	lookHook.Store(&hook)
	t.Cleanup(func() { lookHook.Store(nil) })
	var log logBuffer
	_, c := startServer(t, func(cfg *Config) { cfg.Log = slog.New(slog.NewTextHandler(&log, nil)) })
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
