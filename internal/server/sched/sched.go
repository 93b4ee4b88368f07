// Package sched is the session server's scheduling for a person's keys: the
// one place where the server trades the floods' throughput for the latency
// of a keystroke's echo. It owns
//
//   - the echo hold (echo.go): from the moment a client's input is read until
//     its answer is drawn, and while a frame is drawn, the other panes'
//     readers wait before they feed their emulators;
//   - the feed slots: how many pane readers parse at once (one per P but the
//     spare one), and the pane typed into or awaited, which takes none;
//   - the typing reserve: while a person types, one slot is kept from the
//     floods and each flood pauses for as long as it parsed;
//   - the spare P: a server that owns GOMAXPROCS runs one P more while a
//     client is attached (Attached).
//
// Its state is its own, each part under its own lock (named at each field);
// none of its methods blocks on anything but its own holds, and it calls
// nothing of the server's, so any lock of the server may be held when it is
// called, and none may be taken while one of its locks is held. The figures
// behind each choice are in docs/benchmarks.md ("The key behind the client's
// frames", "A CPU for the typist").
package sched

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Config makes a Sched.
type Config struct {
	// SpareProc: the Sched owns the process's GOMAXPROCS and runs one P
	// more than it had at New while a client is attached (see Attached).
	// Only for a process that runs one server, as the daemon does.
	SpareProc bool
	// Slots is the number of feed slots; 0 = from GOMAXPROCS (FeedSlots).
	// Tests give their own.
	Slots int
	// Pause is how a flood pauses while a person types: time.Sleep but in
	// tests, which record the pauses asked for.
	Pause func(time.Duration)
	// EchoHold bounds a key's hold; 0 = 30 ms. Tests lengthen it, so that
	// a lapse under load is never taken for a release.
	EchoHold time.Duration
}

// Sched is one server's scheduling.
type Sched struct {
	echo       echoFirst
	slots      chan struct{} // one per pane reader feeding its emulator (see Feed)
	reserve    typingReserve // one of slots kept from the floods while a person types
	typedUntil atomic.Int64  // unix nanoseconds: a person typed within typingWindow before this (see Feed)
	pause      func(time.Duration)

	procsMu sync.Mutex // guards GOMAXPROCS changes (Attached): one at a time, in order
	procs   int        // GOMAXPROCS at New with SpareProc, 0 without; never changed
}

// New makes a Sched; with SpareProc it reads GOMAXPROCS now.
func New(cfg Config) *Sched {
	slots := cfg.Slots
	if slots <= 0 {
		slots = FeedSlots(cfg.SpareProc)
	}
	s := &Sched{slots: make(chan struct{}, slots), pause: cfg.Pause}
	if s.pause == nil {
		s.pause = time.Sleep
	}
	s.echo.hold = cfg.EchoHold
	if cfg.SpareProc {
		s.procs = runtime.GOMAXPROCS(0)
	}
	return s
}

// Input is called as soon as a piece of a client's input is read: the hold
// for its echo begins, most likely for pane, the pane typed into last (0:
// none; KeyTo says which once the input is parsed), and a feed slot is kept
// from the floods while the person types.
func (s *Sched) Input(pane int) {
	s.echo.begin(pane)
	s.typing()
}

// KeyTo says the input went to pane: the hold moves on to it, ending
// echoHold from now, and a reader of pane already held goes on at once.
func (s *Sched) KeyTo(pane int) { s.echo.begin(pane) }

// Answered lets every reader held for a key go on: its answer was drawn,
// or the input was not for a pane.
func (s *Sched) Answered() { s.echo.end() }

// KeyHeld is how much longer a key's hold lasts at most; 0: none is on. A
// frame begun meanwhile would hold the echo back for as long as it takes
// to draw.
func (s *Sched) KeyHeld() time.Duration { return s.echo.keyHeld() }

// BeginFrame holds the readers while a client draws a frame, until
// EndFrame or for 10 ms at most.
func (s *Sched) BeginFrame() { s.echo.beginFrame() }

// EndFrame ends BeginFrame's hold.
func (s *Sched) EndFrame() { s.echo.endFrame() }

// Parked is how many pane readers are waiting in a hold now: what a test
// counts to see a hold hold.
func (s *Sched) Parked() int { return int(s.echo.parked.Load()) }

