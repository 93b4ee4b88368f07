package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/pane"
)

// A client typing into a program that reads nothing is held back, not
// dropped: the server stops reading the client's connection once the pane's
// backlog is full, tells the person only once the program has been still
// for a while, and when the program reads it gets every byte in order.
func TestTypingIntoAStillProgramIsHeldNotDropped(t *testing.T) {
	t.Parallel()
	s, c := startServer(t)
	ctx := context.Background()
	dir := t.TempDir()
	gate, out := filepath.Join(dir, "gate"), filepath.Join(dir, "out")
	if err := syscall.Mkfifo(gate, 0o600); err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf("stty -echo; echo READY; cat '%s' >/dev/null; cat > '%s'; echo CAT-DONE; exec sleep 600", gate, out)
	if err := c.Call(ctx, "new", proto.NewParams{Command: []string{"sh", "-c", script}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, "wait", proto.WaitParams{Pane: 1, Match: "^READY$", Screen: true, TimeoutMS: 10000}, nil); err != nil {
		t.Fatal(err)
	}

	conn, err := net.Dial("unix", s.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := proto.WriteJSON(conn, proto.Hello{Version: proto.Version, Mode: proto.ModeAttach, Term: "xterm-256color", Cols: 80, Rows: 24}); err != nil {
		t.Fatal(err)
	}
	lr := proto.NewLineReader(conn, 1<<20)
	line, err := lr.ReadLine()
	if err != nil {
		t.Fatal(err)
	}
	var w proto.Welcome
	if err := json.Unmarshal(line, &w); err != nil || w.Error != nil {
		t.Fatalf("welcome %s: %v", line, err)
	}
	go func() { // the client's terminal: takes every frame
		buf := make([]byte, 64<<10)
		for {
			if _, _, err := proto.ReadFrame(lr.Reader(), buf); err != nil {
				return
			}
		}
	}()

	// Far more than every buffer on the way can hold: lines, since the
	// program's terminal is in canonical mode.
	var want bytes.Buffer
	for i := 0; want.Len() < 512<<10; i++ {
		fmt.Fprintf(&want, "%06d %s\n", i, strings.Repeat("x", 40))
	}
	typed := bytes.ReplaceAll(want.Bytes(), []byte("\n"), []byte("\r"))
	sent := make(chan int, 1)
	var sending atomic.Int64
	go func() {
		n := 0
		for n < len(typed) {
			end := min(n+1024, len(typed))
			if err := proto.WriteFrame(conn, proto.FrameInput, typed[n:end]); err != nil {
				break
			}
			n = end
			sending.Store(int64(n))
		}
		sent <- n
	}()

	cl := onlyClient(t, s)
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(cl.currentMessage(), "pane 1 is not reading its input") {
		if time.Now().After(deadline) {
			t.Fatalf("the person was never told the program does not read; message %q", cl.currentMessage())
		}
		time.Sleep(20 * time.Millisecond)
	}
	e, err := s.lookup(1)
	if err != nil {
		t.Fatal(err)
	}
	backlog, _ := e.p.Backlog()
	select {
	case n := <-sent:
		t.Fatalf("the server read all %d typed bytes though the program read none", n)
	default:
	}
	// What the server holds is its limit plus the few frames already read.
	if backlog > pane.InputLimit+64<<10 {
		t.Errorf("the pane's backlog is %d bytes while typing is held", backlog)
	}
	t.Logf("held with %d bytes waiting for the program, %d of %d bytes sent", backlog, sending.Load(), len(typed))

	f, err := os.OpenFile(gate, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	select {
	case n := <-sent:
		if n != len(typed) {
			t.Fatalf("the connection failed after %d of %d bytes", n, len(typed))
		}
	case <-time.After(60 * time.Second):
		t.Fatal("typing never resumed once the program read")
	}
	if err := proto.WriteFrame(conn, proto.FrameInput, []byte{4}); err != nil { // C-d: EOF
		t.Fatal(err)
	}
	if err := c.Call(ctx, "wait", proto.WaitParams{Pane: 1, Match: "^CAT-DONE$", Screen: true, TimeoutMS: 60000}, nil); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("the program got %d bytes, want %d", len(got), want.Len())
	}
	if msg := cl.currentMessage(); !strings.Contains(msg, "pane 1 is reading its input again") {
		t.Errorf("message after the program read: %q", msg)
	}
}

func onlyClient(t *testing.T, s *Server) *client {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		for _, c := range s.clients.walk() {
			return c
		}
		if time.Now().After(deadline) {
			t.Fatal("no client attached")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (c *client) currentMessage() string {
	c.msgMu.Lock()
	defer c.msgMu.Unlock()
	return c.message
}
