package server

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
	"golang.org/x/term"

	mxclient "github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
)

// terminal is a pty standing in for a person's terminal: the test holds
// the master, as a terminal emulator does, and hands the slave over.
type terminal struct {
	ptm, pts *os.File
	fd       int          // pts's: pts.Fd() would make it blocking each time
	seen     bytes.Buffer // what the master has read so far
}

func newTerminal(t *testing.T) *terminal {
	t.Helper()
	ptm, pts, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	// A copy of the master on the poller, so reads can time out (pty.Open
	// leaves it blocking).
	fd, err := unix.FcntlInt(ptm.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err == nil {
		err = syscall.SetNonblock(fd, true)
	}
	ptm.Close()
	if err != nil {
		t.Fatal(err)
	}
	ptm = os.NewFile(uintptr(fd), "ptm")
	t.Cleanup(func() { ptm.Close(); pts.Close() })
	// Raw, as the attaching client makes it: the line discipline must not
	// echo what the test types.
	tm := &terminal{ptm: ptm, pts: pts, fd: int(pts.Fd())}
	if _, err := term.MakeRaw(tm.fd); err != nil {
		t.Fatal(err)
	}
	return tm
}

// readUntil reads the master until what it has read since the last call
// holds want.
func (tm *terminal) readUntil(t *testing.T, want string) string {
	t.Helper()
	start := tm.seen.Len()
	buf := make([]byte, 32<<10)
	_ = tm.ptm.SetReadDeadline(time.Now().Add(15 * time.Second))
	for !strings.Contains(tm.seen.String()[start:], want) {
		n, err := tm.ptm.Read(buf)
		tm.seen.Write(buf[:n])
		if err != nil {
			t.Fatalf("the terminal never showed %q: %v; it showed %q", want, err, lastOf(tm.seen.String()[start:]))
		}
	}
	return tm.seen.String()[start:]
}

func lastOf(s string) string { return s[max(0, len(s)-300):] }

// blocking reports whether the terminal's file description is blocking.
func (tm *terminal) blocking(t *testing.T) bool {
	t.Helper()
	fl, err := unix.FcntlInt(uintptr(tm.fd), unix.F_GETFL, 0)
	if err != nil {
		t.Fatal(err)
	}
	return fl&unix.O_NONBLOCK == 0
}

// opened counts this process's descriptors of the terminal: the test's own
// is one, the server's copies are the rest.
func (tm *terminal) opened(t *testing.T) int {
	t.Helper()
	return countLinks(t, "/proc/self/fd", tm.pts.Name())
}

// countLinks counts the descriptors in a /proc fd directory open on path.
func countLinks(t *testing.T, dir, path string) int {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if dst, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil && dst == path {
			n++
		}
	}
	return n
}

