package client

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/melmux/melmux/internal/proto"
)

// Once runs one command on a connection of its own and closes it. The hello
// and the request go out in one write, so the command costs one round trip
// instead of Dial's two; it is for a process that makes one call and exits,
// the CLI's usual case, where the second round trip was a tenth of the time.
//
// This is safe because every check of the hello is the server's: a server
// that refuses it answers with the welcome's error and closes the connection
// without reading further, so the request is never run; and the welcome
// carries nothing the request depends on.
//
// params and result are as Call's.
func Once(ctx context.Context, sock, method string, params, result any) error {
	raw, err := onceRaw(ctx, sock, method, params)
	if err != nil {
		return err
	}
	return decodeResult(method, raw, result)
}

func onceRaw(ctx context.Context, sock, method string, params any) (json.RawMessage, error) {
	praw, err := encodeParams(method, params)
	if err != nil {
		return nil, err
	}
	conn, err := Connect(sock, helloTimeout)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	hello, err := json.Marshal(proto.Hello{Version: proto.Version, Mode: proto.ModeControl})
	if err != nil {
		return nil, err
	}
	req, err := json.Marshal(proto.Request{ID: 1, Method: method, Params: praw})
	if err != nil {
		return nil, fmt.Errorf("%s: encode request: %w", method, err)
	}
	msg := make([]byte, 0, len(hello)+len(req)+2)
	msg = append(append(append(append(msg, hello...), '\n'), req...), '\n')
	lr, _, err := handshakeWith(conn, func() error {
		_, err := conn.Write(msg)
		return err
	}, helloTimeout)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	for {
		line, err := lr.ReadLine()
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("%w: %v", ErrClosed, err)
		}
		var r proto.Response
		if json.Unmarshal(line, &r) != nil || r.ID != 1 {
			continue
		}
		if r.Error != nil {
			return nil, r.Error
		}
		return r.Result, nil
	}
}

// helloTimeout bounds the wait for a server's welcome: one that is stopped or
// stuck would not answer.
const helloTimeout = 10 * time.Second
