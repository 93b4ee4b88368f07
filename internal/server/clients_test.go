package server

import (
	"context"
	"errors"
	"io"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	mxclient "github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/pane/term"
)

// attachRaw attaches a terminal of cols x rows over the socket and returns
// the connection with the reader its frames arrive on.
func attachRaw(t *testing.T, s *Server, cols, rows int) (net.Conn, io.Reader, error) {
	t.Helper()
	conn, err := net.Dial("unix", s.sock)
	if err != nil {
		t.Fatal(err)
	}
	lr, _, err := mxclient.Handshake(conn, proto.Hello{Version: proto.Version, Mode: proto.ModeAttach,
		Term: "xterm-256color", Cols: cols, Rows: rows})
	if err != nil {
		conn.Close()
		return nil, nil, err
	}
	t.Cleanup(func() { conn.Close() })
	return conn, lr.Reader(), nil
}

// waitClients waits until the session counts n attached clients.
func waitClients(t *testing.T, c *mxclient.Client, n int) {
	t.Helper()
	waitClientsWithin(t, c, n, 10*time.Second)
}

// waitClientsWithin is waitClients with its own bound.
func waitClientsWithin(t *testing.T, c *mxclient.Client, n int, bound time.Duration) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for {
		var info proto.SessionInfo
		if err := c.Call(context.Background(), "ls", nil, &info); err != nil {
			t.Fatal(err)
		}
		if info.Clients == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d clients attached after %s, want %d", info.Clients, bound, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A session takes at most max_clients terminals at once; the next is told
// why it is refused, and a place that frees up can be taken again.
func TestAttachedClientsAreCapped(t *testing.T) {
	t.Parallel()
	s, c := startServer(t, func(cfg *Config) { cfg.MaxClients = 2 })
	if err := c.Call(context.Background(), "new", proto.NewParams{Command: []string{"sleep", "600"}}, nil); err != nil {
		t.Fatal(err)
	}
	first, _, err := attachRaw(t, s, 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := attachRaw(t, s, 80, 24); err != nil {
		t.Fatal(err)
	}
	_, _, err = attachRaw(t, s, 80, 24)
	var pe *proto.Error
	if !errors.As(err, &pe) || !strings.Contains(pe.Message, "already has 2 clients attached") || !strings.Contains(pe.Message, "max_clients") {
		t.Fatalf("a third client over a cap of 2: %v", err)
	}
	waitClients(t, c, 2)
	first.Close()
	waitClients(t, c, 1)
	if _, _, err := attachRaw(t, s, 80, 24); err != nil {
		t.Fatalf("a client could not take the place that freed up: %v", err)
	}
	waitClients(t, c, 2)
}

// clientsOf lists the attached clients.
func clientsOf(s *Server) []*client { return s.clients.walk() }

// attachViewer makes c one of s's attached clients, as an attach does
// once its screen is up, until the test ends.
func attachViewer(t *testing.T, s *Server, c *client) {
	t.Helper()
	if _, ok := s.clients.reserve(); !ok {
		t.Fatal("no place for a client")
	}
	if !s.clients.join(c) {
		t.Fatal("the session refused a client")
	}
	t.Cleanup(func() { s.clients.leave(c) })
}

// waitScreen waits until client c's tcell screen is cols x rows.
func waitScreen(t *testing.T, c *client, cols, rows int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		w, h := c.screen.Size()
		if w == cols && h == rows {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the client's screen is %dx%d after 10s, want %dx%d", w, h, cols, rows)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A client claiming an absurd size is taken as the largest real one, and a
// client larger than the session draws (and allocates) only what the session
// shows: its cost follows what is drawn, not what it claims.
func TestClientSizeIsBoundedByWhatIsDrawn(t *testing.T) {
	t.Parallel()
	s, c := startServer(t)
	if err := c.Call(context.Background(), "new", proto.NewParams{Command: []string{"sleep", "600"}}, nil); err != nil {
		t.Fatal(err)
	}
	_, small, err := attachRaw(t, s, 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = io.Copy(io.Discard, small) }() // a terminal reads what it is sent
	waitClients(t, c, 1)
	first := clientsOf(s)[0]
	huge, frames, err := attachRaw(t, s, 65535, 65535)
	if err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = io.Copy(io.Discard, frames) }()
	waitClients(t, c, 2)
	var big *client
	for _, cl := range clientsOf(s) {
		if cl != first {
			big = cl
		}
	}
	if w, h := big.screen.Size(); w != 80 || h != 24 {
		t.Fatalf("a client claiming 65535x65535 in an 80x24 session has a %dx%d screen, want 80x24", w, h)
	}
	if w, h := big.tty.size(); w != MaxClientCols || h != MaxClientRows {
		t.Fatalf("the client's size is taken as %dx%d, want it bounded to %dx%d", w, h, MaxClientCols, MaxClientRows)
	}
	// A resize frame claiming 65535 columns is bounded too, and changes
	// nothing drawn.
	if err := proto.WriteFrame(huge, proto.FrameResize, proto.ResizePayload(65535, 70)); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for w, h := big.tty.size(); w != MaxClientCols || h != 70; w, h = big.tty.size() {
		if time.Now().After(deadline) {
			t.Fatalf("after a resize frame of 65535x70 the client's size is %dx%d, want %dx70", w, h, MaxClientCols)
		}
		time.Sleep(10 * time.Millisecond)
	}
	big.invalidate()
	waitScreen(t, big, 80, 24)
	var info proto.SessionInfo
	if err := c.Call(context.Background(), "ls", nil, &info); err != nil || info.Cols != 80 || info.Rows != 24 {
		t.Fatalf("the session is %dx%d (%v), want the smallest client's 80x24", info.Cols, info.Rows, err)
	}
	// The session follows the bounded size when the small client leaves.
	first.exit("test")
	waitClients(t, c, 1)
	if err := c.Call(context.Background(), "ls", nil, &info); err != nil || info.Cols != MaxClientCols || info.Rows != 70 {
		t.Fatalf("the session is %dx%d (%v), want %dx70", info.Cols, info.Rows, err, MaxClientCols)
	}
	big.exit("test")
	waitClients(t, c, 0)
}

// Clients drawing the same pane share one snapshot of its screen until the
// pane changes.
func TestClientsShareThePaneSnapshot(t *testing.T) {
	t.Parallel()
	s, c := startServer(t)
	if err := c.Call(context.Background(), "new", proto.NewParams{Command: []string{"sh", "-c", "echo one; read x; echo two; exec sleep 600"}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(context.Background(), "wait", proto.WaitParams{Pane: 1, Match: "^one$", Screen: true, TimeoutMS: 10000}, nil); err != nil {
		t.Fatal(err)
	}
	a := &client{tty: newConnTty(nil, nil, 80, 24)}
	b := &client{tty: newConnTty(nil, nil, 80, 24)}
	sa, _ := s.scene(a)
	sb, _ := s.scene(b)
	if sa.Panes[0].Screen != sb.Panes[0].Screen {
		t.Fatal("two clients drawing an unchanged pane hold two copies of its screen")
	}
	if err := c.Call(context.Background(), "send_keys", proto.SendKeysParams{Pane: 1, Text: "\n"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(context.Background(), "wait", proto.WaitParams{Pane: 1, Match: "^two$", Screen: true, TimeoutMS: 10000}, nil); err != nil {
		t.Fatal(err)
	}
	sa2, _ := s.scene(a)
	if sa2.Panes[0].Screen == sa.Panes[0].Screen || !strings.Contains(snapshotText(sa2.Panes[0].Screen), "two") {
		t.Fatal("the shared snapshot was not renewed after the pane printed")
	}
}

// When clients leave, the memory they held goes back to the system soon,
// not at the next collection an idle server may not run for minutes.
func TestDepartedClientsMemoryIsReturned(t *testing.T) {
	s, c := startServer(t)
	if err := c.Call(context.Background(), "new", proto.NewParams{Command: []string{"sleep", "600"}}, nil); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.HeapInuse
	var conns []net.Conn
	for range 10 {
		conn, _, err := attachRaw(t, s, 300, 100)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, conn)
	}
	waitClients(t, c, 10)
	for _, cl := range clientsOf(s) {
		waitScreen(t, cl, 300, 100)
	}
	runtime.ReadMemStats(&ms)
	attached := ms.HeapInuse
	for _, conn := range conns {
		conn.Close()
	}
	waitClients(t, c, 0)
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.ReadMemStats(&ms) // reads; collects nothing
		if ms.HeapInuse < before+(attached-before)/2 {
			t.Logf("heap in use: %d MiB before, %d MiB with 10 clients of 300x100, %d MiB after", before>>20, attached>>20, ms.HeapInuse>>20)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("heap in use still %d MiB 10s after the clients left (%d MiB before, %d MiB with them)", ms.HeapInuse>>20, before>>20, attached>>20)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func snapshotText(sc *term.Screen) string {
	var b strings.Builder
	for _, row := range sc.Cells {
		for _, cell := range row {
			b.WriteRune(cell.Rune)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// A client dropped for not reading its output is told so when it reads
// again: the frame it was cut off in is finished, its terminal reset, and
// the reason is "too slow", not a vanished server.
func TestSlowClientIsToldWhyItWasDropped(t *testing.T) {
	t.Parallel()
	s, c := startServer(t, func(cfg *Config) { cfg.tune.slowClient = 300 * time.Millisecond })
	// yes floods faster than a shell loop, so frames outgrow the socket's
	// buffer quickly even when the machine is busy with other tests.
	flood := `yes "a line of a flood that fills every frame"`
	if err := c.Call(context.Background(), "new", proto.NewParams{Command: []string{"sh", "-c", flood}}, nil); err != nil {
		t.Fatal(err)
	}
	conn, frames, err := attachRaw(t, s, 200, 50)
	if err != nil {
		t.Fatal(err)
	}
	waitClients(t, c, 1)
	// Dropped: it reads nothing. The bound is generous because a loaded
	// machine (the whole suite at once, the package's tests in parallel)
	// produces frames slowly: 30 s was once too short at load 14.
	waitClientsWithin(t, c, 0, 2*time.Minute)
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	buf := make([]byte, 64<<10)
	var last []byte
	for {
		typ, p, err := proto.ReadFrame(frames, buf)
		if err != nil {
			t.Fatalf("the frames ended without an exit frame: %v", err)
		}
		if typ == proto.FrameExit {
			if got := string(p); got != "detached: too slow to keep up" {
				t.Fatalf("exit reason %q", got)
			}
			break
		}
		if typ != proto.FrameOutput {
			t.Fatalf("a frame of type %q: the stream is out of step", typ)
		}
		last = append(last[:0], p...)
	}
	if string(last) != proto.ResetModes {
		t.Fatalf("the last output before the exit is %q, want the terminal reset", last)
	}
	// The session goes on.
	var panes []proto.PaneInfo
	if err := c.Call(context.Background(), "list_panes", nil, &panes); err != nil || len(panes) != 1 || panes[0].Status != "running" {
		t.Fatalf("the session after a slow client: %v %+v", err, panes)
	}
}

// The client set has a lock of its own: clients come and go, and the
// session's size follows them, while a command holds Server.mu; only the
// resize waits for it.
func TestClientsComeAndGoWithoutServerMu(t *testing.T) {
	t.Parallel()
	s, _ := startServer(t)
	viewer := &client{tty: newConnTty(nil, &sync.Mutex{}, 100, 30), quit: make(chan string, 1)}
	done := make(chan struct{})
	s.withLock(func() {
		go func() {
			defer close(done)
			if _, ok := s.clients.reserve(); !ok || !s.clients.join(viewer) {
				t.Error("the client could not join")
			}
			if n := s.clients.count(); n != 1 {
				t.Errorf("%d clients attached, want 1", n)
			}
			s.clients.leave(viewer)
		}()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatal("a client's join and leave waited for Server.mu")
		}
	})
	if n := s.clients.count(); n != 0 {
		t.Errorf("%d clients attached after the leave, want 0", n)
	}
}

// A server that owns GOMAXPROCS runs its spare P while a client is
// attached, and gives it up when the last one leaves (sched.Attached, told
// by the client set at each change).
func TestAttachedClientsHaveTheSpareP(t *testing.T) {
	old := runtime.GOMAXPROCS(0)
	t.Cleanup(func() { runtime.GOMAXPROCS(old) })
	s, _ := startServer(t, func(cfg *Config) { cfg.SpareProc = true })
	viewer := &client{tty: newConnTty(nil, &sync.Mutex{}, 100, 30), quit: make(chan string, 1)}
	attachViewer(t, s, viewer)
	if n := runtime.GOMAXPROCS(0); n != old+1 {
		t.Fatalf("a client attached: GOMAXPROCS %d, want %d", n, old+1)
	}
	s.clients.leave(viewer)
	if n := runtime.GOMAXPROCS(0); n != old {
		t.Fatalf("the client left: GOMAXPROCS %d, want %d", n, old)
	}
}
