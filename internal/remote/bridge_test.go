package remote

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/proto"
)

var (
	buildOnce sync.Once
	builtDir  string
	buildErr  error
)

// binaries builds the real melmux binaries once: both ends of a link run
// them.
func binaries(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "melmux-remote-bin")
		if err != nil {
			buildErr = err
			return
		}
		builtDir = dir
		out, err := exec.Command("go", "build", "-o", dir+"/", "../../cmd/...").CombinedOutput()
		if err != nil {
			buildErr = &buildError{err, string(out)}
		}
	})
	if buildErr != nil {
		t.Fatalf("build melmux: %v", buildErr)
	}
	return builtDir
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }

// hostEnv is a private environment standing for a host's user: its own
// home, data and socket directories, none of the test runner's.
func hostEnv(t *testing.T) []string {
	t.Helper()
	home := t.TempDir()
	run, err := os.MkdirTemp("", "mxh")
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_RUNTIME_DIR=" + run, "XDG_STATE_HOME=" + home,
		"XDG_CONFIG_HOME=" + home, "XDG_DATA_HOME=" + filepath.Join(home, "data"), "XDG_CACHE_HOME=" + filepath.Join(home, "cache"),
		"SHELL=/bin/sh", "LANG=C.UTF-8"}
	t.Cleanup(func() {
		socks, _ := filepath.Glob(filepath.Join(run, "melmux-*", "*.sock"))
		for _, s := range socks {
			cmd := exec.Command(filepath.Join(builtDir, "melmux"), "kill-server", "-s", strings.TrimSuffix(filepath.Base(s), ".sock"))
			cmd.Env = env
			_ = cmd.Run()
		}
		os.RemoveAll(run)
	})
	return env
}

// pipeBridge is `melmux __bridge` on pipes, as ssh would run it.
type pipeBridge struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	frames chan frameIn
	done   chan error
	// kept are output frames ack passed over, which next gives first.
	kept []frameIn
}

func startBridge(t *testing.T, env []string, args ...string) *pipeBridge {
	t.Helper()
	cmd := exec.Command(filepath.Join(binaries(t), "melmux"), append([]string{"__bridge"}, args...)...)
	cmd.Env = env
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	b := &pipeBridge{t: t, cmd: cmd, in: in, frames: make(chan frameIn, 64), done: make(chan error, 1)}
	go readFrames(out, b.frames)
	go func() { b.done <- cmd.Wait() }()
	t.Cleanup(func() {
		in.Close()
		select {
		case <-b.done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
		}
	})
	return b
}

// next is the next frame that is not a ping. The 60 s are counted from
// the call: the bridge's pings, which it passes over, must not restart it.
func (b *pipeBridge) next() frameIn {
	b.t.Helper()
	if len(b.kept) > 0 {
		f := b.kept[0]
		b.kept = b.kept[1:]
		return f
	}
	deadline := time.After(60 * time.Second)
	for {
		select {
		case f := <-b.frames:
			if f.err != nil {
				b.t.Fatalf("the bridge's stream ended: %v", f.err)
			}
			if f.typ != framePing && f.typ != frameFore {
				return f
			}
		case <-deadline:
			b.t.Fatal("no frame from the bridge within 60s")
		}
	}
}

func (b *pipeBridge) send(typ byte, p []byte) {
	b.t.Helper()
	if err := proto.WriteFrame(b.in, typ, p); err != nil {
		b.t.Fatal(err)
	}
}

// outputUntil reads output frames, which must follow each other from
// offset from, until their bytes hold want; it returns the bytes and the
// offset after them.
func (b *pipeBridge) outputUntil(from int64, want string) ([]byte, int64) {
	b.t.Helper()
	var got []byte
	for !bytes.Contains(got, []byte(want)) {
		f := b.next()
		switch f.typ {
		case frameOutput:
			next, data, err := splitOffset(f.p)
			if err != nil {
				b.t.Fatal(err)
			}
			if next-int64(len(data)) != from {
				b.t.Fatalf("output frame of bytes %d-%d, after %d", next-int64(len(data)), next, from)
			}
			got, from = append(got, data...), next
		case frameAck:
		default:
			b.t.Fatalf("frame %q while waiting for %q in the output (so far %q)", f.typ, want, got)
		}
	}
	return got, from
}

func (b *pipeBridge) hello() hello {
	b.t.Helper()
	f := b.next()
	if f.typ != frameHello {
		b.t.Fatalf("first frame %q %q, want a hello", f.typ, f.p)
	}
	var h hello
	if err := json.Unmarshal(f.p, &h); err != nil {
		b.t.Fatal(err)
	}
	return h
}

