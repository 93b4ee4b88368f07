package pane

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/melmux/melmux/pane/keys"
	"github.com/melmux/melmux/pane/term"
)

// TERM is the terminal type every pane's program sees (see the package doc).
const TERM = "screen-256color"

// Errors callers branch on.
var (
	// ErrExited is returned when input is sent to a pane whose process ended.
	ErrExited = errors.New("pane process has exited")
	// ErrInputFull is returned by Write when the program has taken none of
	// its waiting input for StallLimit: it is not reading.
	ErrInputFull = errors.New("the program is not reading its input")
	// ErrClosed is returned after Close.
	ErrClosed = errors.New("pane is closed")
)

// Config says what to run and how.
type Config struct {
	ID         int
	Argv       []string // the program and its arguments; must not be empty
	Dir        string
	Env        []string // the whole environment; TERM, COLORTERM are set over it
	Cols, Rows int
	Scrollback int // history lines; 0 means the emulator's default
	// OnOutput is called after each chunk of output reached the emulator. It
	// runs on the reader goroutine and must not block.
	OnOutput func()
	// Feed, when set, is called on the reader goroutine with each chunk of
	// output and must call apply, which feeds it to the emulator, once. It
	// may wait before it does: the server bounds how many panes parse at once
	// and holds other panes' floods back while a typed key's echo is on its
	// way.
	Feed func(apply func())
	// OnExit is called once when the process has ended and its status is known.
	OnExit func()
	Logf   func(format string, args ...any)
	// Preface is written into the emulator before the program starts, as
	// if the program had printed it: a restored pane's last screen, as a
	// reminder above its new prompt. It must hold text and SGR only (a
	// query would be answered to the program).
	Preface []byte
}

// Status is the state of the pane's process.
type Status struct {
	Running  bool
	PID      int
	ExitCode *int    // set once exited normally
	Signal   *string // set once killed by a signal
}

// Pane is one program in a PTY with its emulator.
type Pane struct {
	id   int
	cmd  *exec.Cmd
	ptmx *os.File
	term *term.Terminal
	logf func(string, ...any)

	in        *inputQueue
	closeOnce sync.Once
	closed    chan struct{} // closed by Close: stops the writer
	exited    chan struct{} // closed when the process has ended
	readDone  chan struct{} // closed when the reader goroutine returned

	lastOutput atomic.Int64 // unix nanoseconds of the last output; start time before any
	lastInput  atomic.Int64 // unix nanoseconds of the last input queued (Type, Write); 0 before any
	printed    atomic.Bool  // the program has written something
	reading    atomic.Bool  // the reader is inside Read, having applied all it read before
	reads      atomic.Int64 // Read calls that returned
	untrimmed  atomic.Bool  // output reached the emulator since the last Trim

	ret     atomic.Pointer[retained] // output kept for a mirror (retain.go); nil until asked
	refused atomic.Pointer[error]    // why input is refused for now (refuse.go); nil when taken

	mu       sync.Mutex // guards status, cols, rows, changed, onOutput and onExit
	status   Status
	cols     int
	rows     int
	changed  chan struct{} // closed and replaced on every output
	onOutput func()
	onExit   func()

	feed func(apply func()) // set once by Start, read by the reader only
}

