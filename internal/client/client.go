package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode"

	"github.com/melmux/melmux/internal/proto"
)

// ErrNoServer means no session server listens on the socket.
var ErrNoServer = errors.New("no melmux session")

// ErrClosed is returned by Call once the connection is gone.
var ErrClosed = errors.New("connection to the session closed")

// Client is a control connection to a session.
type Client struct {
	conn    net.Conn
	lr      *proto.LineReader
	Session string // the server's session name
	PID     int    // the server's process id

	wmu sync.Mutex // guards writes to conn

	mu      sync.Mutex // guards nextID, pending, err
	nextID  int64
	pending map[int64]chan proto.Response
	err     error // set when the reader stopped

	done chan struct{} // closed when the connection is gone
}

// Dial connects to the socket and performs the hello.
func Dial(sock string) (*Client, error) { return DialTimeout(sock, helloTimeout) }

// DialTimeout is Dial giving up when the server has not answered within
// timeout, as one that is stopped or stuck would not.
func DialTimeout(sock string, timeout time.Duration) (*Client, error) {
	conn, err := Connect(sock, timeout)
	if err != nil {
		return nil, err
	}
	lr, w, err := handshake(conn, proto.Hello{Version: proto.Version, Mode: proto.ModeControl}, timeout)
	if err != nil {
		conn.Close()
		return nil, err
	}
	c := &Client{conn: conn, lr: lr, Session: w.Session, PID: w.PID, pending: map[int64]chan proto.Response{}, done: make(chan struct{})}
	go c.readLoop()
	return c, nil
}

// Connect opens a connection to the session's socket, once it has checked
// that nobody but this user could have put the socket there
// (proto.CheckSocketDir) and that the server runs as this user
// (proto.CheckPeer): nothing is sent otherwise. A missing socket, or one
// nobody listens on, is ErrNoServer.
func Connect(sock string, timeout time.Duration) (net.Conn, error) {
	noServer := func(err error) bool {
		return errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT)
	}
	missing := func() error {
		return fmt.Errorf("%w on %s (start one with `%s`)", ErrNoServer, sock, startCommand(sock))
	}
	if err := proto.CheckSocketDir(filepath.Dir(sock)); err != nil {
		if noServer(err) {
			return nil, missing()
		}
		return nil, err
	}
	conn, err := net.DialTimeout("unix", sock, timeout)
	if err != nil {
		if noServer(err) {
			return nil, missing()
		}
		return nil, fmt.Errorf("connect to %s: %w", sock, err)
	}
	if err := proto.CheckPeer(conn, sock); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

// startCommand is the command line that starts the session of sock: with
// -s NAME unless the session is the one `melmux new -d` alone would start.
func startCommand(sock string) string {
	dir, base := filepath.Split(sock)
	name, isSession := strings.CutSuffix(base, ".sock")
	if filepath.Clean(dir) != proto.SocketDir() || !isSession || proto.SocketPath("") == sock {
		return "melmux new -d"
	}
	if strings.ContainsFunc(name, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '.' || unicode.IsLetter(r) || unicode.IsDigit(r))
	}) {
		name = "'" + strings.ReplaceAll(name, "'", `'\''`) + "'"
	}
	return "melmux -s " + name + " new -d"
}

// Handshake sends the hello on conn and reads the welcome. A server that
// refuses the connection may have answered and closed it before the hello
// went out: its answer is read even when the hello could not be written, so
// the caller learns why rather than seeing a broken pipe.
func Handshake(conn net.Conn, h proto.Hello) (*proto.LineReader, proto.Welcome, error) {
	return handshake(conn, h, helloTimeout)
}

func handshake(conn net.Conn, h proto.Hello, timeout time.Duration) (*proto.LineReader, proto.Welcome, error) {
	return handshakeWith(conn, func() error { return proto.WriteJSON(conn, h) }, timeout)
}

