package term

import (
	"testing"
	"time"
)

// A panic inside one of Write's locked sections, a bug in this package's
// own code (vt10x's panics are recovered where it is called), goes up to
// the pane's reader, which recovers it and promises a pane that can still
// be read: the lock must be let go on the way, or every Snapshot of the
// pane, and whoever draws it, would wait for ever.
func TestWritePanicReleasesLock(t *testing.T) {
	tm := New(20, 5, Options{})
	// Reclaiming cluster codes is called under the lock while a write
	// places a character with a combining mark: the second such
	// character, with a floor of one, reclaims.
	tm.clusters.floor = 1
	tm.clusters.reclaim = func() { panic("injected") }
	var got any
	func() {
		defer func() { got = recover() }()
		tm.Write([]byte("e\u0301 a\u0300 o\u0302"))
	}()
	if got != "injected" {
		t.Fatalf("the write recovered %v, want the injected panic", got)
	}
	tm.clusters.reclaim = nil
	done := make(chan []string)
	go func() {
		tm.Write([]byte("\r\nafter"))
		done <- tm.Lines()
	}()
	select {
	case lines := <-done:
		if len(lines) < 2 || lines[1] != "after" {
			t.Errorf("lines after the panic %q, want \"after\" on the second", lines)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Write and Lines still wait 30 s after a panic under the lock: it was left held")
	}
}
