package server

import (
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// TestQuietReleaseOncePerBurst: output arms the release, more output while
// armed does not add wake-ups, and once the release ran after the burst the
// timer is disarmed, so an idle server is woken by nothing.
func TestQuietReleaseOncePerBurst(t *testing.T) {
	fired := make(chan struct{}, 10)
	q := newQuietRelease(func() { fired <- struct{}{} })
	for range 3 {
		for range 100 {
			q.note()
		}
		select {
		case <-fired:
		case <-time.After(30 * time.Second):
			t.Fatal("no release 30 s after the output stopped")
		}
		if !waitFor(func() bool { return !q.armed.Load() }) {
			t.Fatal("the timer is still armed after the release: an idle server would wake")
		}
		if n := len(fired); n != 0 {
			t.Fatalf("%d more releases after one burst, want none", n)
		}
	}
}

// TestQuietReleaseNotHeldOffByLaterWork: work that follows output (state
// saves, agent-state decisions) arms the release but does not postpone one
// that output made due.
func TestQuietReleaseNotHeldOffByLaterWork(t *testing.T) {
	fired := make(chan struct{}, 10)
	q := newQuietRelease(func() { fired <- struct{}{} })
	q.note()
	deadline := time.After(30 * time.Second)
	for {
		q.later()
		select {
		case <-fired:
			return
		case <-deadline:
			t.Fatal("no release 30 s after the output stopped: later work held it off")
		case <-time.After(time.Millisecond):
		}
	}
}

// waitFor polls cond until it holds, up to 30 s.
func waitFor(cond func() bool) bool {
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if cond() {
			return true
		}
	}
	return false
}

var sink [][]byte

// TestWorthReleasing: 32 MiB of garbage is worth returning; right after it
// was returned, nothing is. It runs in a process of its own (this test
// binary again, running this test alone): with collection off, what other
// tests' servers allocate meanwhile (a pane retiring at their quiet moment
// builds a scratch emulator) counts as garbage and made the second check
// fail under CI's load.
func TestWorthReleasing(t *testing.T) {
	if os.Getenv(worthAloneEnv) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestWorthReleasing$", "-test.count=1")
		cmd.Env = append(os.Environ(), worthAloneEnv+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "worth-releasing checked") {
			t.Fatalf("the check in a process of its own: %v\n%s", err, out)
		}
		return
	}
	debug.FreeOSMemory()
	// No collection while the garbage is made: one would count the garbage
	// as live (it still was) until the next.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	for range 32 << 10 {
		sink = append(sink, make([]byte, 1024))
	}
	sink = nil
	if !worthReleasing() {
		t.Error("32 MiB of garbage: not worth releasing")
	}
	debug.FreeOSMemory()
	if worthReleasing() {
		t.Error("worth releasing right after FreeOSMemory")
	}
	fmt.Println("worth-releasing checked")
}

// worthAloneEnv set says TestWorthReleasing runs in its own process.
const worthAloneEnv = "MELMUX_TEST_WORTH_ALONE"
