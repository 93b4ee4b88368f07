package server

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mxclient "github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/pane"
)

// The frame of a typed key's echo takes only the typed-into pane's screen
// anew: a neighbour that printed since it was drawn keeps the screen (and
// title) drawn last, and the frame says so, so that a full frame follows.
func TestEchoFrameTakesOnlyTheTypedPane(t *testing.T) {
	t.Parallel()
	s, c := startServer(t)
	ctx := context.Background()
	if err := c.Call(ctx, "new", proto.NewParams{Command: []string{"sh", "-c", "echo one; read x; printf '\\033]0;second\\007'; echo two; exec sleep 600"}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, "open_pane", proto.OpenPaneParams{Layout: "right", Argv: []string{"sh", "-c", "echo typed; exec cat"}}, nil); err != nil {
		t.Fatal(err)
	}
	for pane, want := range map[int]string{1: "^one$", 2: "^typed$"} {
		if err := c.Call(ctx, "wait", proto.WaitParams{Pane: pane, Match: want, Screen: true, TimeoutMS: 10000}, nil); err != nil {
			t.Fatal(err)
		}
	}
	viewer := &client{tty: newConnTty(nil, nil, 120, 40)}
	full, _ := s.scene(viewer)
	if err := c.Call(ctx, "send_keys", proto.SendKeysParams{Pane: 1, Text: "\n"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, "wait", proto.WaitParams{Pane: 1, Match: "^two$", Screen: true, TimeoutMS: 10000}, nil); err != nil {
		t.Fatal(err)
	}
	echo, _, stale := s.sceneFresh(viewer, 2)
	if echo.Panes[0].Screen != full.Panes[0].Screen || !stale {
		t.Fatalf("the echo's frame renewed the neighbour's screen (%v) or did not say it is stale (%v)",
			echo.Panes[0].Screen != full.Panes[0].Screen, stale)
	}
	if echo.Panes[0].Title != full.Panes[0].Title {
		t.Errorf("the echo's frame read the neighbour's title anew: %q, drawn last %q", echo.Panes[0].Title, full.Panes[0].Title)
	}
	if echo.Panes[1].ID != 2 || !strings.Contains(snapshotText(echo.Panes[1].Screen), "typed") {
		t.Fatal("the echo's frame lacks the typed-into pane")
	}
	next, _, stale := s.sceneFresh(viewer, 0)
	if stale || !strings.Contains(snapshotText(next.Panes[0].Screen), "two") || next.Panes[0].Title != "second" {
		t.Fatalf("the full frame after it does not show the neighbour as it is (stale %v, title %q)", stale, next.Panes[0].Title)
	}
	if _, _, stale := s.sceneFresh(viewer, 2); stale {
		t.Error("an echo frame with nothing new beside it says a full frame must follow")
	}
	// Nor does it wait for a lookup in /proc, even one due for the typed pane.
	var looked atomic.Int32
	hook := func(*pane.Pane) { looked.Add(1) }
	s.hooks.look.Store(&hook)
	s.mu.Lock()
	for _, e := range s.panes {
		e.agentDo(func() { e.kindAt = time.Time{} })
	}
	s.mu.Unlock()
	s.sceneFresh(viewer, 2)
	if n := looked.Load(); n != 0 {
		t.Errorf("the echo's frame looked up %d panes' processes", n)
	}
}

// A pane's output goes through the server's scheduling: while a key typed
// into one pane awaits its echo, a neighbour's output waits before its
// emulator, and is fed once the echo is drawn.
func TestNeighbourOutputWaitsForTheEcho(t *testing.T) {
	t.Parallel()
	s, c := startServer(t, func(cfg *Config) { cfg.tune.echoHold = time.Hour })
	ctx := context.Background()
	if err := c.Call(ctx, "new", proto.NewParams{Command: []string{"sh", "-c", "exec cat"}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, "open_pane", proto.OpenPaneParams{Layout: "right", Argv: []string{"sh", "-c", "echo ready; read x; echo neighbour-out; exec sleep 600"}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, "wait", proto.WaitParams{Pane: 2, Match: "^ready$", Screen: true, TimeoutMS: 10000}, nil); err != nil {
		t.Fatal(err)
	}
	e, err := s.lookup(2)
	if err != nil {
		t.Fatal(err)
	}
	shows := func() bool { return strings.Contains(snapshotText(e.p.Term().Snapshot()), "neighbour-out") }
	s.sched.Input(1) // a key read for pane 1, its echo not yet drawn
	if err := e.p.Type([]byte("\n")); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); s.sched.Parked() != 1; time.Sleep(time.Millisecond) {
		if shows() {
			t.Fatal("pane 2's output reached its emulator while a key typed into pane 1 awaited its echo")
		}
		if time.Now().After(deadline) {
			t.Fatalf("pane 2's reader never waited for the echo (%d parked)", s.sched.Parked())
		}
	}
	if shows() {
		t.Fatal("pane 2's output was fed while its reader was held")
	}
	s.sched.Answered()
	if err := c.Call(ctx, "wait", proto.WaitParams{Pane: 2, Match: "^neighbour-out$", Screen: true, TimeoutMS: 30000}, nil); err != nil {
		t.Fatalf("pane 2's output was not fed once the echo was drawn: %v", err)
	}
}

// busyEmulator starts pane 1 and, once it is ready and ready has run, has
// its emulator locked as a long parse would keep it: a tap on its history
// that waits until free is called (or the test ends). It returns the
// pane's entry and free.
func busyEmulator(t *testing.T, s *Server, c *mxclient.Client, ready func()) (*paneEntry, func()) {
	t.Helper()
	return busyPane(t, s, c, []string{"sh", "-c", "echo ready; read x; seq 200; exec sleep 600"}, ready)
}

// busyPane is busyEmulator with pane 1 running argv, which must print
// "ready", read a line, then print more lines than the pane shows.
func busyPane(t *testing.T, s *Server, c *mxclient.Client, argv []string, ready func()) (*paneEntry, func()) {
	t.Helper()
	ctx := context.Background()
	if err := c.Call(ctx, "new", proto.NewParams{Command: argv}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, "wait", proto.WaitParams{Pane: 1, Match: "^ready$", Screen: true, TimeoutMS: 10000}, nil); err != nil {
		t.Fatal(err)
	}
	ready()
	e, err := s.lookup(1)
	if err != nil {
		t.Fatal(err)
	}
	tapped, release := make(chan struct{}), make(chan struct{})
	var tapOnce, releaseOnce sync.Once
	free := func() { releaseOnce.Do(func() { close(release) }) }
	_, stop := e.p.Term().TapScrolled(func(string, bool) { tapOnce.Do(func() { close(tapped); <-release }) })
	t.Cleanup(func() { free(); stop() })
	if err := e.p.Type([]byte("\n")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-tapped:
	case <-time.After(30 * time.Second):
		t.Fatal("the pane's output never reached its history")
	}
	return e, free
}

// A frame reads the panes' emulators holding no lock of the server's: a
// pane whose emulator is busy (a flood being parsed) holds up the frame
// that reads it, never the commands and the other clients.
func TestAFrameReadsThePanesWithoutServerMu(t *testing.T) {
	t.Parallel()
	s, c := startServer(t)
	_, free := busyEmulator(t, s, c, func() {})
	reading := make(chan struct{})
	var readOnce sync.Once
	hook := func() { readOnce.Do(func() { close(reading) }) }
	s.hooks.frame.Store(&hook)
	drawn := make(chan struct{})
	go func() {
		defer close(drawn)
		s.scene(&client{tty: newConnTty(nil, nil, 80, 24)})
	}()
	select {
	case <-reading:
	case <-time.After(30 * time.Second):
		t.Fatal("the frame never began to read the panes")
	}
	locked := make(chan struct{})
	go func() {
		s.withLock(func() {})
		close(locked)
	}()
	select {
	case <-locked:
	case <-time.After(10 * time.Second):
		t.Fatal("Server.mu was held while a frame waited for a pane's emulator")
	}
	free()
	select {
	case <-drawn:
	case <-time.After(30 * time.Second):
		t.Fatal("the frame was not drawn once the emulator was free")
	}
}
