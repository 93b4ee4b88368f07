package server

import (
	"context"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	mxclient "github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
)

// fdExhausted is a listener whose next accepts fail as they do when the
// process has no fd left.
type fdExhausted struct {
	net.Listener
	fails atomic.Int32 // accepts still to fail
}

func (l *fdExhausted) Accept() (net.Conn, error) {
	if l.fails.Add(-1) >= 0 {
		return nil, &net.OpError{Op: "accept", Net: "unix", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	return l.Listener.Accept()
}

// Accepts failing with EMFILE (the fd limit reached) must not end the
// session: the server waits and serves the next connection, and the pane
// it had lives on.
func TestFailedAcceptDoesNotEndTheSession(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sock := filepath.Join(dir, "t.sock")
	s := New(Config{Name: "t", SocketPath: sock, Cols: 80, Rows: 24,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Shell: "/bin/sh", tune: parallelSafe})
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Call(context.Background(), "new", proto.NewParams{Command: []string{"sleep", "600"}}); err != nil {
		t.Fatal(err)
	}
	l := &fdExhausted{Listener: s.ln}
	l.fails.Store(5)
	s.ln = l
	served := make(chan error, 1)
	go func() { served <- s.Serve() }()
	defer s.Shutdown("test over")
	c, err := mxclient.Dial(sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var panes []proto.PaneInfo
	if err := c.Call(context.Background(), "list_panes", nil, &panes); err != nil {
		t.Fatal(err)
	}
	if len(panes) != 1 || panes[0].Status != "running" {
		t.Fatalf("the pane did not live through the failed accepts: %+v", panes)
	}
	if n := l.fails.Load(); n >= 0 {
		t.Fatalf("only %d of 5 failing accepts happened", 5-n-1)
	}
	s.Shutdown("test over")
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("Serve did not return after Shutdown")
	}
}
