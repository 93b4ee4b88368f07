package server

import (
	"context"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/pane"
)

// waitDone runs h.wait(id) on its own goroutine and returns a channel closed
// when it returned.
func waitDone(h *echoFirst, id int) chan struct{} {
	done := make(chan struct{})
	go func() {
		h.wait(id)
		close(done)
	}()
	return done
}

// holdLong makes h's hold for a key last longer than any test, so that a
// reader found waiting is held by the key and not by the clock.
func holdLong(h *echoFirst) {
	h.mu.Lock()
	h.until = time.Now().Add(time.Hour)
	h.mu.Unlock()
}

// waitParked waits until n readers are parked in h.wait. A reader of held
// that returns first was not held.
func waitParked(t *testing.T, h *echoFirst, n int32, held ...chan struct{}) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); h.parked.Load() != n; time.Sleep(time.Millisecond) {
		for _, done := range held {
			select {
			case <-done:
				t.Fatal("a reader the hold should keep waiting went on")
			default:
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d readers parked, want %d", h.parked.Load(), n)
		}
	}
}

// returns waits for h.wait(id) to return.
func returns(t *testing.T, h *echoFirst, id int, what string) {
	t.Helper()
	select {
	case <-waitDone(h, id):
	case <-time.After(30 * time.Second):
		t.Fatalf("%s: pane %d's output was held", what, id)
	}
}

func TestEchoFirstHoldsOtherPanesUntilTheEchoIsDrawn(t *testing.T) {
	var h echoFirst
	returns(t, &h, 2, "no hold")
	h.begin(1)
	holdLong(&h)
	returns(t, &h, 1, "the pane typed into") // never held
	held2, held3 := waitDone(&h, 2), waitDone(&h, 3)
	waitParked(t, &h, 2, held2, held3)
	h.end()
	<-held2
	<-held3
	if h.active.Load() {
		t.Error("the hold is still on after end")
	}
	returns(t, &h, 2, "after the echo was drawn")
}

// Input arrives before the loop knows which pane it is for: the hold is
// for the pane typed into last (or none), then moves on to the pane the
// input went to, whose reader goes on at once even if it was already
// waiting, while the others stay held.
func TestEchoFirstMovesOnToThePaneTheInputWentTo(t *testing.T) {
	var h echoFirst
	h.begin(0)
	holdLong(&h)
	early := waitDone(&h, 3) // pane 3 printed before the loop found the key was for it
	waitParked(t, &h, 1, early)
	h.begin(3)
	holdLong(&h)
	select {
	case <-early:
	case <-time.After(30 * time.Second):
		t.Fatal("pane 3, the key's pane, stayed held for the pane the input was first thought to be for")
	}
	returns(t, &h, 3, "the pane the input went to")
	held := waitDone(&h, 1)
	waitParked(t, &h, 1, held)
	h.end()
	<-held
}

// feeder is a server of slots feed slots, no more: what feed needs.
func feeder(slots int) *Server {
	return &Server{feedSlots: make(chan struct{}, slots), tune: tuning{}.orDefaults()}
}

// feed is where the hold holds: a neighbour's output reaches its emulator
// only once the echo of the key typed into another pane is drawn.
func TestFeedWaitsForTheEcho(t *testing.T) {
	s := feeder(1)
	s.echo.begin(1)
	holdLong(&s.echo)
	fed := make(chan struct{})
	go s.feed(2, func() { close(fed) })
	waitParked(t, &s.echo, 1, fed)
	s.echo.end()
	select {
	case <-fed:
	case <-time.After(30 * time.Second):
		t.Fatal("pane 2's output was not fed after the echo was drawn")
	}
}

func TestEchoFirstHoldEnds(t *testing.T) {
	var h echoFirst
	h.begin(1)
	held := waitDone(&h, 2)
	// No answer ever comes (a password prompt): the hold lapses by itself.
	h.mu.Lock()
	h.until = time.Now()
	h.mu.Unlock()
	<-held
	h.wait(2)
	if h.active.Load() {
		t.Error("a lapsed hold is still on")
	}
}

// A frame being drawn holds every pane's output (the key's answer aside)
// until it is out, or for frameHold at most.
func TestAFrameBeingDrawnHoldsThePanes(t *testing.T) {
	var h echoFirst
	var mu sync.Mutex
	var order []string
	note := func(s string) {
		mu.Lock()
		order = append(order, s)
		mu.Unlock()
	}
	h.beginFrame()
	fed := make(chan struct{})
	go func() {
		h.wait(1)
		note("fed")
		close(fed)
	}()
	note("drawn")
	h.endFrame()
	<-fed
	if want := []string{"drawn", "fed"}; !slices.Equal(order, want) {
		t.Fatalf("order %q, want %q: output was fed while a frame was drawn", order, want)
	}
	if h.active.Load() {
		t.Error("the hold is still on after the frame")
	}

	h.begin(2)
	h.beginFrame()
	h.wait(2) // the answer a key awaits is not held by a frame
	if h.keyHeld() <= 0 {
		t.Error("keyHeld says no key awaits its answer")
	}
	h.mu.Lock()
	h.frameEnd = time.Now() // a frame to a client that reads slowly
	h.until = time.Now()
	h.mu.Unlock()
	h.wait(1)
	if h.keyHeld() != 0 {
		t.Error("keyHeld still counts a lapsed hold")
	}
	h.endFrame()
	if h.active.Load() {
		t.Error("the hold is still on after the frame and the key")
	}
}