// handshakeWith is handshake with the hello written by send, which may
// write more after it (Once's request).
func handshakeWith(conn net.Conn, send func() error, timeout time.Duration) (*proto.LineReader, proto.Welcome, error) {
	var w proto.Welcome
	_ = conn.SetWriteDeadline(time.Now().Add(timeout))
	werr := send()
	_ = conn.SetWriteDeadline(time.Time{})
	lr := proto.NewLineReader(conn, proto.MaxAnswer)
	_ = conn.SetReadDeadline(time.Now().Add(timeout))
	line, err := lr.ReadLine()
	_ = conn.SetReadDeadline(time.Time{})
	if err != nil {
		if werr != nil {
			return nil, w, fmt.Errorf("hello: %w", werr)
		}
		return nil, w, fmt.Errorf("hello: no answer from the server: %w", err)
	}
	if err := json.Unmarshal(line, &w); err != nil {
		return nil, w, fmt.Errorf("hello: the server answered something that is not a welcome: %w", err)
	}
	if w.Error != nil {
		return nil, w, w.Error
	}
	if werr != nil {
		return nil, w, fmt.Errorf("hello: %w", werr)
	}
	return lr, w, nil
}

func (c *Client) readLoop() {
	var err error
	for {
		var line []byte
		line, err = c.lr.ReadLine()
		if err != nil {
			break
		}
		var r proto.Response
		if json.Unmarshal(line, &r) != nil {
			continue
		}
		if ch, ok := c.answered(r.ID); ok {
			ch <- r
		}
	}
	defer close(c.done)
	c.fail(fmt.Errorf("%w: %v", ErrClosed, err))
}

// answered takes the call waiting for the answer id out of pending; false
// when none waits (it gave up).
func (c *Client) answered(id int64) (chan proto.Response, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch, ok := c.pending[id]
	delete(c.pending, id)
	return ch, ok
}

// fail records why the reader stopped, which every later call returns,
// and wakes the calls waiting.
func (c *Client) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.err = err
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
}

// Call sends method with params and decodes the result into result (if not
// nil). A server error value is returned as *proto.Error.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	raw, err := c.CallRaw(ctx, method, params)
	if err != nil {
		return err
	}
	return decodeResult(method, raw, result)
}

// decodeResult decodes a call's result into result, unless that is nil.
func decodeResult(method string, raw json.RawMessage, result any) error {
	if result == nil {
		return nil
	}
	if err := json.Unmarshal(raw, result); err != nil {
		return fmt.Errorf("%s: decode result: %w", method, err)
	}
	return nil
}

// CallRaw is Call returning the undecoded result.
func (c *Client) CallRaw(ctx context.Context, method string, params any) (json.RawMessage, error) {
	praw, err := encodeParams(method, params)
	if err != nil {
		return nil, err
	}
	ch := make(chan proto.Response, 1)
	id, err := c.register(ch)
	if err != nil {
		return nil, err
	}
	if err := c.send(proto.Request{ID: id, Method: method, Params: praw}); err != nil {
		c.forget(id)
		return nil, fmt.Errorf("%s: send: %w", method, err)
	}
	select {
	case r, ok := <-ch:
		if !ok {
			return nil, c.closedErr()
		}
		if r.Error != nil {
			return nil, r.Error
		}
		return r.Result, nil
	case <-ctx.Done():
		c.forget(id)
		return nil, ctx.Err()
	}
}

// encodeParams is a request's params as they go on the wire.
func encodeParams(method string, params any) (json.RawMessage, error) {
	switch p := params.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		return p, nil
	default:
		b, err := json.Marshal(params)
		if err != nil {
			return nil, fmt.Errorf("%s: encode params: %w", method, err)
		}
		return b, nil
	}
}

// register numbers a call and keeps ch for its answer; the connection's
// error once the reader has stopped.
func (c *Client) register(ch chan proto.Response) (int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return 0, c.err
	}
	c.nextID++
	c.pending[c.nextID] = ch
	return c.nextID, nil
}

// send writes a request, whole, between other callers' requests.
func (c *Client) send(req proto.Request) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return proto.WriteJSON(c.conn, req)
}

// closedErr is why the reader stopped.
func (c *Client) closedErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *Client) forget(id int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.pending, id)
}

// Done is closed when the connection is gone, e.g. because the session ended.
func (c *Client) Done() <-chan struct{} { return c.done }

// Close ends the connection.
func (c *Client) Close() error { return c.conn.Close() }