// Feed applies a chunk of pane id's output to its emulator: after any hold
// for a typed key's echo in another pane or for a frame, and in one of the
// feed slots. The answer a key awaits takes no slot: the slots keep a P free
// for the key's way through the server, and the answer is on that way; in a
// slot it would queue behind the readers of floods already waiting for one.
//
// While a person types, the pane typed into last takes no slot either (it
// is what the person looks at), and every other pane keeps its slot, idle,
// for as long again as it parsed: the floods then parse at most half the
// time of the slots left to them. tmux parses them on one thread three
// times slower than melmux; parsed at full speed, the flooding programs
// never block on their PTYs, and with them and the parsers all runnable,
// each hop of a key's way (the server's reader of the terminal, the program
// echoing, the server again, the terminal) queued for a CPU, and a key's
// echo took longer than tmux's (docs/benchmarks.md, "The key behind the
// client's frames").
func (s *Sched) Feed(id int, apply func()) {
	s.echo.wait(id)
	typing := s.typingNow()
	if s.echo.answer(id) || typing && s.echo.typedInto(id) {
		apply()
		return
	}
	s.slots <- struct{}{}
	defer func() { <-s.slots }()
	if !typing {
		apply()
		return
	}
	start := time.Now()
	apply()
	s.pause(time.Since(start))
}

// typingWindow is how long after a person's last key the floods keep to one
// feed slot fewer.
const typingWindow = time.Second

// typingNow reports whether a person typed within typingWindow.
func (s *Sched) typingNow() bool {
	return time.Now().UnixNano() < s.typedUntil.Load()
}

// typingReserve keeps one feed slot from the floods while a person types, so
// that on a machine of few CPUs one of them is left to the key's way: the
// server's input and loop (and a proxy client's process), the program
// echoing and the terminal. Flooding on every CPU, the parsers made each of
// those wait for a CPU in turn (docs/benchmarks.md, "A CPU for the typist").
// Only where there are two slots or more: one must stay for the floods.
type typingReserve struct {
	mu     sync.Mutex  // guards timer and taken
	timer  *time.Timer // gives the slot back typingWindow after the last key; nil while none is kept
	taken  bool        // the slot is held (taking it waits for a parse to end)
	window time.Duration
}

// typing keeps a feed slot from the floods until typingWindow after the
// last key.
func (s *Sched) typing() {
	s.typedUntil.Store(time.Now().Add(typingWindow).UnixNano())
	if cap(s.slots) < 2 {
		return
	}
	r := &s.reserve
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.window == 0 {
		r.window = typingWindow
	}
	if r.timer != nil {
		r.timer.Reset(r.window)
		return
	}
	var timer *time.Timer
	timer = time.AfterFunc(r.window, func() {
		if r.expire(timer) {
			<-s.slots
		}
	})
	r.timer = timer
	go func() {
		s.slots <- struct{}{}
		if !r.take(timer) {
			<-s.slots // the typing ended before a slot came free
		}
	}()
}

// expire ends the reserve kept by timer, unless a later one replaced it,
// and reports whether it held a slot, for the caller to give back.
func (r *typingReserve) expire(timer *time.Timer) (taken bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.timer != timer {
		return false
	}
	r.timer = nil
	taken = r.taken
	r.taken = false
	return taken
}

// take records the slot taken for timer's reserve; false when that
// reserve has ended, and the caller gives the slot back.
func (r *typingReserve) take(timer *time.Timer) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.timer != timer {
		return false
	}
	r.taken = true
	return true
}

// FeedSlots is how many panes may parse their output at once: one per P the
// process has without a client (with spare, the CPUs: see Attached), else
// one fewer than the runtime's Ps, at least one. While a client is attached
// the daemon runs one P more than that, so floods still parse on every CPU
// while one P is always free to take a typed key, its echo and the frame
// that shows it at once. With every P parsing, the runtime would look at the
// network (the client's terminal or socket, the pane's PTY) only every 10 ms
// or so, once per hop of the key's way through the server.
func FeedSlots(spare bool) int {
	if spare {
		return max(1, runtime.GOMAXPROCS(0))
	}
	return max(1, runtime.GOMAXPROCS(0)-1)
}

// Attached sets the process's Ps for the n clients attached now: the spare
// P is for a person's keys, so a server nobody is attached to runs without
// it and without what a P keeps (its cache of spans, about 150-250 KB of
// memory). A no-op unless the Sched owns GOMAXPROCS (SpareProc). Calls
// that race are applied one at a time; the caller passes n in the order
// the clients came and went (under its lock of the client set), so the
// last call is for the clients attached now.
func (s *Sched) Attached(n int) {
	if s.procs == 0 {
		return
	}
	s.procsMu.Lock()
	defer s.procsMu.Unlock()
	want := s.procs
	if n > 0 {
		want++
	}
	if runtime.GOMAXPROCS(0) != want {
		runtime.GOMAXPROCS(want)
	}
}
