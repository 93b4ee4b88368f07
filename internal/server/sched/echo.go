package sched

import (
	"cmp"
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
	active atomic.Bool   // a hold is on: the readers' cheap test
	parked atomic.Int32  // readers waiting in wait now: what tests count to see a hold hold
	hold   time.Duration // a key's hold at most; 0 = echoHold (tests lengthen it)

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
	h.until = time.Now().Add(cmp.Or(h.hold, echoHold))
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
		left, free := h.held(id)
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

// held is heldLocked with the lock taken, and the channel closed when the
// hold ends: wait's look, at each chunk a reader feeds.
func (h *echoFirst) held(id int) (time.Duration, chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	left := h.heldLocked(id, time.Now()) // may end the hold: free after it
	return left, h.free
}
