package server

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	mxclient "github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
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
	deadline := time.Now().Add(10 * time.Second)
	for {
		var info proto.SessionInfo
		if err := c.Call(context.Background(), "ls", nil, &info); err != nil {
			t.Fatal(err)
		}
		if info.Clients == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d clients attached after 10s, want %d", info.Clients, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A session takes at most max_clients terminals at once; the next is told
// why it is refused, and a place that frees up can be taken again.
func TestAttachedClientsAreCapped(t *testing.T) {
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
