package server

import (
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"

	"github.com/melmux/melmux/pane"
)

// Returning a burst's memory to the system. A flood of output makes
// garbage (chunks, scratch, history lines that scrolled out of the ring) at
// a rate that lets Go's heap grow to twice what is live before it collects,
// and the runtime gives pages back only slowly, over minutes: a server that
// took in a build log sat at twice the memory its history needs. So once
// output has been quiet for outputQuiet, the panes that printed let go of
// what they held only to take output in fast (Pane.Trim), and if at least
// releaseMin (and an eighth of the live heap) of the heap is collectable or
// free, the server collects and returns the free pages at once (a few ms
// for a heap of tens of MB).
//
// Nothing ticks while the server is idle: the timer is armed by output and
// by what follows output by up to seconds and allocates for every pane (the
// state file's write, agent-state decisions), and fires once after they
// stop (during steady activity about once per outputQuiet, which costs a
// look at three runtime metrics). Only output holds a release off; requests
// do not even arm it (a client polling read_pane would hold it off for as
// long as it polls).
const (
	outputQuiet = 200 * time.Millisecond
	releaseMin  = 1 << 20
)

// quietRelease watches the panes' output for quiet after a burst.
type quietRelease struct {
	last    atomic.Int64 // when output last came, unix nanoseconds
	armed   atomic.Bool  // the timer is pending (or its function running)
	timer   *time.Timer
	release func() // runs after each quiet stretch: Server.afterOutput but in tests
}

func newQuietRelease(release func()) *quietRelease {
	q := &quietRelease{release: release}
	q.timer = time.AfterFunc(time.Hour, q.fire)
	q.timer.Stop()
	return q
}

// note says that a pane printed. Cheap enough for every chunk read.
func (q *quietRelease) note() {
	q.last.Store(time.Now().UnixNano())
	q.arm()
}

// later says that work which allocates for every pane and follows output by
// up to seconds happened (the state file was written, an agent state was
// decided): it arms the timer if it is not pending, but unlike output does
// not hold off a release already due.
func (q *quietRelease) later() { q.arm() }

func (q *quietRelease) arm() {
	if q.armed.Load() || !q.armed.CompareAndSwap(false, true) {
		return
	}
	q.timer.Reset(outputQuiet)
}

// fire runs when output may have been quiet for outputQuiet: it waits out
// the rest of the stretch if output came meanwhile, else releases.
func (q *quietRelease) fire() {
	if wait := outputQuiet - time.Since(time.Unix(0, q.last.Load())); wait > 0 {
		q.timer.Reset(wait)
		return
	}
	q.armed.Store(false)
	q.release()
	// Output that came between the look at last and disarming found the
	// timer armed and did not re-arm it: look again.
	if time.Since(time.Unix(0, q.last.Load())) < outputQuiet && q.armed.CompareAndSwap(false, true) {
		q.timer.Reset(outputQuiet)
	}
}

// heapSamples are the runtime metrics worthReleasing reads.
var heapSamples = []metrics.Sample{
	{Name: "/gc/heap/live:bytes"},                // marked live by the last collection
	{Name: "/memory/classes/heap/objects:bytes"}, // live and not yet collected
	{Name: "/memory/classes/heap/free:bytes"},    // free, not yet returned
}

var heapMu sync.Mutex // guards heapSamples

// afterOutput runs once output has been quiet: the panes that printed let go
// of what they grew to take it in, then the memory goes back if that is
// worth it.
func (s *Server) afterOutput() {
	var panes []*pane.Pane
	s.withLock(func() {
		for _, e := range s.panes {
			panes = append(panes, e.p)
		}
	})
	for _, p := range panes {
		p.Trim()
	}
	pane.ReleaseChunks()
	releaseIfWorth()
}

// releaseIfWorth collects and returns free pages to the system when that is
// worth it.
func releaseIfWorth() {
	if worthReleasing() {
		debug.FreeOSMemory()
	}
}

// worthReleasing reports whether collecting and returning free pages now
// would give back at least releaseMin and an eighth of the live heap.
func worthReleasing() bool {
	heapMu.Lock()
	defer heapMu.Unlock()
	metrics.Read(heapSamples)
	live, objects, free := heapSamples[0].Value.Uint64(), heapSamples[1].Value.Uint64(), heapSamples[2].Value.Uint64()
	waste := free
	if objects > live {
		waste += objects - live
	}
	return waste >= max(releaseMin, live/8)
}
