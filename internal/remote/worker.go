package remote

import (
	"bufio"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
)

// Worker runs argv, a worker agent of the host's session whose
// MELMUX_SOCKET is ForwardSocket(session), as its parent: it holds the
// worker's control connections across ssh channels (forward.go), taking
// each bridge of the session that connects to RelaySocket(session) in
// place of the one before. It returns how the worker ended. Being the
// pane's program, it lives exactly as long as the worker needs it.
func Worker(session string, argv []string) (*os.ProcessState, error) {
	if len(argv) == 0 {
		return nil, errors.New("no worker to run")
	}
	up, err := listenSocket(ForwardSocket(session))
	if err != nil {
		return nil, err
	}
	defer up.Close()
	rl, err := listenSocket(RelaySocket(session))
	if err != nil {
		return nil, err
	}
	defer rl.Close()
	r := newRelay(nil)
	defer r.close()
	go func() {
		for {
			c, err := up.Accept()
			if err != nil {
				return
			}
			r.accept(c)
		}
	}()
	go serveRelay(rl, r)

	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	// The terminal's interrupts reach the worker itself (it is in this
	// process group); a hangup or a kill said to this process is passed
	// on, and this one ends with it. Caught, not ignored: an ignored
	// signal would stay ignored in the worker.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGHUP, syscall.SIGTERM)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		for s := range sigs {
			if s == syscall.SIGHUP || s == syscall.SIGTERM {
				_ = cmd.Process.Signal(s)
			}
		}
	}()
	err = cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return nil, err
	}
	return cmd.ProcessState, nil
}

// serveRelay takes the bridges that connect to ln, the newest in place of
// the one before (whose ssh channel is dead, or soon will be).
func serveRelay(ln net.Listener, r *relay) {
	var mu sync.Mutex // guards last
	var last net.Conn
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		locked(&mu, func() {
			if last != nil {
				_ = last.Close()
			}
			last = c
		})
		go func() {
			defer c.Close()
			ch := r.attach(&frameWriter{w: c})
			defer r.detach(ch)
			br := bufio.NewReader(c)
			for {
				typ, p, err := proto.ReadFrame(br, nil)
				if err != nil {
					return
				}
				relayFrame(r, ch, typ, p)
			}
		}()
	}
}

// relayFrame takes one of the relay's frames; it says whether it was one.
func relayFrame(r *relay, ch *relChannel, typ byte, p []byte) bool {
	switch typ {
	case frameResume:
		r.onResume(ch, p)
	case frameMsg:
		r.onMsg(ch, p)
	case frameMsgAck:
		r.onAck(ch, p)
	default:
		return false
	}
	return true
}

// bridgeRelay passes the relay's frames between the bridge's ssh channel
// and the worker's parent.
type bridgeRelay struct {
	sock string
	fw   *frameWriter // the ssh channel

	mu      sync.Mutex // guards conn, gone and resume
	conn    *frameWriter
	gone    bool   // the worker's parent closed its side: a newer bridge took over, or it ended
	pending []byte // the local side's frameResume, until the parent is reached
}

// fromLocal passes on a frame of the local side's. Until the worker's
// parent is reached only the resume is kept: the local side sends nothing
// else before it hears the parent's, which comes through this bridge.
func (b *bridgeRelay) fromLocal(typ byte, p []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.conn == nil {
		if typ == frameResume && !b.gone {
			b.pending = append([]byte(nil), p...)
		}
		return
	}
	_ = b.conn.write(typ, p)
}

// run reaches the worker's parent, which may not have started yet, and
// passes its frames to the ssh channel until either side ends.
func (b *bridgeRelay) run(ctx context.Context) {
	var c net.Conn
	for wait := 20 * time.Millisecond; ; wait = min(wait*2, time.Second) {
		var err error
		if c, err = client.Connect(b.sock, time.Second); err == nil {
			break
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
	defer c.Close()
	go func() {
		<-ctx.Done()
		_ = c.Close()
	}()
	locked(&b.mu, func() {
		b.conn = &frameWriter{w: c}
		if b.pending != nil {
			_ = b.conn.write(frameResume, b.pending)
			b.pending = nil
		}
	})
	br := bufio.NewReader(c)
	for {
		typ, p, err := proto.ReadFrame(br, nil)
		if err != nil {
			break
		}
		if b.fw.write(typ, p) != nil {
			break
		}
	}
	locked(&b.mu, func() { b.conn, b.gone = nil, true })
}
