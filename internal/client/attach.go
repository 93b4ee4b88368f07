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

	"golang.org/x/sys/unix"
	"golang.org/x/term"

	"github.com/melmux/melmux/internal/proto"
)

// Attach attaches this terminal to the session. A terminal on stdin and
// stdout is handed over to the server (SCM_RIGHTS), which then reads and
// writes it itself, as tmux does: keys and their echo no longer pass
// through this process. Otherwise, or when the server does not take it, or
// the handover fails, this process is a thin proxy: bytes in and out as
// frames. Either way it puts the terminal in raw mode, sends SIGWINCH as
// resize frames, restores the terminal on every way out and returns why it
// left: the server's reason ("detached", "server exited") or the error that
// ended it.
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
	uc, _ := conn.(*net.UnixConn)
	hello := proto.Hello{Version: proto.Version, Mode: proto.ModeAttach, Term: os.Getenv("TERM"),
		ColorTerm: os.Getenv("COLORTERM"), Cols: cols, Rows: rows,
		Tty: uc != nil && term.IsTerminal(int(in.Fd()))}
	lr, welcome, err := Handshake(conn, hello)
	if err != nil {
		return "", err
	}
	// Frames that arrived with the welcome sit in the line reader's buffer.
	frames := lr.Reader()
	// Before the handover, so the server's O_NONBLOCK can be undone: the
	// terminal's file description is shared with the shell this runs in.
	modes := saveBlocking(in, out)
	state, err := term.MakeRaw(int(in.Fd()))
	if err != nil {
		return "", fmt.Errorf("raw mode: %w", err)
	}
	direct := false
	if welcome.Tty {
		if direct, err = handOver(uc, in, out); err != nil {
			_ = term.Restore(int(in.Fd()), state)
			return "", err
		}
	}
	var restoreOnce sync.Once
	restore := func(reset bool) {
		restoreOnce.Do(func() {
			// Best effort: the terminal may be gone (SIGHUP).
			modes.restore()
			if reset {
				_, _ = out.Write([]byte(proto.ResetModes))
			}
			_ = term.Restore(int(in.Fd()), state)
		})
	}
	defer restore(false)

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
				leave(conn)
				return
			}
		}
	}()
	if !direct {
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
	}

	left := func() (string, bool) {
		select {
		case r := <-quit:
			return r, true
		default:
			return "", false
		}
	}
	buf := make([]byte, 64<<10)
	for {
		typ, payload, err := proto.ReadFrame(frames, buf)
		if err != nil {
			// The server did not get to restore the screen (it does that
			// before an exit frame): undo what it may have set.
			restore(true)
			if r, ok := left(); ok {
				return r, nil
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
			if direct {
				// Sent only once the server has let go of the terminal (the
				// reset of one dropped as too slow): it may block again.
				modes.restore()
			}
			if _, err := out.Write(payload); err != nil {
				if r, ok := left(); ok {
					return r, nil
				}
				return "terminal gone", err
			}
		case proto.FrameExit:
			// Leaving on a signal, this client ended the connection: a
			// terminal handed over was let go of as it was, unrestored.
			r, signalled := left()
			restore(signalled)
			if signalled {
				return r, nil
			}
			return string(payload), nil
		}
	}
}

// handOver passes the terminal (in and out) to the server, which the
// welcome said takes it; when that fails, it tells the server this client
// keeps it and is a proxy. The error is the connection's.
func handOver(conn *net.UnixConn, in, out *os.File) (bool, error) {
	rights := syscall.UnixRights(int(in.Fd()), int(out.Fd()))
	if _, _, err := conn.WriteMsgUnix([]byte{proto.HandoverTty}, rights, nil); err == nil {
		return true, nil
	}
	if _, err := conn.Write([]byte{proto.HandoverNone}); err != nil {
		return false, fmt.Errorf("attach: %w", err)
	}
	return false, nil
}

// leave ends this client's side of the connection on a signal. The server
// lets go of a terminal handed over as soon as it sees that, and answers
// with an exit frame; only then may this process restore the terminal
// without the server still writing to it. A second is all it waits.
func leave(conn net.Conn) {
	uc, ok := conn.(*net.UnixConn)
	if !ok || uc.CloseWrite() != nil {
		conn.Close()
		return
	}
	_ = uc.SetReadDeadline(time.Now().Add(time.Second))
}

// blocking is the blocking mode of a terminal's descriptors as they were.
// The server reads and writes a terminal handed over without blocking, and
// the mode belongs to the file description, which the shell shares: left
// non-blocking, the shell's next read would fail with EAGAIN.
type blocking map[int]bool

func saveBlocking(files ...*os.File) blocking {
	b := blocking{}
	for _, f := range files {
		fd := int(f.Fd())
		if fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0); err == nil {
			b[fd] = fl&unix.O_NONBLOCK == 0
		}
	}
	return b
}

// restore makes the descriptors that were blocking block again.
func (b blocking) restore() {
	for fd, was := range b {
		if was {
			_ = syscall.SetNonblock(fd, false)
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
