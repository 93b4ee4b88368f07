package client

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/melmux/melmux/internal/proto"
)

// Attach makes this terminal a thin proxy for the session: raw mode, bytes in
// and out, SIGWINCH as resize frames. It restores the terminal on every way
// out and returns why it left: the server's reason ("detached", "server
// exited") or the error that ended it.
func Attach(sock string, in *os.File, out *os.File) (reason string, err error) {
	conn, err := Connect(sock, 5*time.Second)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	cols, rows, err := term.GetSize(int(out.Fd()))
	if err != nil {
		return "", fmt.Errorf("attach needs a terminal: %w", err)
	}
	hello := proto.Hello{Version: proto.Version, Mode: proto.ModeAttach, Term: os.Getenv("TERM"),
		ColorTerm: os.Getenv("COLORTERM"), Cols: cols, Rows: rows}
	lr, _, err := Handshake(conn, hello)
	if err != nil {
		return "", err
	}
	// Frames that arrived with the welcome sit in the line reader's buffer.
	frames := lr.Reader()
	state, err := term.MakeRaw(int(in.Fd()))
	if err != nil {
		return "", fmt.Errorf("raw mode: %w", err)
	}
	var restoreOnce sync.Once
	restore := func() {
		restoreOnce.Do(func() {
			// Best effort: the terminal may be gone (SIGHUP).
			_ = term.Restore(int(in.Fd()), state)
		})
	}
	defer restore()

	var wmu sync.Mutex // guards writes to conn
	send := func(typ byte, p []byte) error {
		wmu.Lock()
		defer wmu.Unlock()
		return proto.WriteFrame(conn, typ, p)
	}

	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGWINCH, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
	defer signal.Stop(sigs)
	quit := make(chan string, 1)
	go func() {
		for s := range sigs {
			switch s {
			case syscall.SIGWINCH:
				if c, r, err := term.GetSize(int(out.Fd())); err == nil {
					_ = send(proto.FrameResize, proto.ResizePayload(c, r))
				}
			case syscall.SIGINT:
				// Raw mode delivers ^C as a byte; a SIGINT comes from outside.
			default:
				select {
				case quit <- "detached: " + signalName(s):
				default:
				}
				conn.Close()
				return
			}
		}
	}()
	go func() {
		buf := make([]byte, 32<<10)
		for {
			n, err := in.Read(buf)
			if n > 0 {
				if send(proto.FrameInput, buf[:n]) != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()

	buf := make([]byte, 64<<10)
	for {
		typ, payload, err := proto.ReadFrame(frames, buf)
		if err != nil {
			// The server did not get to restore the screen (it sends that
			// before an exit frame): undo what it may have set.
			_, _ = out.Write([]byte(proto.ResetModes))
			restore()
			select {
			case r := <-quit:
				return r, nil
			default:
			}
			if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || errors.Is(err, syscall.ECONNRESET) {
				// No exit frame: the server died, or dropped this client
				// without being able to say why. Only the first ends the session.
				if c, err := DialTimeout(sock, time.Second); err == nil {
					c.Close()
					return "detached: the connection was lost; session " + c.Session + " goes on", nil
				}
				return "server exited", nil
			}
			return "lost server", err
		}
		switch typ {
		case proto.FrameOutput:
			if _, err := out.Write(payload); err != nil {
				return "terminal gone", err
			}
		case proto.FrameExit:
			restore()
			return string(payload), nil
		}
	}
}

func signalName(s os.Signal) string {
	switch s {
	case syscall.SIGTERM:
		return "terminated by SIGTERM"
	case syscall.SIGHUP:
		return "terminal hung up (SIGHUP)"
	}
	return "signal " + s.String()
}