// Start runs cfg.Argv in a new PTY of exactly cfg.Cols x cfg.Rows.
func Start(cfg Config) (*Pane, error) {
	if len(cfg.Argv) == 0 || cfg.Argv[0] == "" {
		return nil, fmt.Errorf("pane %d: no command to run", cfg.ID)
	}
	if cfg.Cols < 1 || cfg.Rows < 1 {
		return nil, fmt.Errorf("pane %d: size %dx%d is not positive", cfg.ID, cfg.Cols, cfg.Rows)
	}
	logf := cfg.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	p := &Pane{
		id:       cfg.ID,
		logf:     logf,
		in:       newInputQueue(),
		closed:   make(chan struct{}),
		exited:   make(chan struct{}),
		readDone: make(chan struct{}),
		cols:     cfg.Cols,
		rows:     cfg.Rows,
		changed:  make(chan struct{}),
		onOutput: cfg.OnOutput,
		onExit:   cfg.OnExit,

		feed: cfg.Feed,
	}
	// The emulator is made while the program starts: starting waits for
	// the child's exec (os/exec reports an exec that fails), time that
	// another CPU spends on the screens' allocation, a quarter of a
	// millisecond for 200x50, most of it page faults, on the way of every
	// pane's start and of the session's.
	made := make(chan *term.Terminal, 1)
	go func() {
		t := term.New(cfg.Cols, cfg.Rows, term.Options{
			Scrollback: cfg.Scrollback,
			Reply:      p.reply,
			Logf: func(format string, args ...any) {
				logf("pane %d: "+format, append([]any{cfg.ID}, args...)...)
			},
		})
		if len(cfg.Preface) > 0 {
			t.Write(cfg.Preface)
		}
		made <- t
	}()

	path, err := exec.LookPath(cfg.Argv[0])
	if err != nil {
		return nil, fmt.Errorf("pane %d: cannot run %q: %w", cfg.ID, cfg.Argv[0], err)
	}
	cmd := exec.Command(path, cfg.Argv[1:]...)
	cmd.Args[0] = cfg.Argv[0]
	cmd.Dir = cfg.Dir
	cmd.Env = withTermEnv(cfg.Env)
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(cfg.Cols), Rows: uint16(cfg.Rows)})
	if err != nil {
		return nil, fmt.Errorf("pane %d: start %q: %w", cfg.ID, cfg.Argv[0], err)
	}
	p.term = <-made
	p.cmd = cmd
	p.ptmx = pollable(ptmx)
	p.in.direct = p.writeNow
	p.status = Status{Running: true, PID: cmd.Process.Pid}
	p.lastOutput.Store(time.Now().UnixNano())

	go p.readLoop()
	go p.writeLoop()
	go p.waitLoop()
	return p, nil
}

// WarmUp starts, in the background, the one-time work of a process's first
// pane start that does not depend on the pane: os's probe for pidfd support,
// which forks a child that exits at once, runs in the first
// os.StartProcess otherwise. A session's server calls it as it starts, so
// the probe overlaps the server's own start instead of delaying its first
// pane.
func WarmUp() {
	go func() {
		if self, err := os.FindProcess(os.Getpid()); err == nil {
			_ = self.Release()
		}
	}()
}

// setSize sets the PTY's window size through the poller's fd, not Fd
// (pty.Setsize), which would put the master back in blocking mode.
func (p *Pane) setSize(cols, rows int) error {
	ws := &unix.Winsize{Col: uint16(cols), Row: uint16(rows)}
	return p.ioctl(func(fd int) error { return unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, ws) })
}

// ioctl runs fn on the PTY master's descriptor through the poller (Fd would
// put the master back in blocking mode) and returns fn's error or the
// poller's.
func (p *Pane) ioctl(fn func(fd int) error) error {
	raw, err := p.ptmx.SyscallConn()
	if err != nil {
		return err
	}
	if cerr := raw.Control(func(fd uintptr) { err = fn(int(fd)) }); cerr != nil {
		return cerr
	}
	return err
}

