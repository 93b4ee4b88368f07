package pane

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

func start(t *testing.T, cols, rows int, argv ...string) *Pane {
	t.Helper()
	p, err := Start(Config{ID: 1, Argv: argv, Env: append(os.Environ(), "MELMUX_PANE=1"), Cols: cols, Rows: rows})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

func waitExit(t *testing.T, p *Pane) Status {
	t.Helper()
	select {
	case <-p.Exited():
	case <-time.After(60 * time.Second):
		t.Fatal("the process did not exit")
	}
	return p.Status()
}

func screenHas(p *Pane, s string) bool {
	for _, l := range p.Term().Lines() {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

func TestStartsAtItsSizeWithItsTerm(t *testing.T) {
	p := start(t, 73, 19, "sh", "-c", `echo "size=$(stty size) term=$TERM color=$COLORTERM pane=$MELMUX_PANE tmux=${TMUX:-none}"`)
	waitExit(t, p)
	want := "size=19 73 term=" + TERM + " color=truecolor pane=1 tmux=none"
	if !screenHas(p, want) {
		t.Fatalf("want %q on the screen, got %q", want, p.Term().Lines())
	}
}

func TestExitCodeAndSignal(t *testing.T) {
	p := start(t, 40, 5, "sh", "-c", "exit 7")
	st := waitExit(t, p)
	if st.Running || st.ExitCode == nil || *st.ExitCode != 7 || st.Signal != nil {
		t.Fatalf("exit 7: got %+v", st)
	}
	p = start(t, 40, 5, "sh", "-c", "kill -KILL $$")
	st = waitExit(t, p)
	if st.Signal == nil || *st.Signal != "SIGKILL" || st.ExitCode != nil {
		t.Fatalf("kill -KILL: got %+v", st)
	}
	if err := p.Write([]byte("x")); err != ErrExited {
		t.Fatalf("input to an exited pane: %v", err)
	}
}

// The last output is on the screen when the exit is reported, even for a
// lot of output written just before the end.
func TestExitComesAfterTheLastOutput(t *testing.T) {
	for i := 0; i < 3; i++ {
		p := start(t, 80, 24, "sh", "-c", "seq 1 20000")
		waitExit(t, p)
		if !screenHas(p, "20000") {
			t.Fatalf("run %d: exit reported before the last line was read: %q", i, p.Term().Lines())
		}
	}
}

// A background child keeps the PTY open; the exit is still reported, with
// the output the program wrote.
func TestBackgroundChildHoldingThePTY(t *testing.T) {
	p := start(t, 40, 5, "sh", "-c", "sleep 30 & echo parent-done")
	waitExit(t, p)
	if !screenHas(p, "parent-done") {
		t.Fatalf("screen: %q", p.Term().Lines())
	}
}

func TestResizeSignalsTheProgram(t *testing.T) {
	p := start(t, 40, 10, "sh", "-c", `trap 'echo "now $(stty size)"' WINCH; echo ready; while :; do sleep 0.05; done`)
	ctx := context.Background()
	deadline := time.Now().Add(10 * time.Second)
	for !screenHas(p, "ready") {
		if time.Now().After(deadline) {
			t.Fatalf("the program never started: %q", p.Term().Lines())
		}
		p.WaitSettled(ctx, time.Now(), 50*time.Millisecond, time.Second, 2*time.Second)
	}
	if err := p.Resize(50, 12); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(10 * time.Second)
	for !screenHas(p, "now 12 50") {
		if time.Now().After(deadline) {
			t.Fatalf("no SIGWINCH with the new size: %q", p.Term().Lines())
		}
		p.WaitSettled(ctx, time.Now(), 50*time.Millisecond, 200*time.Millisecond, time.Second)
	}
	if c, r := p.Size(); c != 50 || r != 12 {
		t.Fatalf("Size after resize: %dx%d", c, r)
	}
}

func TestSendKeysUsesTheNotation(t *testing.T) {
	p := start(t, 40, 5, "sh", "-c", "stty -echo; read line; echo got:$line")
	if _, err := p.SendKeys(context.Background(), "abc<BS>d\n"); err != nil {
		t.Fatal(err)
	}
	waitExit(t, p)
	if !screenHas(p, "got:abd") {
		t.Fatalf("screen: %q", p.Term().Lines())
	}
}

func TestBadConfig(t *testing.T) {
	if _, err := Start(Config{ID: 3, Argv: nil, Cols: 10, Rows: 10}); err == nil || !strings.Contains(err.Error(), "no command") {
		t.Errorf("empty argv: %v", err)
	}
	if _, err := Start(Config{ID: 3, Argv: []string{"sh"}, Cols: 0, Rows: 10}); err == nil || !strings.Contains(err.Error(), "not positive") {
		t.Errorf("zero size: %v", err)
	}
	if _, err := Start(Config{ID: 3, Argv: []string{"/no/such/thing"}, Cols: 10, Rows: 10}); err == nil || !strings.Contains(err.Error(), `cannot run "/no/such/thing"`) {
		t.Errorf("missing program: %v", err)
	}
}

// A pane's program starts with default signal handling (nothing ignored, as
// under tmux), and killing a pane ends the background children it left.
func TestSignalsAndLeftoverChildren(t *testing.T) {
	p := start(t, 60, 5, "sh", "-c", "grep SigIgn /proc/self/status")
	waitExit(t, p)
	if !screenHas(p, "SigIgn:") || !screenHas(p, " 0000000000000000") {
		t.Fatalf("the program inherited ignored signals: %q", p.Term().Lines())
	}
	p = start(t, 60, 5, "sh", "-c", "sleep 6671 & echo $!; exit 0")
	waitExit(t, p)
	var child int
	for _, l := range p.Term().Lines() {
		if _, err := fmt.Sscan(l, &child); err == nil {
			break
		}
	}
	if child == 0 {
		t.Fatalf("no child pid on screen: %q", p.Term().Lines())
	}
	p.Close()
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(child, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("the background child %d outlived its pane", child)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestPrefaceShowsAboveTheProgram(t *testing.T) {
	p, err := Start(Config{ID: 1, Argv: []string{"sh", "-c", "echo program-output"}, Env: os.Environ(), Cols: 40, Rows: 6,
		Preface: []byte("\x1b[38;5;244mwhere it was\r\n\x1b[0m")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	waitExit(t, p)
	lines := p.Term().Lines()
	if lines[0] != "where it was" || !strings.HasPrefix(lines[1], "program-output") {
		t.Fatalf("the preface should stand above the program's output: %q", lines)
	}
	if c := p.Term().Snapshot().Cells[0][0]; c.FG == p.Term().Snapshot().Cells[1][0].FG {
		t.Errorf("the preface should be drawn in its own colour: %+v", c)
	}
}

// TestReleaseChunks: a chunk given back is kept for the next read until
// ReleaseChunks, which lets the idle ones go.
func TestReleaseChunks(t *testing.T) {
	a := getChunk()
	if len(*a) != readChunk+readMin {
		t.Fatalf("a chunk of %d bytes, want %d", len(*a), readChunk+readMin)
	}
	putChunk(a)
	chunks.mu.Lock()
	kept := slices.Contains(chunks.free, a)
	chunks.mu.Unlock()
	if !kept {
		t.Fatal("a chunk given back was not kept")
	}
	ReleaseChunks()
	chunks.mu.Lock()
	n := len(chunks.free)
	chunks.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d idle chunks kept after ReleaseChunks", n)
	}
}