// offerTerminal attaches over the socket with a hello that offers the
// terminal; the welcome must take it.
func offerTerminal(t *testing.T, s *Server) (*net.UnixConn, io.Reader) {
	t.Helper()
	conn, err := net.Dial("unix", s.sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	lr, w, err := mxclient.Handshake(conn, proto.Hello{Version: proto.Version, Mode: proto.ModeAttach,
		Term: "xterm-256color", Cols: 80, Rows: 24, Tty: true})
	if err != nil {
		t.Fatal(err)
	}
	if !w.Tty {
		t.Fatalf("the welcome did not take the terminal offered: %+v", w)
	}
	return conn.(*net.UnixConn), lr.Reader()
}

// handOver attaches tm's terminal as `melmux attach` does.
func handOver(t *testing.T, s *Server, tm *terminal) (*net.UnixConn, io.Reader) {
	t.Helper()
	conn, frames := offerTerminal(t, s)
	if _, _, err := conn.WriteMsgUnix([]byte{proto.HandoverTty}, syscall.UnixRights(tm.fd, tm.fd), nil); err != nil {
		t.Fatal(err)
	}
	return conn, frames
}

// nextFrame reads the next frame, failing the test on a broken stream.
func nextFrame(t *testing.T, conn net.Conn, frames io.Reader) (byte, string) {
	t.Helper()
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	typ, p, err := proto.ReadFrame(frames, nil)
	if err != nil {
		t.Fatalf("the frames ended: %v", err)
	}
	return typ, string(p)
}

// A terminal handed over is drawn on and read by the server itself; on
// detach the server restores it, lets go of it (blocking again, its copies
// closed), and only then says why over the connection.
func TestHandedOverTerminalIsTheServers(t *testing.T) {
	t.Parallel()
	s, c := startServer(t)
	call(t, c, "new", proto.NewParams{Command: []string{"cat"}}, nil)
	tm := newTerminal(t)
	if !tm.blocking(t) || tm.opened(t) != 1 {
		t.Fatalf("before the handover: blocking %v, %d descriptors", tm.blocking(t), tm.opened(t))
	}
	conn, frames := handOver(t, s, tm)
	tm.readUntil(t, "0:cat(1)")
	waitClients(t, c, 1)
	if _, direct := onlyClient(t, s).tty.(*termTty); !direct {
		t.Fatal("the client's terminal was not taken over")
	}

	// Typed at the terminal, read by no client process.
	if _, err := tm.ptm.Write([]byte("typed-at-the-terminal")); err != nil {
		t.Fatal(err)
	}
	if !waitFor(func() bool { return strings.Contains(shownText(t, s, 1), "typed-at-the-terminal") }) {
		t.Fatalf("the pane never got the keys:\n%s", shownText(t, s, 1))
	}

	// Programs started while the server holds the terminal do not get it.
	call(t, c, "open_pane", proto.OpenPaneParams{Argv: []string{"sleep", "600"}, NoWait: true}, nil)
	var panes []proto.PaneInfo
	call(t, c, "list_panes", nil, &panes)
	if len(panes) != 2 || panes[1].PID == 0 {
		t.Fatalf("the panes: %+v", panes)
	}
	if n := countLinks(t, fmt.Sprintf("/proc/%d/fd", panes[1].PID), tm.pts.Name()); n != 0 {
		t.Errorf("a pane's program inherited %d descriptors of the client's terminal", n)
	}

	call(t, c, "detach", nil, nil)
	typ, reason := nextFrame(t, conn, frames)
	if typ != proto.FrameExit || reason != "detached (from session t)" {
		t.Fatalf("after detach: a frame %q %q, want the exit frame", typ, reason)
	}
	// Written before the exit frame was sent: in the terminal's buffer now.
	tm.readUntil(t, "\x1b[?1049l")
	if !tm.blocking(t) {
		t.Error("the terminal was left non-blocking: the shell's next read would fail with EAGAIN")
	}
	if n := tm.opened(t); n != 1 {
		t.Errorf("the server still has %d descriptors of the terminal after the client left", n-1)
	}
}

// A client killed while attached ends its connection and nothing else: the
// server must let go of the terminal at once (the shell the client ran in
// has it now), and draw nothing more on it. The session goes on.
func TestKilledClientsTerminalIsLetGo(t *testing.T) {
	t.Parallel()
	s, c := startServer(t)
	call(t, c, "new", proto.NewParams{Command: []string{"cat"}}, nil)
	tm := newTerminal(t)
	conn, _ := handOver(t, s, tm)
	tm.readUntil(t, "0:cat(1)")
	waitClients(t, c, 1)

	conn.Close() // all a SIGKILL does to the session
	waitClients(t, c, 0)
	if n := tm.opened(t); n != 1 {
		t.Errorf("the server still has %d descriptors of the terminal after the client was killed", n-1)
	}
	if !tm.blocking(t) {
		t.Error("the terminal was left non-blocking after the client was killed")
	}
	call(t, c, "send_keys", proto.SendKeysParams{Pane: 1, Text: "after-the-kill", Literal: true}, nil)
	if !waitFor(func() bool { return strings.Contains(shownText(t, s, 1), "after-the-kill") }) {
		t.Fatalf("the session did not go on:\n%s", shownText(t, s, 1))
	}
	// The shell's own output, after: what the server drew since is before it.
	if _, err := tm.pts.Write([]byte("the-shell-again")); err != nil {
		t.Fatal(err)
	}
	// Nor did the screen's restore reach it (the shell's own now).
	if got := tm.readUntil(t, "the-shell-again"); strings.Contains(got, "after-the-kill") || strings.Contains(got, "\x1b[?1049l") {
		t.Fatalf("the server wrote to the terminal after its client was killed: %q", lastOf(got))
	}
}

// A terminal that stops taking output is dropped as a stalled connection
// is: the server lets go of it, and the client is told why over the
// connection, with the rest of what was cut short and a reset to write.
func TestStalledTerminalIsDroppedWithTheReason(t *testing.T) {
	t.Parallel()
	s, c := startServer(t, func(cfg *Config) { cfg.tune.slowClient = 300 * time.Millisecond })
	flood := `yes "a line of a flood that fills every frame"`
	call(t, c, "new", proto.NewParams{Command: []string{"sh", "-c", flood}}, nil)
	tm := newTerminal(t)
	conn, frames := handOver(t, s, tm)
	// The master is never read: the pty's buffer fills and writes stall.
	waitClientsWithin(t, c, 0, 2*time.Minute) // as in TestSlowClientIsToldWhyItWasDropped
	var last string
	for {
		typ, p := nextFrame(t, conn, frames)
		if typ == proto.FrameExit {
			if p != "detached: too slow to keep up" {
				t.Fatalf("exit reason %q", p)
			}
			break
		}
		if typ != proto.FrameOutput {
			t.Fatalf("a frame of type %q: the stream is out of step", typ)
		}
		last = p
	}
	if last != proto.ResetModes {
		t.Fatalf("the last output before the exit is %q, want the terminal reset", last)
	}
	if n := tm.opened(t); n != 1 {
		t.Errorf("the server still has %d descriptors of the stalled terminal", n-1)
	}
	if !tm.blocking(t) {
		t.Error("the stalled terminal was left non-blocking")
	}
}

// A client whose handover failed says so with HandoverNone and is served
// as a proxy: its input frames are typed, its output comes in frames.
func TestClientKeepingItsTerminalIsAProxy(t *testing.T) {
	t.Parallel()
	s, c := startServer(t)
	call(t, c, "new", proto.NewParams{Command: []string{"cat"}}, nil)
	conn, frames := offerTerminal(t, s)
	if _, err := conn.Write([]byte{proto.HandoverNone}); err != nil {
		t.Fatal(err)
	}
	if typ, p := nextFrame(t, conn, frames); typ != proto.FrameOutput {
		t.Fatalf("a frame %q %q, want the screen drawn in output frames", typ, p)
	}
	if err := proto.WriteFrame(conn, proto.FrameInput, []byte("typed-through-the-proxy")); err != nil {
		t.Fatal(err)
	}
	if !waitFor(func() bool { return strings.Contains(shownText(t, s, 1), "typed-through-the-proxy") }) {
		t.Fatalf("the pane never got the keys:\n%s", shownText(t, s, 1))
	}
	if _, proxy := onlyClient(t, s).tty.(*connTty); !proxy {
		t.Fatal("the client is not served as a proxy")
	}
}

// A handover message that is not one is refused, saying what was wrong and
// what is allowed, and whatever descriptors came with it are closed.
func TestBadHandoverIsRefused(t *testing.T) {
	t.Parallel()
	s, c := startServer(t)
	call(t, c, "new", proto.NewParams{Command: []string{"sleep", "600"}}, nil)
	tm := newTerminal(t)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	tfd, rfd, wfd := tm.fd, int(pr.Fd()), int(pw.Fd())
	for _, tc := range []struct {
		name string
		msg  []byte
		fds  []int
		want string
	}{
		{"a wrong byte", []byte{'X'}, nil, `the handover message is "X" with 0 descriptors; want one byte, 'T' with two descriptors or 'P' alone`},
		{"one descriptor", []byte{proto.HandoverTty}, []int{tfd}, `"T" with 1 descriptors`},
		{"descriptors with HandoverNone", []byte{proto.HandoverNone}, []int{tfd, tfd}, `"P" with 2 descriptors`},
		{"three descriptors", []byte{proto.HandoverTty}, []int{tfd, tfd, tfd}, "more than two descriptors"},
		{"a pipe", []byte{proto.HandoverTty}, []int{rfd, wfd}, "a descriptor handed over is not a terminal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, frames := offerTerminal(t, s)
			var oob []byte
			if tc.fds != nil {
				oob = syscall.UnixRights(tc.fds...)
			}
			if _, _, err := conn.WriteMsgUnix(tc.msg, oob, nil); err != nil {
				t.Fatal(err)
			}
			typ, reason := nextFrame(t, conn, frames)
			if typ != proto.FrameExit || !strings.HasPrefix(reason, "attach: ") || !strings.Contains(reason, tc.want) {
				t.Fatalf("a frame %q %q, want an exit frame saying %q", typ, reason, tc.want)
			}
			if n := tm.opened(t); n != 1 {
				t.Errorf("the server kept %d descriptors of a refused handover", n-1)
			}
		})
	}
	waitClients(t, c, 0)
}

// The handover message must be the first thing read from the connection
// after the welcome: a client that sends bytes before it is welcomed would
// have them read into the hello's buffer, out of step, so it is refused.
func TestBytesBeforeTheWelcomeAreRefused(t *testing.T) {
	t.Parallel()
	s, _ := startServer(t)
	conn, err := net.Dial("unix", s.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte(`{"version":1,"mode":"attach","cols":80,"rows":24,"tty":true}` + "\nT")); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	line, err := proto.NewLineReader(conn, proto.MaxLine).ReadLine()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(line), "was followed by more bytes (1) before the welcome") {
		t.Fatalf("the welcome: %s", line)
	}
	if _, err := conn.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Fatalf("the connection after the refusal: %v", err)
	}
}
