package server

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// echoHold bounds how long other panes' output waits for a typed key's echo
// to be drawn: a program that shows nothing for a key (a password prompt)
// must not stall the floods beside it for more than this per key.
const echoHold = 30 * time.Millisecond

// frameHold bounds how long panes' output waits for a frame being drawn: a
// frame written to a client that reads slowly must not stall the panes.
const frameHold = 10 * time.Millisecond

// echoFirst puts the echo of a typed key, and the frames that show it,
// ahead of every other pane's output.
//
// A key passes through several goroutines (tcell's reader of the client's
// terminal, or a proxy client's frame reader, its tcell input, its loop, the pane's writer, the program, the pane's reader,
// the loop again), and while neighbours flood, each of them would queue for a
// CPU behind the readers parsing the floods (there are as many of those as
// flooding panes, and as few CPUs as the machine has). So from the moment a
// client's input arrives until its answer is drawn (or echoHold has passed),
// the readers of the other panes wait before feeding their emulator; the
// programs flooding them block on their full PTYs, so the machine's CPUs are
// free for the key as well. The pane typed into is never held.
//
// The client's loop is one goroutine: a key that arrives while it draws a
// frame waits for that frame, and so does an echo. Drawn beside the parsers,
// a frame of flooding panes takes many times its CPU time in wall time,
// waiting for a CPU (docs/benchmarks.md, "The key behind the client's
// frames"); so while a frame is drawn (at most frameHold) the readers wait
// too.
type echoFirst struct {
	active atomic.Bool  // a hold is on: the readers' cheap test
	parked atomic.Int32 // readers waiting in wait now: what tests count to see a hold hold

	mu       sync.Mutex    // guards the fields below
	pane     int           // the pane whose answer is awaited; 0 while not known
	until    time.Time     // the key's hold ends by then at the latest; zero: none is on
	frames   int           // frames being drawn
	frameEnd time.Time     // the frames' hold ends by then at the latest
	free     chan struct{} // closed when a hold ends (waiters look again); nil when none is on
}

// begin starts a hold for input on its way to pane (0: not known yet) or
// moves one on to it, ending echoHold from now.
func (h *echoFirst) begin(pane int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if pane != 0 && pane != h.pane && h.free != nil {
		// The answer's pane may be parked already, held for the pane the
		// input was thought to be for: it must not wait out echoHold.
		close(h.free)
		h.free = nil
	}
	h.pane = pane
	h.until = time.Now().Add(echoHold)
	h.onLocked()
}

// end lets every reader held for a key go on: the answer was drawn, or the
// input was not for a pane.
func (h *echoFirst) end() {
	if !h.active.Load() {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.until = time.Time{}
	h.releaseLocked()
}

// beginFrame holds the readers while a client draws a frame, until
// endFrame or for frameHold.
func (h *echoFirst) beginFrame() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.frames++
	h.frameEnd = time.Now().Add(frameHold)
	h.onLocked()
}

func (h *echoFirst) endFrame() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.frames--
	h.releaseLocked()
}

func (h *echoFirst) onLocked() {
	if h.free == nil {
		h.free = make(chan struct{})
	}
	h.active.Store(true)
}

// releaseLocked wakes the waiting readers to look again, and turns the
// readers' test off when no hold is left.
func (h *echoFirst) releaseLocked() {
	if h.free != nil {
		close(h.free)
		h.free = nil
	}
	if !h.until.IsZero() || h.frames > 0 {
		h.onLocked()
	} else {
		h.active.Store(false)
	}
}

// heldLocked is how much longer pane id's reader must wait at most; 0: not.
// A key's hold that has lapsed is ended here.
func (h *echoFirst) heldLocked(id int, now time.Time) time.Duration {
	var left time.Duration
	if !h.until.IsZero() {
		if id == h.pane {
			return 0 // the answer awaited: nothing holds it
		}
		if left = h.until.Sub(now); left <= 0 {
			h.until = time.Time{}
			h.releaseLocked()
		}
	}
	if h.frames > 0 {
		left = max(left, h.frameEnd.Sub(now))
	}
	return left
}

// answer reports whether pane id's output is the answer a key awaits.
func (h *echoFirst) answer(id int) bool {
	if !h.active.Load() {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return !h.until.IsZero() && h.pane == id && time.Now().Before(h.until)
}

// typedInto reports whether pane id is the pane typed into last.
func (h *echoFirst) typedInto(id int) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.pane == id
}

