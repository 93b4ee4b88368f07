package server

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/proto"
)

// BenchmarkFrameScene is the scene of one full frame of four panes side by
// side, three quiet and one printing: what a client's loop asks of the
// server 60 times a second while a pane floods.
func BenchmarkFrameScene(b *testing.B) {
	dir, err := os.MkdirTemp("", "mxb")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	s := New(Config{Name: "b", SocketPath: filepath.Join(dir, "b.sock"), Cols: 200, Rows: 50,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Shell: "/bin/sh", tune: parallelSafe})
	if err := s.Listen(); err != nil {
		b.Fatal(err)
	}
	go func() { _ = s.Serve() }()
	defer s.Shutdown("benchmark over")
	ctx := context.Background()
	call := func(method string, params any) {
		if _, err := s.Call(ctx, method, params); err != nil {
			b.Fatal(err)
		}
	}
	call("new", proto.NewParams{Command: []string{"sh", "-c", "while :; do seq 1000; done"}})
	for range 3 {
		call("open_pane", proto.OpenPaneParams{Layout: "right", Argv: []string{"sh", "-c", "seq 40; exec sleep 600"}})
	}
	viewer := &client{tty: newConnTty(nil, nil, 200, 50)}
	deadline := time.Now().Add(10 * time.Second)
	for {
		sc, _ := s.scene(viewer)
		if len(sc.Panes) == 4 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		sc, _ := s.scene(viewer)
		if len(sc.Panes) != 4 {
			b.Fatalf("%d panes in the scene", len(sc.Panes))
		}
		viewer.scene = sc
	}
}