func withTermEnv(env []string) []string {
	out := make([]string, 0, len(env)+2)
	for _, kv := range env {
		if strings.HasPrefix(kv, "TERM=") || strings.HasPrefix(kv, "COLORTERM=") ||
			strings.HasPrefix(kv, "TMUX=") || strings.HasPrefix(kv, "TMUX_PANE=") {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "TERM="+TERM, "COLORTERM=truecolor")
}

// ID is the pane's id.
func (p *Pane) ID() int { return p.id }

// Term is the pane's emulator, for snapshots.
func (p *Pane) Term() *term.Terminal { return p.term }

// Sizes of the reader's buffers. A PTY read returns at most a few KB; under
// a flood the reader keeps reading what the PTY already holds (FIONREAD)
// until it has readChunk bytes, then feeds the emulator all of it at once:
// the emulator's scroll-off fast path needs that lookahead, and every
// wake-up of the pane's watchers is paid per chunk. Output that arrives in a
// trickle is fed as soon as it is read: nothing waits for more. A pane waits
// in Read with a buffer of readMin; the big one is taken from chunks only
// while output is pending, so a quiet pane does not hold one.
const (
	readChunk = 64 << 10
	readMin   = 4 << 10 // room the next read needs
)

// chunks are the big read buffers no reader is using. Not a sync.Pool: that
// keeps what it holds across one collection, and the quiet after a burst
// sees only one, so a burst's chunks would stay resident while the server
// idles; ReleaseChunks drops them at once.
var chunks struct {
	mu   sync.Mutex // guards free
	free []*[]byte
}

func getChunk() *[]byte {
	chunks.mu.Lock()
	defer chunks.mu.Unlock()
	if n := len(chunks.free); n > 0 {
		b := chunks.free[n-1]
		chunks.free = chunks.free[:n-1]
		return b
	}
	b := make([]byte, readChunk+readMin)
	return &b
}

func putChunk(b *[]byte) {
	chunks.mu.Lock()
	defer chunks.mu.Unlock()
	chunks.free = append(chunks.free, b)
}

// ReleaseChunks lets go of the read buffers no pane is reading into; the
// server calls it once output has gone quiet.
func ReleaseChunks() {
	chunks.mu.Lock()
	defer chunks.mu.Unlock()
	chunks.free = nil
}

// readLoop feeds the emulator until the PTY reports the other side gone. A
// panic here is confined to this pane: the emulator already recovers its own,
// and anything else ends the reader, leaving the pane readable.
func (p *Pane) readLoop() {
	defer close(p.readDone)
	defer func() {
		if r := recover(); r != nil {
			p.logf("pane %d: reader panic: %v", p.id, r)
		}
	}()
	small := make([]byte, readMin)
	var buf []byte // small, or one of chunks while output is pending
	var n int
	apply := func() { p.applyOutput(buf[:n]) }
	for {
		p.reading.Store(true)
		var err error
		n, err = p.ptmx.Read(small)
		p.reading.Store(false)
		p.reads.Add(1)
		buf = small
		var chunk *[]byte
		if err == nil && n > 0 && p.pendingInput() > 0 {
			chunk = getChunk()
			buf = *chunk
			copy(buf, small[:n])
			for {
				// Already there: this read cannot block.
				var more int
				more, err = p.ptmx.Read(buf[n:])
				n += more
				if err != nil || n >= readChunk || p.pendingInput() == 0 {
					break
				}
			}
		}
		if n > 0 {
			if p.feed != nil {
				p.feed(apply)
			} else {
				apply()
			}
			p.untrimmed.Store(true)
			p.lastOutput.Store(time.Now().UnixNano())
			p.printed.Store(true)
			if cb := p.outputChanged(); cb != nil {
				cb()
			}
		}
		if chunk != nil {
			putChunk(chunk)
		}
		if err != nil {
			// EIO once every slave descriptor is closed: the normal end.
			return
		}
	}
}

// Trim lets go of what the pane's emulator grew to take in output fast
// (term.Terminal.Trim), if it had output since the last Trim, and of the
// emulator's vt10x (term.Terminal.Retire: its state is kept packed, a few
// KB instead of two screens of glyphs, 320 KB at 200x50). The server
// calls it once output has gone quiet, so a pane retires whether its
// program has ended (remain-on-exit) or waits (a shell at its prompt, an
// agent CLI waiting for its next message); the program's next output, or
// a resize, brings vt10x back first, as it was. A terminal that would not
// come back the same is kept, and not looked at again until it changes.
func (p *Pane) Trim() {
	if p.untrimmed.Swap(false) {
		p.term.Trim()
	}
	p.term.Retire()
}

func (p *Pane) waitLoop() {
	awaitExit(p.cmd.Process.Pid)
	err := p.cmd.Wait()
	st := Status{PID: p.cmd.Process.Pid}
	var ee *exec.ExitError
	switch {
	case err == nil:
		code := 0
		st.ExitCode = &code
	case errors.As(err, &ee):
		ws, ok := ee.Sys().(syscall.WaitStatus)
		if ok && ws.Signaled() {
			sig := signalName(ws.Signal())
			st.Signal = &sig
		} else {
			code := ee.ExitCode()
			st.ExitCode = &code
		}
	default:
		code := -1
		st.ExitCode = &code
		p.logf("pane %d: wait: %v", p.id, err)
	}
	p.drainAfterExit()
	p.in.kill(ErrExited)
	cb := p.ended(st)
	close(p.exited)
	if cb != nil {
		cb()
	}
}

// outputChanged wakes those waiting on Changed after output, and gives the
// OnOutput callback, which the caller runs without the lock.
func (p *Pane) outputChanged() func() {
	p.mu.Lock()
	defer p.mu.Unlock()
	close(p.changed)
	p.changed = make(chan struct{})
	return p.onOutput
}

// ended records how the program ended and wakes those waiting on Changed;
// it gives the OnExit callback, which the caller runs without the lock.
func (p *Pane) ended(st Status) func() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.status = st
	close(p.changed)
	p.changed = make(chan struct{})
	return p.onExit
}