// The answer a typed key awaits is fed without a feed slot: readers of
// floods that queued for one before the key arrived would go first.
func TestTheAwaitedAnswerTakesNoFeedSlot(t *testing.T) {
	s := feeder(1)
	s.feedSlots <- struct{}{} // a flood parses in the only slot
	s.echo.begin(2)
	done := make(chan struct{})
	go func() {
		s.feed(2, func() {})
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the echo of a typed key waited for a feed slot")
	}
	if len(s.feedSlots) != 1 {
		t.Errorf("%d slots taken, want the flood's 1", len(s.feedSlots))
	}
	s.echo.end()
	<-s.feedSlots
	s.feed(2, func() {}) // no key awaits it now: it takes a slot and gives it back
	if len(s.feedSlots) != 0 {
		t.Errorf("%d slots taken after a feed", len(s.feedSlots))
	}
}

// waitSlots waits until n of s's feed slots are taken.
func waitSlots(t *testing.T, s *Server, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); len(s.feedSlots) != n; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d feed slots taken, want %d", len(s.feedSlots), n)
		}
	}
}

// While a person types, the floods parse in one slot fewer, and get it back
// once the typing stops; with a single slot nothing is kept from them.
func TestTypingKeepsAFeedSlotFromTheFloods(t *testing.T) {
	s := feeder(2)
	s.typingReserve.window = time.Hour
	s.typing()
	waitSlots(t, s, 1)
	s.typing() // more keys keep the one slot
	s.feed(1, func() {})
	if len(s.feedSlots) != 1 {
		t.Fatalf("%d slots taken after more keys and a feed, want 1", len(s.feedSlots))
	}
	s.typingReserve.mu.Lock()
	s.typingReserve.timer.Reset(0) // the typing stopped
	s.typingReserve.mu.Unlock()
	waitSlots(t, s, 0)

	one := feeder(1)
	one.typing()
	one.feed(1, func() {}) // would wait for ever were the only slot kept
	if one.typingReserve.timer != nil {
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
	s.tune.pause = record
	parse := func() { time.Sleep(5 * time.Millisecond) }
	s.feed(2, parse)
	if got := pauses(); len(got) != 0 {
		t.Fatalf("nobody typed, yet a flood paused %v", got)
	}
	s.echo.begin(1) // keys for pane 1, whose echo came
	s.echo.end()
	s.typing()
	s.feed(2, parse)
	if got := pauses(); len(got) != 1 || got[0] < 5*time.Millisecond {
		t.Fatalf("while a person types in pane 1, pane 2's flood paused %v, want once for at least its 5ms parse", got)
	}
	s.feedSlots <- struct{}{} // a flood parses in the only slot
	s.feed(1, parse)          // would wait for ever for the slot
	if got := pauses(); len(got) != 0 {
		t.Fatalf("the pane typed into paused %v", got)
	}
	<-s.feedSlots
	s.typedUntil.Store(time.Now().UnixNano()) // the typing window has passed
	s.feed(2, parse)
	if got := pauses(); len(got) != 0 {
		t.Fatalf("after the typing, a flood paused %v", got)
	}
}

func TestFeedLeavesAPFree(t *testing.T) {
	s := feeder(1)
	ran := false
	s.feed(1, func() { ran = true })
	if !ran || len(s.feedSlots) != 0 {
		t.Fatalf("feed ran apply: %v, slots taken after: %d", ran, len(s.feedSlots))
	}
	func() {
		defer func() { _ = recover() }()
		s.feed(1, func() { panic("emulator") })
	}()
	if len(s.feedSlots) != 0 {
		t.Error("a panicking feed kept its slot")
	}
	if n := feedSlots(false); n < 1 {
		t.Errorf("feedSlots(false) = %d, want at least 1", n)
	}
	if n, procs := feedSlots(true), runtime.GOMAXPROCS(0); n != procs {
		t.Errorf("feedSlots(true) = %d, want one per P (%d): the spare P comes with a client", n, procs)
	}
}

// The frame of a typed key's echo takes only the typed-into pane's screen
// anew: a neighbour that printed since it was drawn keeps the screen (and
// title) drawn last, and the frame says so, so that a full frame follows.
func TestEchoFrameTakesOnlyTheTypedPane(t *testing.T) {
	t.Parallel()
	s, c := startServer(t)
	ctx := context.Background()
	if err := c.Call(ctx, "new", proto.NewParams{Command: []string{"sh", "-c", "echo one; read x; printf '\\033]0;second\\007'; echo two; exec sleep 600"}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, "open_pane", proto.OpenPaneParams{Layout: "right", Argv: []string{"sh", "-c", "echo typed; exec cat"}}, nil); err != nil {
		t.Fatal(err)
	}
	for pane, want := range map[int]string{1: "^one$", 2: "^typed$"} {
		if err := c.Call(ctx, "wait", proto.WaitParams{Pane: pane, Match: want, Screen: true, TimeoutMS: 10000}, nil); err != nil {
			t.Fatal(err)
		}
	}
	viewer := &client{tty: newConnTty(nil, nil, 120, 40)}
	full, _ := s.scene(viewer)
	if err := c.Call(ctx, "send_keys", proto.SendKeysParams{Pane: 1, Text: "\n"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, "wait", proto.WaitParams{Pane: 1, Match: "^two$", Screen: true, TimeoutMS: 10000}, nil); err != nil {
		t.Fatal(err)
	}
	echo, _, stale := s.sceneFresh(viewer, 2)
	if echo.Panes[0].Screen != full.Panes[0].Screen || !stale {
		t.Fatalf("the echo's frame renewed the neighbour's screen (%v) or did not say it is stale (%v)",
			echo.Panes[0].Screen != full.Panes[0].Screen, stale)
	}
	if echo.Panes[0].Title != full.Panes[0].Title {
		t.Errorf("the echo's frame read the neighbour's title anew: %q, drawn last %q", echo.Panes[0].Title, full.Panes[0].Title)
	}
	if echo.Panes[1].ID != 2 || !strings.Contains(snapshotText(echo.Panes[1].Screen), "typed") {
		t.Fatal("the echo's frame lacks the typed-into pane")
	}
	next, _, stale := s.sceneFresh(viewer, 0)
	if stale || !strings.Contains(snapshotText(next.Panes[0].Screen), "two") || next.Panes[0].Title != "second" {
		t.Fatalf("the full frame after it does not show the neighbour as it is (stale %v, title %q)", stale, next.Panes[0].Title)
	}
	if _, _, stale := s.sceneFresh(viewer, 2); stale {
		t.Error("an echo frame with nothing new beside it says a full frame must follow")
	}
	// Nor does it wait for a lookup in /proc, even one due for the typed pane.
	var looked atomic.Int32
	hook := func(*pane.Pane) { looked.Add(1) }
	s.hooks.look.Store(&hook)
	s.mu.Lock()
	for _, e := range s.panes {
		e.kindAt = time.Time{}
	}
	s.mu.Unlock()
	s.sceneFresh(viewer, 2)
	if n := looked.Load(); n != 0 {
		t.Errorf("the echo's frame looked up %d panes' processes", n)
	}
}

// A server that owns GOMAXPROCS runs the spare P only while a client is
// attached (a P keeps its own cache of spans), and one that does not own it
// leaves it alone.
func TestSpareProcOnlyWhileAttached(t *testing.T) {
	old := runtime.GOMAXPROCS(0)
	t.Cleanup(func() { runtime.GOMAXPROCS(old) })
	s := &Server{procs: 2, clients: map[*client]struct{}{}}
	s.spareProcLocked()
	if n := runtime.GOMAXPROCS(0); n != 2 {
		t.Fatalf("no client: GOMAXPROCS %d, want 2", n)
	}
	c := &client{}
	s.clients[c] = struct{}{}
	s.spareProcLocked()
	if n := runtime.GOMAXPROCS(0); n != 3 {
		t.Fatalf("a client attached: GOMAXPROCS %d, want 3", n)
	}
	s.clients[&client{}] = struct{}{}
	s.spareProcLocked()
	if n := runtime.GOMAXPROCS(0); n != 3 {
		t.Fatalf("two clients: GOMAXPROCS %d, want 3 (one spare P, not one per client)", n)
	}
	clear(s.clients)
	s.spareProcLocked()
	if n := runtime.GOMAXPROCS(0); n != 2 {
		t.Fatalf("the clients left: GOMAXPROCS %d, want 2", n)
	}
	runtime.GOMAXPROCS(5)
	other := &Server{clients: map[*client]struct{}{c: {}}}
	other.spareProcLocked()
	if n := runtime.GOMAXPROCS(0); n != 5 {
		t.Fatalf("a server without SpareProc set GOMAXPROCS to %d", n)
	}
}
