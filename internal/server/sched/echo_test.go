package sched

import (
	"slices"
	"sync"
	"testing"
	"time"
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