// ack waits for the next ack; the output frames before it are kept for
// next, as the typed line's output may come ahead of its ack.
func (b *pipeBridge) ack() int64 {
	b.t.Helper()
	var passed []frameIn
	for {
		f := b.next()
		if f.typ == frameAck {
			b.kept = append(passed, b.kept...)
			n, _, _ := splitOffset(f.p)
			return n
		}
		if f.typ != frameOutput {
			b.t.Fatalf("frame %q while waiting for an ack", f.typ)
		}
		passed = append(passed, f)
	}
}

// The host's end over a plain pipe: a session started for the pane, its
// output from an offset, typing numbered so that what is sent again after
// a drop is typed once, output made while no bridge ran delivered whole on
// the next, resizes, the exit, and the session's end.
func TestBridgeOverAPipe(t *testing.T) {
	env := hostEnv(t)
	prog := `stty -echo; echo ready; while read l; do echo "got:$l"; [ "$l" = bye ] && exit 3; done`
	b := startBridge(t, env, "--stream", "s1", "--from", "-1", "--new", "-x", "60", "-y", "10", "h1", "--", "sh", "-c", prog)
	h := b.hello()
	if h.Session != "h1" || h.Received != 0 {
		t.Fatalf("hello %+v", h)
	}
	f := b.next()
	if f.typ != frameRepaint {
		t.Fatalf("first output %q, want a repaint", f.typ)
	}
	from, shown, _ := splitOffset(f.p)
	// Typing before stty -echo ran would be echoed, as output the acks'
	// wait passes over.
	if !bytes.Contains(shown, []byte("ready")) {
		_, from = b.outputUntil(from, "ready")
	}
	b.send(frameInput, withOffset(0, []byte("one\r")))
	if n := b.ack(); n != 4 {
		t.Fatalf("ack %d after 4 bytes", n)
	}
	_, from = b.outputUntil(from, "got:one")
	b.in.Close()
	<-b.done

	// While no bridge runs the pane goes on, and its output is kept.
	typed := exec.Command(filepath.Join(binaries(t), "melmux"), "send-keys", "-s", "h1", "-t", "1", "two<Enter>")
	typed.Env = env
	if out, err := typed.CombinedOutput(); err != nil {
		t.Fatalf("typing on the host: %v: %s", err, out)
	}

	b = startBridge(t, env, "--stream", "s1", "--from", itoa(from), "h1")
	if h := b.hello(); h.Received != 4 {
		t.Fatalf("the host took %d bytes of the stream, want 4", h.Received)
	}
	// The local side cannot know that "one" arrived: it sends it again.
	b.send(frameInput, withOffset(0, []byte("one\rthree\r")))
	got, from := b.outputUntil(from, "got:three")
	if !bytes.Contains(got, []byte("got:two")) {
		t.Fatalf("the output made between links is missing: %q", got)
	}
	if bytes.Contains(got, []byte("got:one")) {
		t.Fatalf("bytes sent again were typed twice: %q", got)
	}

	b.send(frameResize, proto.ResizePayload(70, 12))
	waitSize(t, env, "70x12")

	b.send(frameInput, withOffset(10, []byte("bye\r")))
	_, _ = b.outputUntil(from, "got:bye")
	for {
		f := b.next()
		if f.typ == frameOutput || f.typ == frameAck {
			continue
		}
		if f.typ != frameExit {
			t.Fatalf("frame %q, want the exit", f.typ)
		}
		var x proto.RemoteExit
		if err := json.Unmarshal(f.p, &x); err != nil || x.ExitCode == nil || *x.ExitCode != 3 {
			t.Fatalf("exit %s, want code 3", f.p)
		}
		break
	}
	b.send(frameKill, nil)
	select {
	case <-b.done:
	case <-time.After(30 * time.Second):
		t.Fatal("the bridge did not end after kill")
	}
	ls := exec.Command(filepath.Join(binaries(t), "melmux"), "ls")
	ls.Env = env
	if out, _ := ls.CombinedOutput(); strings.Contains(string(out), "h1 ") {
		t.Fatalf("the session outlived kill:\n%s", out)
	}
}

// waitSize waits for the host's pane to be cols x rows.
func waitSize(t *testing.T, env []string, size string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		cmd := exec.Command(filepath.Join(binaries(t), "melmux"), "list-panes", "-s", "h1")
		cmd.Env = env
		out, _ := cmd.CombinedOutput()
		if strings.Contains(string(out), size) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the pane is not %s:\n%s", size, out)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
