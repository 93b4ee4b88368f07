package server

import (
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/melmux/melmux/internal/server/sched"
)

// clientSet is the attached clients: who is attached and who is on the
// way in (against max_clients), when the session was last used, and the
// release of departed clients' memory. It is the server's only way to its
// clients; each client's own state (its terminal, screen, input, scene) is
// its loop's (attach.go).
//
// Its lock is its own, not Server.mu: Server.mu may be held when it is
// taken, never the other way round (doc.go has the order), and nothing is
// called with it held but the Sched (the spare P) and the timer. Walks
// that must not wait (a pane reader's invalidate) read the lock-free list.
type clientSet struct {
	max   int                       // attached at once (max_clients); never changed
	sched *sched.Sched              // told how many are attached (the spare P); never changed
	list  atomic.Pointer[[]*client] // a copy of all, published at each change, for walks that take no lock

	mu      sync.Mutex // guards the fields below
	all     map[*client]struct{}
	joining int         // attach connections past the cap check, not yet in all
	closed  bool        // the session is ending: nobody joins any more
	used    time.Time   // a client last attached or left; zero for never
	release *time.Timer // returns departed clients' memory to the system
}

func newClientSet(max int, s *sched.Sched) *clientSet {
	return &clientSet{max: max, sched: s, all: map[*client]struct{}{}}
}

// reserve takes a place for a client on its way in, unless max are
// attached or on their way: then it says how many.
func (cs *clientSet) reserve() (full int, ok bool) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if n := len(cs.all) + cs.joining; n >= cs.max {
		return n, false
	}
	cs.joining++
	return 0, true
}

// unreserve gives back the place of a client that did not join.
func (cs *clientSet) unreserve() {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.joining--
}

// join makes c, which reserved its place, an attached client, unless the
// session is ending (close): then its place is still reserved.
func (cs *clientSet) join(c *client) bool {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.closed {
		return false
	}
	cs.joining--
	cs.all[c] = struct{}{}
	cs.changedLocked()
	return true
}

// leave takes c out; a second after the last client left, the memory the
// departed ones held goes back to the system.
func (cs *clientSet) leave(c *client) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	delete(cs.all, c)
	cs.changedLocked()
	cs.releaseMemoryLocked()
}

// close ends the joining (the session is ending) and returns the clients
// attached, to be sent away.
func (cs *clientSet) close() []*client {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.closed = true
	return cs.walk()
}

// changedLocked publishes the list, and gives the process its spare P
// while anyone is attached. Caller holds cs.mu, which keeps the Sched's
// calls in the order of the changes.
func (cs *clientSet) changedLocked() {
	cs.used = time.Now()
	list := make([]*client, 0, len(cs.all))
	for c := range cs.all {
		list = append(list, c)
	}
	cs.list.Store(&list)
	cs.sched.Attached(len(list))
}

// walk is the clients attached as last published. It takes no lock: a
// pane reader calls it for every chunk of output.
func (cs *clientSet) walk() []*client {
	if l := cs.list.Load(); l != nil {
		return *l
	}
	return nil
}

// count is how many clients are attached.
func (cs *clientSet) count() int { return len(cs.walk()) }

// usedAt is when the session was last used, for `melmux attach` with no
// name: when a client last attached to it or left it, else created.
func (cs *clientSet) usedAt(created time.Time) time.Time {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.used.IsZero() {
		return created
	}
	return cs.used
}

// releaseMemoryLocked returns what departed clients held to the system a
// second after the last of them left. Left alone, an idle server runs no
// collection for minutes and keeps a few hundred bytes a cell of every
// client that ever attached. Caller holds cs.mu.
func (cs *clientSet) releaseMemoryLocked() {
	if cs.release == nil {
		cs.release = time.AfterFunc(time.Second, debug.FreeOSMemory)
		return
	}
	cs.release.Reset(time.Second)
}
