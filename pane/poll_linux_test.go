package pane

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/melmux/melmux/internal/testreq"
)

// The PTY master stays non-blocking, from the start and across a resize,
// so that a quiet pane's reader waits in the poller and holds no OS thread.
func TestThePTYMasterIsPolled(t *testing.T) {
	p := start(t, 40, 10, "sleep", "30")
	nonblocking := func() bool {
		t.Helper()
		raw, err := p.ptmx.SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		var flags int
		if cerr := raw.Control(func(fd uintptr) { flags, err = unix.FcntlInt(fd, unix.F_GETFL, 0) }); cerr != nil || err != nil {
			t.Fatal(cerr, err)
		}
		return flags&unix.O_NONBLOCK != 0
	}
	if !nonblocking() {
		t.Fatal("the PTY master is in blocking mode after Start")
	}
	if err := p.Resize(50, 12); err != nil {
		t.Fatal(err)
	}
	if !nonblocking() {
		t.Fatal("the PTY master is in blocking mode after Resize")
	}
}

// A running pane holds no OS thread of its own: its reader waits for output
// and its waiter for the program's end in the poller, not each in a
// blocking read or wait system call (a server of 64 panes once had 134
// threads, two a pane).
func TestRunningPanesHoldNoThreads(t *testing.T) {
	const panes = 8
	for range panes {
		p := start(t, 20, 5, "sleep", "30")
		deadline := time.Now().Add(10 * time.Second)
		for !p.reading.Load() {
			if time.Now().After(deadline) {
				t.Fatal("the reader never waited for output")
			}
			time.Sleep(time.Millisecond)
		}
	}
	if held := threadsIn(t, unix.SYS_READ, unix.SYS_WAITID, unix.SYS_WAIT4); held >= panes {
		t.Fatalf("%d threads wait in read or wait system calls with %d panes running; want fewer than one a pane", held, panes)
	}
}

// threadsIn counts this process's threads blocked in one of the system
// calls given (the first field of /proc/self/task/TID/syscall).
func threadsIn(t *testing.T, calls ...int) int {
	t.Helper()
	tasks, err := filepath.Glob("/proc/self/task/*/syscall")
	if err != nil || len(tasks) == 0 {
		testreq.Skip(t, fmt.Sprintf("no /proc/self/task: %v", err))
	}
	want := map[string]bool{}
	for _, c := range calls {
		want[strconv.Itoa(c)] = true
	}
	n := 0
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // the thread ended
		}
		if fields := strings.Fields(string(b)); len(fields) > 0 && want[fields[0]] {
			n++
		}
	}
	return n
}