// keyHeld is how much longer a key's hold lasts at most; 0: none is on.
func (h *echoFirst) keyHeld() time.Duration {
	if !h.active.Load() {
		return 0
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.until.IsZero() {
		return 0
	}
	return max(time.Until(h.until), 0)
}

// wait is called by pane id's reader before it feeds its emulator: while a
// hold for another pane or a frame is on, it waits for the hold to end.
func (h *echoFirst) wait(id int) {
	for h.active.Load() {
		h.mu.Lock()
		left := h.heldLocked(id, time.Now())
		free := h.free
		h.mu.Unlock()
		if left <= 0 || free == nil {
			return
		}
		t := time.NewTimer(left)
		h.parked.Add(1)
		select {
		case <-free:
		case <-t.C:
			// Look again: the hold may have been moved on since.
		}
		h.parked.Add(-1)
		t.Stop()
	}
}

// feed applies a chunk of pane id's output to its emulator: after any hold
// for a typed key's echo in another pane or for a frame, and in one of the
// feed slots. The answer a key awaits takes no slot: the slots keep a P free
// for the key's way through the server, and the answer is on that way; in a
// slot it would queue behind the readers of floods already waiting for one.
//
// While a person types, the pane typed into last takes no slot either (it
// is what the person looks at), and every other pane keeps its slot, idle,
// for as long again as it parsed: the floods then parse at most half the
// time of the slots left to them. tmux parses them
// on one thread three times slower than melmux; parsed at full speed, the
// flooding programs never block on their PTYs, and with them and the
// parsers all runnable, each hop of a key's way (the server's reader of
// the terminal, the program echoing, the server again, the terminal) queued
// for a CPU, and a key's echo took longer than tmux's (docs/benchmarks.md,
// "The key behind the client's frames").
func (s *Server) feed(id int, apply func()) {
	s.echo.wait(id)
	typing := s.typingNow()
	if s.echo.answer(id) || typing && s.echo.typedInto(id) {
		apply()
		return
	}
	s.feedSlots <- struct{}{}
	defer func() { <-s.feedSlots }()
	if !typing {
		apply()
		return
	}
	start := time.Now()
	apply()
	s.tune.pause(time.Since(start))
}

// typingWindow is how long after a person's last key the floods keep to one
// feed slot fewer.
const typingWindow = time.Second

// typingNow reports whether a person typed within typingWindow.
func (s *Server) typingNow() bool {
	return time.Now().UnixNano() < s.typedUntil.Load()
}

// typingReserve keeps one feed slot from the floods while a person types, so
// that on a machine of few CPUs one of them is left to the key's way: the
// server's input and loop (and a proxy client's process), the program echoing and the
// terminal. Flooding on every CPU, the parsers made each of those wait for a
// CPU in turn (docs/benchmarks.md, "A CPU for the typist").
// Only where there are two slots or more: one must stay for the floods.
type typingReserve struct {
	mu     sync.Mutex  // guards timer and taken
	timer  *time.Timer // gives the slot back typingWindow after the last key; nil while none is kept
	taken  bool        // the slot is held (taking it waits for a parse to end)
	window time.Duration
}

// typing is called for each piece of a client's input: it keeps a feed slot
// from the floods until typingWindow after the last key.
func (s *Server) typing() {
	s.typedUntil.Store(time.Now().Add(typingWindow).UnixNano())
	if cap(s.feedSlots) < 2 {
		return
	}
	r := &s.typingReserve
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
		r.mu.Lock()
		if r.timer != timer {
			r.mu.Unlock()
			return
		}
		r.timer = nil
		taken := r.taken
		r.taken = false
		r.mu.Unlock()
		if taken {
			<-s.feedSlots
		}
	})
	r.timer = timer
	go func() {
		s.feedSlots <- struct{}{}
		r.mu.Lock()
		if r.timer == timer {
			r.taken = true
			r.mu.Unlock()
			return
		}
		r.mu.Unlock()
		<-s.feedSlots // the typing ended before a slot came free
	}()
}

// feedSlots is how many panes may parse their output at once: one per P the
// process has without a client (with spare, the CPUs: see spareProc), else
// one fewer than the runtime's Ps, at least one. While a client is attached
// the daemon runs one P more than that, so floods still parse on every CPU
// while one P is always free to take a typed key, its echo and the frame
// that shows it at once. With every P parsing, the runtime would look at the
// network (the client's terminal or socket, the pane's PTY) only every 10 ms or so, once
// per hop of the key's way through the server.
func feedSlots(spare bool) int {
	if spare {
		return max(1, runtime.GOMAXPROCS(0))
	}
	return max(1, runtime.GOMAXPROCS(0)-1)
}

// spareProcLocked sets the process's Ps for the clients attached now: the
// spare P is for a person's keys, so a server nobody is attached to runs
// without it and without what a P keeps (its cache of spans, about 150-250
// KB of memory). A no-op unless the server owns GOMAXPROCS (SpareProc).
func (s *Server) spareProcLocked() {
	if s.procs == 0 {
		return
	}
	want := s.procs
	if len(s.clients) > 0 {
		want++
	}
	if runtime.GOMAXPROCS(0) != want {
		runtime.GOMAXPROCS(want)
	}
}