// drainAfterExit waits until the reader has applied everything the program
// wrote before it ended, so the final screen is complete when the exit is
// reported. Usually the reader simply ends (EIO once the last descriptor of
// the PTY's other side closes). A background child holding the PTY open keeps
// the reader going, so then "drained" means: for 250ms on end the reader sat
// in Read, read nothing, and the PTY held nothing for it (the kernel moves
// output to the master side asynchronously, hence the stretch of time rather
// than one look). Bounded, for a reader starved of CPU.
func (p *Pane) drainAfterExit() {
	const quiet = 250 * time.Millisecond
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	var since time.Time
	last := p.reads.Load()
	for {
		reads := p.reads.Load()
		idle := p.reading.Load() && reads == last && p.pendingInput() == 0
		last = reads
		switch {
		case !idle:
			since = time.Time{}
		case since.IsZero():
			since = time.Now()
		case time.Since(since) >= quiet:
			return
		}
		select {
		case <-p.readDone:
			return
		case <-deadline.C:
			p.logf("pane %d: output still pending 10s after the process ended", p.id)
			return
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// Foreground returns the argv of the process group in the foreground of the
// pane's terminal (what a person would say "runs" in it: the shell, or the
// program the shell started), or nil once the program has exited.
func (p *Pane) Foreground() []string {
	pgrp := p.ForegroundGroup()
	if pgrp <= 0 {
		return nil
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pgrp))
	if err != nil || len(data) == 0 {
		return nil
	}
	return strings.Split(strings.TrimRight(string(data), "\x00"), "\x00")
}

// ForegroundGroup is the id of the process group in the foreground of the
// pane's terminal (TIOCGPGRP), or 0 once the program has exited or when it
// cannot be read.
func (p *Pane) ForegroundGroup() int {
	if !p.Status().Running {
		return 0
	}
	raw, err := p.ptmx.SyscallConn()
	if err != nil {
		return 0
	}
	pgrp := 0
	_ = raw.Control(func(fd uintptr) {
		if v, err := unix.IoctlGetInt(int(fd), unix.TIOCGPGRP); err == nil && v > 0 {
			pgrp = v
		}
	})
	return pgrp
}

// Argv is the program the pane was started with.
func (p *Pane) Argv() []string { return append([]string(nil), p.cmd.Args...) }

// pendingInput is how many bytes wait in the PTY for the reader (FIONREAD);
// -1 if unknown.
func (p *Pane) pendingInput() int {
	n := -1
	_ = p.ioctl(func(fd int) error {
		v, err := unix.IoctlGetInt(fd, unix.TIOCINQ)
		if err == nil {
			n = v
		}
		return err
	})
	return n
}

func signalName(s syscall.Signal) string {
	names := map[syscall.Signal]string{
		syscall.SIGHUP: "SIGHUP", syscall.SIGINT: "SIGINT", syscall.SIGQUIT: "SIGQUIT",
		syscall.SIGILL: "SIGILL", syscall.SIGABRT: "SIGABRT", syscall.SIGFPE: "SIGFPE",
		syscall.SIGKILL: "SIGKILL", syscall.SIGSEGV: "SIGSEGV", syscall.SIGPIPE: "SIGPIPE",
		syscall.SIGALRM: "SIGALRM", syscall.SIGTERM: "SIGTERM", syscall.SIGBUS: "SIGBUS",
		syscall.SIGUSR1: "SIGUSR1", syscall.SIGUSR2: "SIGUSR2",
	}
	if n, ok := names[s]; ok {
		return n
	}
	return fmt.Sprintf("SIG%d", int(s))
}

// SendKeys types text in send_keys' key notation (pane/keys), encoded for the
// modes the program has set (cursor keys, bracketed paste), as WriteContext
// queues bytes: all or nothing, waiting while the program reads. It returns
// the number of bytes queued.
func (p *Pane) SendKeys(ctx context.Context, text string) (int, error) {
	m := p.term.Modes()
	b := keys.Encode(text, keys.Modes{AppCursor: m.AppCursor, AppKeypad: m.AppKeypad, BracketedPaste: m.BracketedPaste})
	if len(b) == 0 {
		return 0, nil
	}
	if err := p.WriteContext(ctx, b); err != nil {
		return 0, err
	}
	return len(b), nil
}

// sizeSame records cols x rows as the pane's size and says whether it was
// that already.
func (p *Pane) sizeSame(cols, rows int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	same := cols == p.cols && rows == p.rows
	p.cols, p.rows = cols, rows
	return same
}

// Resize changes the PTY and emulator size; the program gets SIGWINCH.
func (p *Pane) Resize(cols, rows int) error {
	if cols < 1 || rows < 1 {
		return fmt.Errorf("pane %d: size %dx%d is not positive", p.id, cols, rows)
	}
	if p.sizeSame(cols, rows) {
		return nil
	}
	p.term.Resize(cols, rows)
	if err := p.setSize(cols, rows); err != nil {
		select {
		case <-p.exited:
			return nil // the size of a finished program's PTY no longer matters
		default:
		}
		return fmt.Errorf("pane %d: resize pty: %w", p.id, err)
	}
	return nil
}

// Size is the pane's current size.
func (p *Pane) Size() (cols, rows int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cols, p.rows
}

// Status is the process state.
func (p *Pane) Status() Status {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.status
}

// Exited is closed when the process has ended and Status holds its exit.
func (p *Pane) Exited() <-chan struct{} { return p.exited }

// LastOutput is when output last arrived (the start time before any).
func (p *Pane) LastOutput() time.Time { return time.Unix(0, p.lastOutput.Load()) }

// LastInput is when input (typed, or sent with Write) was last queued for
// the program; the zero time before any. The emulator's replies to the
// program's queries do not count.
func (p *Pane) LastInput() time.Time {
	if n := p.lastInput.Load(); n != 0 {
		return time.Unix(0, n)
	}
	return time.Time{}
}

// BusyFor reports whether the running program printed within the last
// window, and if so how long until that stops being true. A program that has
// printed nothing yet is not busy.
func (p *Pane) BusyFor(window time.Duration) (bool, time.Duration) {
	if !p.printed.Load() || !p.Status().Running {
		return false, 0
	}
	left := window - time.Since(p.LastOutput())
	return left > 0, left
}

// Changed returns a channel closed at the next output or exit.
func (p *Pane) Changed() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.changed
}

// Cwd is the program's current directory, read from /proc; "" if unknown.
func (p *Pane) Cwd() string {
	st := p.Status()
	if !st.Running {
		return ""
	}
	dir, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", st.PID))
	if err != nil {
		return ""
	}
	return dir
}

// WaitSettled waits for output to go quiet for settle, giving the program
// up to firstOutput to start answering at all, and returns whether it settled
// before max ran out (or the process exited).
func (p *Pane) WaitSettled(ctx context.Context, since time.Time, settle, firstOutput, max time.Duration) bool {
	deadline := time.NewTimer(max)
	defer deadline.Stop()
	for {
		last := p.LastOutput()
		quietFor := settle
		if !last.After(since) {
			// Nothing yet since the input: allow the program time to react.
			quietFor = firstOutput
			last = since
		}
		wait := time.Until(last.Add(quietFor))
		if wait <= 0 {
			return true
		}
		ch := p.Changed()
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return false
		case <-deadline.C:
			t.Stop()
			return false
		case <-p.exited:
			t.Stop()
			return true
		case <-ch:
			t.Stop()
		case <-t.C:
		}
	}
}

// Kill ends the process and whatever else runs in its process group (a
// background child it left behind): SIGHUP, as a closing terminal would, then
// SIGKILL to what is left once the process ended or grace ran out.
func (p *Pane) Kill(grace time.Duration) {
	pid := p.cmd.Process.Pid
	// Best effort throughout: the group may already be gone.
	_ = syscall.Kill(-pid, syscall.SIGHUP)
	if !p.Status().Running {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGHUP)
	select {
	case <-p.exited:
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		return
	case <-time.After(grace):
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	_ = p.cmd.Process.Kill()
	select {
	case <-p.exited:
	case <-time.After(grace):
		p.logf("pane %d: process %d did not end after SIGKILL", p.id, pid)
	}
}

// Close kills the process if needed and releases the PTY. The emulator stays
// readable.
func (p *Pane) Close() {
	p.Kill(time.Second)
	p.closeOnce.Do(func() {
		close(p.closed)
		// Best effort: the reader returns once the master is closed.
		_ = p.ptmx.Close()
	})
}
