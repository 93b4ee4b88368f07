package toolexec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
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
// stderr on one pipe so their order is kept. At the timeout (or when ctx ends)
// the whole process group is killed.
func RunShell(ctx context.Context, dir, command string, timeout time.Duration) (ShellResult, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return ShellResult{}, fmt.Errorf("creating output pipe: %w", err)
	}
	cmd := exec.Command("sh", "-c", command)
	cmd.Dir = dir
	cmd.Stdin = nil // /dev/null
	cmd.Stdout = w
	cmd.Stderr = w
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return ShellResult{}, fmt.Errorf("starting sh: %w", err)
	}
	w.Close() // the child holds its own copy; EOF comes when every holder exits
	pgid := cmd.Process.Pid
	killGroup := func() { syscall.Kill(-pgid, syscall.SIGKILL) } // Best effort: the group may be gone.

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
	select {
	case waitErr = <-waitDone:
	case <-timer.C:
		res.TimedOut = true
		killGroup()
		waitErr = <-waitDone
	case <-ctx.Done():
		res.Canceled = true
		killGroup()
		waitErr = <-waitDone
	}
	var notes []string
	// Background children may still hold the pipe: give them a moment to
	// finish writing, then end them so the call returns. The deadline
	// guarantees the reader stops.
	r.SetReadDeadline(time.Now().Add(commandDrainGrace)) // Best effort: pipes are pollable on unix.
	<-readDone
	r.Close()
	if errors.Is(capture.readErr, os.ErrDeadlineExceeded) {
		killGroup()
		if !res.TimedOut && !res.Canceled {
			notes = append(notes, "background processes still holding the output open after the command exited were killed")
		}
	}

	res.ExitCode = exitCode(cmd, waitErr)
	switch {
	case res.TimedOut:
		notes = append(notes, fmt.Sprintf("command timed out after %s; its whole process group was killed", timeout))
	case res.Canceled:
		notes = append(notes, "command canceled; its whole process group was killed")
	default:
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			notes = append(notes, fmt.Sprintf("killed by signal %s", ws.Signal()))
		}
	}
	res.Output = capture.String()
	if capture.dropped > 0 {
		notes = append(notes, fmt.Sprintf("output cut: %d bytes in all, %d bytes from the middle left out", capture.total, capture.dropped))
	}
	res.Note = strings.Join(notes, "; ")
	return res, nil
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
