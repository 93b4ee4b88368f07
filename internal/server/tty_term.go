package server

import (
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/melmux/melmux/internal/proto"
)

// termTty is the tcell.Tty of a client that handed its terminal over: the
// server reads and writes the terminal itself, as tmux does, so a key and
// its echo cross no process but the server and the pane's program (through
// a proxy client, each crossed the client's process as well, which on a
// busy machine waits for a CPU twice per key). Only the size still comes
// from the client, in resize frames: SIGWINCH reaches the client.
//
// The terminal is read and written through Go's poller, so Drain can wake
// tcell's reader with a read deadline and a stalled terminal meets the same
// slow-client limit as a stalled connection.
type termTty struct {
	ttyArea
	ttyOut
	wmu     sync.Mutex // guards writes to out (the lock of ttyOut)
	in, out *os.File   // the terminal, non-blocking, on the poller
	handed  []handedFd // the descriptors as the client handed them over

	// hold is called before each read: it waits while the pane typed into
	// is behind, so what is typed meanwhile stays in the terminal as a
	// kernel holds input. typed is called for each piece of input read.
	hold, typed func()
}

var _ clientTty = (*termTty)(nil)

// handedFd is a descriptor a client handed over. Its file description is
// shared with the client and the user's shell: the server puts back the
// blocking mode it changed as it lets go of the terminal.
type handedFd struct {
	fd      int
	blocked bool // it was blocking: the server set O_NONBLOCK
}

// newTermTty takes the terminal of a client of cols x rows: in and out are
// the descriptors the client handed over, owned from now on by the tty
// (Close lets go of them).
func newTermTty(in, out int, cols, rows int) (*termTty, error) {
	t := &termTty{ttyArea: newTtyArea(cols, rows),
		handed: []handedFd{{fd: in}, {fd: out}}}
	for i := range t.handed {
		h := &t.handed[i]
		fl, err := unix.FcntlInt(uintptr(h.fd), unix.F_GETFL, 0)
		if err == nil && fl&unix.O_NONBLOCK == 0 {
			err = syscall.SetNonblock(h.fd, true)
			h.blocked = err == nil
		}
		if err != nil {
			t.release()
			return nil, fmt.Errorf("the terminal's descriptor %d: %w", h.fd, err)
		}
	}
	// The poller gets copies: once they are closed (and any read or write
	// on them has returned), the originals put the blocking mode back.
	var files [2]*os.File
	for i, fd := range []int{in, out} {
		dup, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
		if err != nil {
			for _, f := range files[:i] {
				f.Close()
			}
			t.release()
			return nil, fmt.Errorf("copy the terminal's descriptor %d: %w", fd, err)
		}
		files[i] = os.NewFile(uintptr(dup), "client terminal")
	}
	t.in, t.out = files[0], files[1]
	t.ttyOut.init(t.out, false, &t.wmu)
	return t, nil
}

func closeFds(fds ...int) {
	for _, fd := range fds {
		_ = syscall.Close(fd)
	}
}

// release puts back the blocking mode of the handed-over descriptors and
// closes them: the terminal is the user's shell's again.
func (t *termTty) release() {
	for _, h := range t.handed {
		if h.blocked {
			_ = syscall.SetNonblock(h.fd, false)
		}
	}
	for _, h := range t.handed {
		_ = syscall.Close(h.fd)
	}
	t.handed = nil
}

func (t *termTty) Start() error {
	_ = t.ttyArea.Start()
	return t.in.SetReadDeadline(time.Time{})
}

// Drain wakes tcell's reader, held back or waiting for the terminal, so the
// screen can shut down (Fini) and restore the terminal.
func (t *termTty) Drain() error {
	_ = t.ttyArea.Drain()
	return t.in.SetReadDeadline(time.Now())
}

func (t *termTty) Read(p []byte) (int, error) {
	if t.hold != nil {
		t.hold()
	}
	n, err := t.in.Read(p)
	if n > 0 && t.typed != nil {
		t.typed()
	}
	return n, err
}

// Close lets go of the terminal at once: a read or write under way returns,
// none reaches the terminal after, and the terminal's blocking mode is put
// back. Called when the screen is finished, or as soon as the client's
// connection ends (the client was killed: the user's shell has the terminal
// now).
func (t *termTty) Close() error {
	if !t.shut() {
		return nil
	}
	_ = t.ttyArea.Drain()
	// Closing the poller's copies waits for the reads and writes under way,
	// which are non-blocking: only then may the terminal block again. The
	// output goes first: tcell's reader, failing on a closed input, makes
	// the loop finish the screen, whose restore must find the output closed.
	_ = t.out.Close()
	_ = t.in.Close()
	t.release()
	return nil
}

// handoverWait bounds the wait for the handover message after the welcome.
const handoverWait = 10 * time.Second

// errNoHandover: the client kept its terminal (HandoverNone).
var errNoHandover = errors.New("the client keeps its terminal")

// readHandover reads the handover message, the first thing on conn after a
// welcome that took the client's terminal (nothing is buffered before it:
// serveAttach checks), and returns the terminal's two descriptors, or
// errNoHandover, or what was wrong with the message.
func readHandover(conn *net.UnixConn) (in, out int, err error) {
	var b [1]byte
	oob := make([]byte, syscall.CmsgSpace(2*4))
	_ = conn.SetReadDeadline(time.Now().Add(handoverWait))
	n, oobn, flags, _, err := conn.ReadMsgUnix(b[:], oob)
	_ = conn.SetReadDeadline(time.Time{})
	if err != nil {
		return -1, -1, fmt.Errorf("no handover message: %w", err)
	}
	var fds []int
	msgs, err := syscall.ParseSocketControlMessage(oob[:oobn])
	if err == nil {
		for i := range msgs {
			got, perr := syscall.ParseUnixRights(&msgs[i])
			if perr != nil {
				err = perr
			}
			fds = append(fds, got...)
		}
	}
	fail := func(format string, args ...any) (int, int, error) {
		closeFds(fds...)
		return -1, -1, fmt.Errorf(format, args...)
	}
	want := fmt.Sprintf("one byte, %q with two descriptors or %q alone", proto.HandoverTty, proto.HandoverNone)
	switch {
	case err != nil:
		return fail("the handover message's descriptors: %w", err)
	case flags&syscall.MSG_CTRUNC != 0:
		return fail("the handover message carried more than two descriptors; want %s", want)
	case n == 1 && b[0] == proto.HandoverNone && len(fds) == 0:
		return -1, -1, errNoHandover
	case n != 1 || b[0] != proto.HandoverTty || len(fds) != 2:
		return fail("the handover message is %q with %d descriptors; want %s", b[:n], len(fds), want)
	}
	for _, fd := range fds {
		if _, err := unix.IoctlGetTermios(fd, unix.TCGETS); err != nil {
			return fail("a descriptor handed over is not a terminal: %w", err)
		}
	}
	return fds[0], fds[1], nil
}
