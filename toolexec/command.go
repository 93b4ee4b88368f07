package toolexec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Output limits of run_command: the first and last halves of the cap are
// kept, since a build's first error and a test run's summary are both worth
// more than the middle.
const (
	commandOutputCap = 30000
	// commandDrainGrace is how long output may keep arriving after the shell
	// exits, from background processes that inherited the pipe, before they
	// are killed with the process group.
	commandDrainGrace = 2 * time.Second
	// killWait bounds how long a kill waits for the killed processes to be
	// gone; only a process stuck in the kernel (state D) outlasts SIGKILL.
	killWait = 2 * time.Second
)

// commandTimeout picks the limit: the executor's, else the environment's,
// else the default.
func (e *Executor) commandTimeout() (time.Duration, error) {
	if e.CommandTimeout > 0 {
		return e.CommandTimeout, nil
	}
	if v := strings.TrimSpace(e.getenv(CommandTimeoutEnv)); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return 0, fmt.Errorf("%s=%q is not a positive Go duration such as 90s or 10m", CommandTimeoutEnv, v)
		}
		return d, nil
	}
	return DefaultCommandTimeout, nil
}

func (e *Executor) runCommand(ctx context.Context, a args) Result {
	command := a.str("command")
	if strings.TrimSpace(command) == "" {
		return errResult("run_command: command is empty")
	}
	timeout, err := e.commandTimeout()
	if err != nil {
		return errResult("run_command: %v", err)
	}
	out, err := RunShell(ctx, e.root, command, timeout)
	if err != nil {
		return errResult("run_command: %v", err)
	}
	text := fmt.Sprintf("exit_code=%d\n%s", out.ExitCode, out.Output)
	if out.Note != "" {
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		text += "[" + out.Note + "]\n"
	}
	return Result{Text: text, IsError: out.TimedOut || out.Canceled}
}

// ShellResult is the outcome of RunShell.
type ShellResult struct {
	ExitCode int    // the shell's status; 128+N when killed by signal N
	Output   string // stdout and stderr interleaved as written, head and tail kept
	Note     string // what happened besides a normal exit (timeout, signal, cut output)
	TimedOut bool
	Canceled bool
}

// RunShell runs command with sh -c in dir, stdin from /dev/null, stdout and
// stderr on one pipe so their order is kept. At the timeout (or when ctx
// ends) every process the command started is killed: with a cgroup of its
// own where the system allows one, else found by process group, descent
// and an inherited environment variable (see procs_linux.go). A watchdog
// process kills them too if melmux itself dies first, even by SIGKILL.
func RunShell(ctx context.Context, dir, command string, timeout time.Duration) (ShellResult, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return ShellResult{}, fmt.Errorf("creating output pipe: %w", err)
	}
	procs := newProcTracker()
	defer procs.close()
	// PR_SET_PDEATHSIG fires when the thread that started the shell ends,
	// not the process (go.dev/issue/27505). Go ends a thread only when a
	// goroutine locked to it exits; holding this goroutine on it until the
	// command is over keeps that from happening to the starting thread.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cmd, err := startShell(procs, dir, command, w)
	w.Close() // the child holds its own copy; EOF comes when every holder exits
	if err != nil {
		r.Close()
		return ShellResult{}, err
	}
	procs.started(cmd.Process.Pid)
	dog := startWatchdog(procs)
	defer dog.disarm()

	capture := newHeadTail(commandOutputCap)
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		capture.ReadFrom(r) // ends at EOF or at the read deadline set below
	}()
	waitDone := make(chan error, 1)
	go func() { waitDone <- cmd.Wait() }()

	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var res ShellResult
	var waitErr error
	var survivors []string
	killed := false
	killAll := func() {
		killed = true
		survivors = procs.kill()
	}
	select {
	case waitErr = <-waitDone:
	case <-timer.C:
		res.TimedOut = true
		killAll()
		waitErr = <-waitDone
	case <-ctx.Done():
		res.Canceled = true
		killAll()
		waitErr = <-waitDone
	}
	var notes []string
	// Background children may still hold the pipe: give them a moment to
	// finish writing, then end them so the call returns. The deadline
	// guarantees the reader stops.
	r.SetReadDeadline(time.Now().Add(commandDrainGrace)) // Best effort: pipes are pollable on unix.
	<-readDone
	r.Close()
	if errors.Is(capture.readErr, os.ErrDeadlineExceeded) && !killed {
		killAll()
		notes = append(notes, fmt.Sprintf("the command exited but processes it started kept its output open; %s later every process it started was killed", commandDrainGrace))
	}

	res.ExitCode = exitCode(cmd, waitErr)
	switch {
	case res.TimedOut:
		notes = append(notes, fmt.Sprintf("command timed out after %s; every process it started was killed", timeout))
	case res.Canceled:
		notes = append(notes, "command canceled; every process it started was killed")
	default:
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			notes = append(notes, fmt.Sprintf("killed by signal %s", ws.Signal()))
		}
	}
	if killed {
		if len(survivors) > 0 {
			notes = append(notes, fmt.Sprintf("but %d still alive %s after SIGKILL: %s", len(survivors), killWait, strings.Join(survivors, ", ")))
		}
		if l := procs.limits(); l != "" {
			notes = append(notes, l)
		}
	}
	res.Output = capture.String()
	if capture.dropped > 0 {
		notes = append(notes, fmt.Sprintf("output cut: %d bytes in all, %d bytes from the middle left out", capture.total, capture.dropped))
	}
	res.Note = strings.Join(notes, "; ")
	return res, nil
}

