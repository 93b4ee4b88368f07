package server

import (
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

func TestEchoFirstHoldsOtherPanesUntilTheEchoIsDrawn(t *testing.T) {
	var h echoFirst
	h.wait(2) // no hold: returns at once
	h.begin(1)
	h.wait(1) // the pane typed into is never held
	held := waitDone(&h, 2)
	select {
	case <-held:
		t.Fatal("pane 2's output went on while a key typed into pane 1 awaited its echo")
	default:
	}
	h.end()
	<-held
	if h.active.Load() {
		t.Error("the hold is still on after end")
	}
	h.wait(2) // and later output is not held
}

func TestEchoFirstMovesOnToThePaneTheInputWentTo(t *testing.T) {
	var h echoFirst
	h.begin(0) // input arrived; which pane it is for is not known yet
	h.begin(3) // the loop found it is for pane 3
	h.wait(3)
	held := waitDone(&h, 1)
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

func TestFeedLeavesAPFree(t *testing.T) {
	s := &Server{feedSlots: make(chan struct{}, 1)}
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
	if n := feedSlots(); n < 1 {
		t.Errorf("feedSlots() = %d, want at least 1", n)
	}
}
