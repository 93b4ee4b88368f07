package sched

import (
	"runtime"
	"sync"
	"testing"
	"time"
)

// feeder is a Sched of slots feed slots.
func feeder(slots int) *Sched {
	return New(Config{Slots: slots})
}

// feed is where the hold holds: a neighbour's output reaches its emulator
// only once the echo of the key typed into another pane is drawn.
func TestFeedWaitsForTheEcho(t *testing.T) {
	s := feeder(1)
	s.echo.begin(1)
	holdLong(&s.echo)
	fed := make(chan struct{})
	go s.Feed(2, func() { close(fed) })
	waitParked(t, &s.echo, 1, fed)
	s.echo.end()
	select {
	case <-fed:
	case <-time.After(30 * time.Second):
		t.Fatal("pane 2's output was not fed after the echo was drawn")
	}
}

// The answer a typed key awaits is fed without a feed slot: readers of
// floods that queued for one before the key arrived would go first.
func TestTheAwaitedAnswerTakesNoFeedSlot(t *testing.T) {
	s := feeder(1)
	s.slots <- struct{}{} // a flood parses in the only slot
	s.echo.begin(2)
	done := make(chan struct{})
	go func() {
		s.Feed(2, func() {})
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the echo of a typed key waited for a feed slot")
	}
	if len(s.slots) != 1 {
		t.Errorf("%d slots taken, want the flood's 1", len(s.slots))
	}
	s.echo.end()
	<-s.slots
	s.Feed(2, func() {}) // no key awaits it now: it takes a slot and gives it back
	if len(s.slots) != 0 {
		t.Errorf("%d slots taken after a feed", len(s.slots))
	}
}

// waitSlots waits until n of s's feed slots are taken.
func waitSlots(t *testing.T, s *Sched, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); len(s.slots) != n; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d feed slots taken, want %d", len(s.slots), n)
		}
	}
}

// While a person types, the floods parse in one slot fewer, and get it back
// once the typing stops; with a single slot nothing is kept from them.
func TestTypingKeepsAFeedSlotFromTheFloods(t *testing.T) {
	s := feeder(2)
	s.reserve.window = time.Hour
	s.typing()
	waitSlots(t, s, 1)
	s.typing() // more keys keep the one slot
	s.Feed(1, func() {})
	if len(s.slots) != 1 {
		t.Fatalf("%d slots taken after more keys and a feed, want 1", len(s.slots))
	}
	s.reserve.mu.Lock()
	s.reserve.timer.Reset(0) // the typing stopped
	s.reserve.mu.Unlock()
	waitSlots(t, s, 0)

	one := feeder(1)
	one.typing()
	one.Feed(1, func() {}) // would wait for ever were the only slot kept
	if one.reserve.timer != nil {
		t.Error("a reservation began with a single slot")
	}
}

// While a person types, a pane other than the one typed into keeps its
// slot idle for as long again as it parsed; the pane typed into parses with
// no slot and no pause, and every pane once the typing has stopped with no
// pause.
func TestTypingPacesTheOtherPanesFloods(t *testing.T) {
	var mu sync.Mutex // guards paused
	var paused []time.Duration
	record := func(d time.Duration) {
		mu.Lock()
		paused = append(paused, d)
		mu.Unlock()
	}
	pauses := func() []time.Duration {
		mu.Lock()
		defer mu.Unlock()
		out := paused
		paused = nil
		return out
	}
	s := feeder(1)
	s.pause = record
	parse := func() { time.Sleep(5 * time.Millisecond) }
	s.Feed(2, parse)
	if got := pauses(); len(got) != 0 {
		t.Fatalf("nobody typed, yet a flood paused %v", got)
	}
	s.echo.begin(1) // keys for pane 1, whose echo came
	s.echo.end()
	s.typing()
	s.Feed(2, parse)
	if got := pauses(); len(got) != 1 || got[0] < 5*time.Millisecond {
		t.Fatalf("while a person types in pane 1, pane 2's flood paused %v, want once for at least its 5ms parse", got)
	}
	s.slots <- struct{}{} // a flood parses in the only slot
	s.Feed(1, parse)      // would wait for ever for the slot
	if got := pauses(); len(got) != 0 {
		t.Fatalf("the pane typed into paused %v", got)
	}
	<-s.slots
	s.typedUntil.Store(time.Now().UnixNano()) // the typing window has passed
	s.Feed(2, parse)
	if got := pauses(); len(got) != 0 {
		t.Fatalf("after the typing, a flood paused %v", got)
	}
}

func TestFeedLeavesAPFree(t *testing.T) {
	s := feeder(1)
	ran := false
	s.Feed(1, func() { ran = true })
	if !ran || len(s.slots) != 0 {
		t.Fatalf("feed ran apply: %v, slots taken after: %d", ran, len(s.slots))
	}
	func() {
		defer func() { _ = recover() }()
		s.Feed(1, func() { panic("emulator") })
	}()
	if len(s.slots) != 0 {
		t.Error("a panicking feed kept its slot")
	}
	if n := FeedSlots(false); n < 1 {
		t.Errorf("FeedSlots(false) = %d, want at least 1", n)
	}
	if n, procs := FeedSlots(true), runtime.GOMAXPROCS(0); n != procs {
		t.Errorf("FeedSlots(true) = %d, want one per P (%d): the spare P comes with a client", n, procs)
	}
}

// A Sched that owns GOMAXPROCS runs the spare P only while a client is
// attached (a P keeps its own cache of spans), and one that does not own it
// leaves it alone.
func TestSpareProcOnlyWhileAttached(t *testing.T) {
	old := runtime.GOMAXPROCS(0)
	t.Cleanup(func() { runtime.GOMAXPROCS(old) })
	runtime.GOMAXPROCS(2)
	s := New(Config{SpareProc: true})
	s.Attached(0)
	if n := runtime.GOMAXPROCS(0); n != 2 {
		t.Fatalf("no client: GOMAXPROCS %d, want 2", n)
	}
	s.Attached(1)
	if n := runtime.GOMAXPROCS(0); n != 3 {
		t.Fatalf("a client attached: GOMAXPROCS %d, want 3", n)
	}
	s.Attached(2)
	if n := runtime.GOMAXPROCS(0); n != 3 {
		t.Fatalf("two clients: GOMAXPROCS %d, want 3 (one spare P, not one per client)", n)
	}
	s.Attached(0)
	if n := runtime.GOMAXPROCS(0); n != 2 {
		t.Fatalf("the clients left: GOMAXPROCS %d, want 2", n)
	}
	runtime.GOMAXPROCS(5)
	other := New(Config{})
	other.Attached(1)
	if n := runtime.GOMAXPROCS(0); n != 5 {
		t.Fatalf("a Sched without SpareProc set GOMAXPROCS to %d", n)
	}
}