// startShell starts sh -c command with output to w, in the tracker's cgroup
// when it has one; a kernel that refuses that gets a second try without.
func startShell(procs *procTracker, dir, command string, w *os.File) (*exec.Cmd, error) {
	for {
		cmd := exec.Command("sh", "-c", command)
		cmd.Dir = dir
		cmd.Env = append(withoutEnv(os.Environ(), RunIDEnv), RunIDEnv+"="+procs.id)
		cmd.Stdin = nil // /dev/null
		cmd.Stdout = w
		cmd.Stderr = w
		cmd.SysProcAttr = procs.sysProcAttr()
		err := cmd.Start()
		if err == nil {
			return cmd, nil
		}
		if !procs.cgrouped() {
			return nil, fmt.Errorf("starting sh: %w", err)
		}
		procs.dropCgroup(err)
	}
}

func withoutEnv(env []string, name string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// watchdog is a small sh process that kills the command's processes if
// melmux dies while the command runs (watchdogScript). disarm tells it all
// is well and reaps it.
type watchdog struct {
	cmd *exec.Cmd
	in  io.WriteCloser
}

func startWatchdog(procs *procTracker) *watchdog {
	cmd := exec.Command("sh", "-c", watchdogScript, "melmux-watchdog", procs.cgroupDir(), strconv.Itoa(procs.shell), procs.id)
	cmd.Env = withoutEnv(os.Environ(), RunIDEnv)
	cmd.SysProcAttr = watchdogAttr()
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil
	}
	if err := cmd.Start(); err != nil {
		return nil // Best effort: PR_SET_PDEATHSIG still ends the shell.
	}
	return &watchdog{cmd: cmd, in: in}
}

func (d *watchdog) disarm() {
	if d == nil {
		return
	}
	io.WriteString(d.in, "done\n") // Best effort: if it is gone, there is nothing to stop.
	d.in.Close()
	d.cmd.Wait()
}

func exitCode(cmd *exec.Cmd, waitErr error) int {
	st := cmd.ProcessState
	if st == nil {
		return -1
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return st.ExitCode()
}

// headTail keeps the first and last halves of a byte stream up to a cap,
// counting what falls between.
type headTail struct {
	cap     int
	head    []byte
	tail    []byte // ring buffer of the last cap/2 bytes once head is full
	tailPos int    // next write position in tail once it is full
	total   int
	dropped int   // bytes between head and tail that were not kept
	readErr error // the reader's last error other than EOF
}

func newHeadTail(limit int) *headTail { return &headTail{cap: limit} }

func (h *headTail) Write(p []byte) (int, error) {
	n := len(p)
	h.total += n
	half := h.cap / 2
	if room := half - len(h.head); room > 0 {
		k := min(room, len(p))
		h.head = append(h.head, p[:k]...)
		p = p[k:]
	}
	tailCap := h.cap - half
	if room := tailCap - len(h.tail); room > 0 {
		k := min(room, len(p))
		h.tail = append(h.tail, p[:k]...)
		p = p[k:]
	}
	if len(p) >= tailCap {
		p = p[len(p)-tailCap:]
	}
	// The ring is full: overwrite the oldest bytes, wrapping at most once.
	for len(p) > 0 {
		k := copy(h.tail[h.tailPos:], p)
		h.tailPos = (h.tailPos + k) % tailCap
		p = p[k:]
	}
	h.dropped = h.total - len(h.head) - len(h.tail)
	return n, nil
}

// ReadFrom records the reader's final error so a read deadline can be told
// apart from EOF.
func (h *headTail) ReadFrom(r io.Reader) (int64, error) {
	buf := make([]byte, 32<<10)
	var n int64
	for {
		k, err := r.Read(buf)
		if k > 0 {
			h.Write(buf[:k])
			n += int64(k)
		}
		if err != nil {
			if err != io.EOF {
				h.readErr = err
			}
			return n, nil
		}
	}
}

func (h *headTail) String() string {
	if h.dropped == 0 {
		return string(h.head) + string(h.tail)
	}
	tail := append(append([]byte(nil), h.tail[h.tailPos:]...), h.tail[:h.tailPos]...)
	return fmt.Sprintf("%s\n[... %d bytes left out ...]\n%s", h.head, h.dropped, tail)
}
