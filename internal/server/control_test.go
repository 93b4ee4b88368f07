package server

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// blockStarted and blockEnded report on test_block, a request that blocks
// until its context ends, as a wait on a condition that never comes true does.
var blockStarted, blockEnded = make(chan struct{}, 1), make(chan struct{}, 1)

func init() {
	register(&Command{Name: "test_block", Run: func(ctx context.Context, s *Server, raw json.RawMessage) (any, error) {
		blockStarted <- struct{}{}
		<-ctx.Done()
		blockEnded <- struct{}{}
		return nil, ctx.Err()
	}})
}

// A request blocked on its connection's context ends as soon as the peer
// closes the connection: the server does not hold it (and the connection's
// fd and goroutines) until the condition comes true.
func TestClosedConnectionEndsItsBlockedRequests(t *testing.T) {
	_, c := startServer(t)
	go func() { _ = c.Call(context.Background(), "test_block", nil, nil) }()
	select {
	case <-blockStarted:
	case <-time.After(10 * time.Second):
		t.Fatal("test_block never started")
	}
	c.Close()
	select {
	case <-blockEnded:
	case <-time.After(10 * time.Second):
		t.Fatal("the blocked request still runs 10s after its connection closed")
	}
}
