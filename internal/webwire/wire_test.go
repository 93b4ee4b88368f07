package webwire

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"testing"
)

// A request is answered, one given up is cancelled on the other side, and
// once the connection ends a request fails with ErrClosed and Run returns:
// the paths through Peer's calls and serving tables.
func TestPeerCallCancelClose(t *testing.T) {
	a, b := net.Pipe()
	started := make(chan struct{})
	gaveUp := make(chan error, 1)
	server := NewPeer(b, func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		switch method {
		case "echo":
			var n int
			err := json.Unmarshal(params, &n)
			return n + 1, err
		case "block":
			close(started)
			<-ctx.Done()
			gaveUp <- ctx.Err()
			return nil, ctx.Err()
		}
		return nil, errors.New("no such method " + method)
	})
	client := NewPeer(a, func(context.Context, string, json.RawMessage) (any, error) { return nil, nil })
	serverDone := make(chan error, 1)
	go func() { serverDone <- server.Run() }()
	go client.Run()

	var n int
	if err := client.Call(context.Background(), "echo", 41, &n); err != nil || n != 42 {
		t.Fatalf("echo 41: %d, %v; want 42", n, err)
	}
	if err := client.Call(context.Background(), "nope", nil, nil); err == nil || err.Error() != "no such method nope" {
		t.Fatalf("an unknown method: %v; want the other side's error as it was", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		cancel()
	}()
	if err := client.Call(ctx, "block", nil, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("a request given up: %v; want context.Canceled", err)
	}
	if err := <-gaveUp; !errors.Is(err, context.Canceled) {
		t.Fatalf("the other side's handler ended with %v; want its context cancelled", err)
	}

	client.Close()
	if err := client.Call(context.Background(), "echo", 1, &n); !errors.Is(err, ErrClosed) {
		t.Fatalf("a request after Close: %v; want ErrClosed", err)
	}
	if err := <-serverDone; err == nil {
		t.Fatal("the other side's Run returned no error when the connection ended")
	}
	if !errors.Is(client.Err(), ErrClosed) {
		t.Fatalf("client.Err() = %v; want ErrClosed", client.Err())
	}
}
