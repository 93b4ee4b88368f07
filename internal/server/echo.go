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

// echoFirst puts the echo of a typed key ahead of every other pane's output.
// A key passes through several goroutines (the client's frame reader, its
// tcell input, its loop, the pane's writer, the program, the pane's reader,
// the loop again), and while neighbours flood, each of them would queue for a
// CPU behind the readers parsing the floods (there are as many of those as
// flooding panes, and as few CPUs as the machine has). So from the moment a
// client's input arrives until its answer is drawn (or echoHold has passed),
// the readers of the other panes wait before feeding their emulator; the
// programs flooding them block on their full PTYs, so the machine's CPUs are
// free for the key as well. The pane typed into is never held.
type echoFirst struct {
	active atomic.Bool // a hold is on: the readers' cheap test

	mu    sync.Mutex    // guards pane, until and free
	pane  int           // the pane whose answer is awaited; 0 while not known
	until time.Time     // the hold ends by then at the latest
	free  chan struct{} // closed when the hold ends; nil when none is on
}

// begin starts a hold for input on its way to pane (0: not known yet) or
// moves one on to it, ending echoHold from now.
func (h *echoFirst) begin(pane int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.free == nil {
		h.free = make(chan struct{})
		h.active.Store(true)
	}
	h.pane = pane
	h.until = time.Now().Add(echoHold)
}

// end lets every held reader go on: the answer was drawn, or the input was
// not for a pane.
func (h *echoFirst) end() {
	if !h.active.Load() {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.endLocked()
}

func (h *echoFirst) endLocked() {
	if h.free != nil {
		close(h.free)
		h.free = nil
		h.active.Store(false)
	}
}

// wait is called by pane id's reader before it feeds its emulator: while a
// hold for another pane is on, it waits for the hold to end.
func (h *echoFirst) wait(id int) {
	if !h.active.Load() {
		return
	}
	for {
		h.mu.Lock()
		if h.free == nil || h.pane == id {
			h.mu.Unlock()
			return
		}
		left := time.Until(h.until)
		if left <= 0 {
			h.endLocked()
			h.mu.Unlock()
			return
		}
		free := h.free
		h.mu.Unlock()
		t := time.NewTimer(left)
		select {
		case <-free:
			t.Stop()
			return
		case <-t.C:
			// Look again: the hold may have been moved on since.
		}
	}
}

// feed applies a chunk of pane id's output to its emulator: after any hold
// for a typed key's echo in another pane, and in one of the feed slots.
func (s *Server) feed(id int, apply func()) {
	s.echo.wait(id)
	s.feedSlots <- struct{}{}
	defer func() { <-s.feedSlots }()
	apply()
}

// feedSlots is how many panes may parse their output at once: one fewer than
// the runtime's Ps, at least one. The daemon runs with one P more than it has
// CPUs (see the __serve verb), so floods still parse on every CPU while one P
// is always free to take a typed key, its echo and the frame that shows it at
// once. With every P parsing, the runtime would look at the network (the
// client's socket, the pane's PTY) only every 10 ms or so, once per hop of the
// key's way through the server.
func feedSlots() int {
	return max(1, runtime.GOMAXPROCS(0)-1)
}
