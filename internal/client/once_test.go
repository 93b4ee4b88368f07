package client

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"testing"

	"github.com/melmux/melmux/internal/proto"
)

// onceServer listens on a fresh socket and answers its one connection with
// serve, which gets the lines the client sent.
func onceServer(t *testing.T, serve func(c net.Conn, lr *proto.LineReader)) string {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "s.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		serve(c, proto.NewLineReader(c, proto.MaxLine))
	}()
	return sock
}

// The hello and the request arrive together, before any welcome was sent:
// one round trip; the answer is decoded as Call decodes it.
func TestOnceSendsHelloAndRequestInOneGo(t *testing.T) {
	sock := onceServer(t, func(c net.Conn, lr *proto.LineReader) {
		hello, err := lr.ReadLine()
		if err != nil || lr.Buffered() == 0 {
			t.Errorf("the request did not come with the hello %q (err %v, %d bytes buffered)", hello, err, lr.Buffered())
			return
		}
		req, _ := lr.ReadLine()
		_ = proto.WriteJSON(c, proto.Welcome{Version: proto.Version, Session: "main"})
		if string(req) != `{"id":1,"method":"wait","params":{"pane":3}}` {
			t.Errorf("request %s", req)
		}
		_ = proto.WriteJSON(c, proto.Response{ID: 1, Result: []byte(`{"exit_code":7}`)})
	})
	var res struct {
		ExitCode int `json:"exit_code"`
	}
	if err := Once(context.Background(), sock, "wait", map[string]int{"pane": 3}, &res); err != nil || res.ExitCode != 7 {
		t.Fatalf("Once: %+v, %v", res, err)
	}
}

// A server that refuses the hello answers with the welcome's error and
// reads no further: that error is the answer, not the request's.
func TestOnceReturnsTheRefusal(t *testing.T) {
	sock := onceServer(t, func(c net.Conn, lr *proto.LineReader) {
		_, _ = lr.ReadLine()
		_ = proto.WriteJSON(c, proto.Welcome{Version: proto.Version,
			Error: proto.Errorf(proto.CodeVersionMismatch, "protocol version 0 is not supported")})
	})
	err := Once(context.Background(), sock, "kill_server", nil, nil)
	var pe *proto.Error
	if !errors.As(err, &pe) || pe.Code != proto.CodeVersionMismatch {
		t.Fatalf("Once: %v, want the welcome's version mismatch", err)
	}
}

// An error value answers as *proto.Error; a connection closed before the
// answer is ErrClosed.
func TestOnceErrors(t *testing.T) {
	sock := onceServer(t, func(c net.Conn, lr *proto.LineReader) {
		_, _ = lr.ReadLine()
		_, _ = lr.ReadLine()
		_ = proto.WriteJSON(c, proto.Welcome{Version: proto.Version})
		_ = proto.WriteJSON(c, proto.Response{ID: 1, Error: proto.Errorf(proto.CodeNoSuchPane, "no pane 9")})
	})
	var pe *proto.Error
	if err := Once(context.Background(), sock, "read_pane", nil, nil); !errors.As(err, &pe) || pe.Code != proto.CodeNoSuchPane {
		t.Fatalf("Once: %v, want the not-found error value", err)
	}
	sock = onceServer(t, func(c net.Conn, lr *proto.LineReader) {
		_, _ = lr.ReadLine()
		_ = proto.WriteJSON(c, proto.Welcome{Version: proto.Version})
	})
	if err := Once(context.Background(), sock, "wait", nil, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("Once: %v, want ErrClosed", err)
	}
}
