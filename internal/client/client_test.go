package client

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/testexec"
	"github.com/melmux/melmux/internal/testreq"
)

// TestMain lets this test binary stand in for a server of another user:
// with MELMUX_TEST_FAKE_SERVER=SOCK it listens there, says "ready", and for
// its one connection prints how many bytes the client sent before leaving.
func TestMain(m *testing.M) {
	if sock := os.Getenv("MELMUX_TEST_FAKE_SERVER"); sock != "" {
		os.Exit(fakeServer(sock))
	}
	os.Exit(m.Run())
}

func fakeServer(sock string) int {
	ln, err := net.Listen("unix", sock)
	if err != nil {
		fmt.Println("listen:", err)
		return 1
	}
	if err := os.Chmod(sock, 0o777); err != nil { // anyone may connect: the attacker wants them to
		fmt.Println("chmod:", err)
		return 1
	}
	fmt.Println("ready")
	c, err := ln.Accept()
	if err != nil {
		return 1
	}
	_ = proto.WriteJSON(c, proto.Welcome{Version: proto.Version, Session: "main"})
	n, _ := io.Copy(io.Discard, c)
	fmt.Println("received", n)
	return 0
}

// A server that refuses the peer may answer and close before the hello is
// written: the client reports the refusal, not the broken pipe.
func TestHandshakeReportsTheRefusal(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "s.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		_ = proto.WriteJSON(c, proto.Welcome{Version: proto.Version,
			Error: proto.Errorf("forbidden", "this session belongs to uid 1000; peer uid 1001 refused")})
		c.Close()
	}()
	conn, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	<-closed // the refusal is sent and the connection closed: the hello cannot go out
	_, _, err = Handshake(conn, proto.Hello{Version: proto.Version, Mode: proto.ModeControl})
	var pe *proto.Error
	if !errors.As(err, &pe) || pe.Code != "forbidden" || !strings.Contains(pe.Message, "peer uid 1001 refused") {
		t.Fatalf("got %v, want the server's refusal", err)
	}
}

// Nothing is sent through a socket in a directory others could write in.
func TestConnectRefusesAnUnsafeDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "open")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "main.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	// Each connection the socket gets, in the order they came, says what
	// it sent first: the client's would come before the sentinel's.
	first := make(chan string, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
			line, _ := bufio.NewReader(c).ReadString('\n')
			first <- line
			c.Close()
		}
	}()
	for _, dial := range []func() error{
		func() error { _, err := Dial(sock); return err },
		func() error { _, err := Attach(sock, os.Stdin, os.Stdout); return err },
	} {
		if err := dial(); !errors.Is(err, proto.ErrUnsafeSocket) || !strings.Contains(err.Error(), "mode 0777") {
			t.Fatalf("a socket in a 0777 directory: %v", err)
		}
	}
	sentinel, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer sentinel.Close()
	if _, err := sentinel.Write([]byte("sentinel\n")); err != nil {
		t.Fatal(err)
	}
	select {
	case line := <-first:
		if line != "sentinel\n" {
			t.Fatalf("the client connected to a socket in an unsafe directory (it sent %q)", line)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the sentinel's connection was never accepted")
	}
}

// A server running as another user gets nothing from the client: not the
// hello, not a keystroke. (Root can run one; other users skip.)
func TestConnectRefusesAServerOfAnotherUser(t *testing.T) {
	testreq.Root(t, "to run a server as another uid")
	// A sticky directory everyone may write in, as /tmp, reachable by
	// uid 65534, holding a copy of this binary it may run.
	base, err := os.MkdirTemp("", "mxc")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	if err := os.Chmod(base, 0o777|fs.ModeSticky); err != nil {
		t.Fatal(err)
	}
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(base, "fake")
	testexec.Write(t, bin, self)
	sock := filepath.Join(base, "main.sock")
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "MELMUX_TEST_FAKE_SERVER="+sock)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	lines := bufio.NewScanner(out)
	if !lines.Scan() || lines.Text() != "ready" {
		t.Fatalf("the fake server did not start: %q", lines.Text())
	}
	_, err = Dial(sock)
	if !errors.Is(err, proto.ErrUnsafeSocket) || !strings.Contains(err.Error(), "runs as uid 65534, not as you (uid 0)") {
		t.Fatalf("a server of uid 65534: %v", err)
	}
	got := make(chan string, 1)
	go func() {
		lines.Scan()
		got <- lines.Text()
	}()
	select {
	case line := <-got:
		if line != "received 0" {
			t.Fatalf("the other user's server got something: %s", line)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the client kept its connection to the other user's server open")
	}
}

// An attached client whose connection ends with no exit frame says whether
// the session lives on (it was dropped) or the server is gone.
func TestAttachTellsALostConnectionFromAnEndedSession(t *testing.T) {
	for _, alive := range []bool{true, false} {
		sock := filepath.Join(t.TempDir(), "s.sock")
		ln, err := net.Listen("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				lr := proto.NewLineReader(c, proto.MaxLine)
				var h proto.Hello
				if line, err := lr.ReadLine(); err == nil {
					_ = json.Unmarshal(line, &h)
				}
				_ = proto.WriteJSON(c, proto.Welcome{Version: proto.Version, Session: "work"})
				if h.Mode == proto.ModeAttach {
					if !alive {
						ln.Close()
					}
					c.Close() // no exit frame
					continue
				}
				go func() { _, _ = io.Copy(io.Discard, c); c.Close() }()
			}
		}()
		ptmx, tty, err := pty.Open()
		if err != nil {
			t.Fatal(err)
		}
		go func() { _, _ = io.Copy(io.Discard, ptmx) }()
		reason, err := Attach(sock, tty, tty)
		want := "detached: the connection was lost; session work goes on"
		if !alive {
			want = "server exited"
		}
		if err != nil || reason != want {
			t.Errorf("alive=%v: reason %q, %v; want %q", alive, reason, err, want)
		}
		tty.Close()
		ptmx.Close()
		ln.Close()
	}
}
