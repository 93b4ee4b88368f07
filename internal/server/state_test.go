package server

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	mxclient "github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/sessionstate"
)

// withState keeps the server's state in file.
func withState(file string) func(*Config) {
	return func(c *Config) { c.StateFile = file }
}

// waitState waits, on the saver's writes, until the state file satisfies
// cond, and returns it.
func waitState(t *testing.T, s *Server, what string, cond func(*sessionstate.State) bool) *sessionstate.State {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		_, next := s.saver.written()
		if st, err := sessionstate.Read(s.saver.path); err == nil && cond(st) {
			return st
		}
		select {
		case <-next:
		case <-deadline:
			st, err := sessionstate.Read(s.saver.path)
			t.Fatalf("the state file never showed %s: %+v, %v", what, st, err)
		}
	}
}

func call(t *testing.T, c *mxclient.Client, method string, params, result any) {
	t.Helper()
	if err := c.Call(context.Background(), method, params, result); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
}

func TestStateFileFollowsTheSession(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "sessions", "t.json")
	s, c := startServer(t, withState(file))
	dir := t.TempDir()
	call(t, c, "new", proto.NewParams{Cwd: dir}, nil)
	call(t, c, "open_pane", proto.OpenPaneParams{Layout: "right", Command: "sleep 600", NoWait: true}, nil)
	call(t, c, "open_pane", proto.OpenPaneParams{Layout: "tab", Argv: []string{"sleep", "601"}, Cwd: "/", Title: "logs", NoWait: true}, nil)
	st := waitState(t, s, "three panes", func(st *sessionstate.State) bool { return len(st.Panes) == 3 })
	s.mu.Lock()
	dump := s.layout.Dump()
	s.mu.Unlock()
	if st.Layout != dump || st.Session != "t" || st.Cols != 80 || st.Rows != 24 || st.PID != os.Getpid() {
		t.Errorf("state %q %dx%d pid %d, want the layout %q at 80x24", st.Layout, st.Cols, st.Rows, st.PID, dump)
	}
	want := []sessionstate.Pane{
		{ID: 1, Argv: []string{"/bin/sh"}, Command: "/bin/sh", Shell: true, Cwd: dir},
		{ID: 2, Argv: []string{"sleep", "600"}, Command: "sleep 600", Cwd: dir},
		{ID: 3, Argv: []string{"sleep", "601"}, Command: "sleep 601", Cwd: "/", Title: "logs"},
	}
	for i, p := range st.Panes {
		p.Screen = nil
		if !slices.Equal(p.Argv, want[i].Argv) || p.ID != want[i].ID || p.Command != want[i].Command || p.Shell != want[i].Shell ||
			p.Cwd != want[i].Cwd || p.Title != want[i].Title || p.Agent != nil {
			t.Errorf("pane %d saved as %+v, want %+v", i+1, p, want[i])
		}
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the state file: %v, mode %v (want 0600: it names a person's programs and directories)", err, fi.Mode())
	}

	// Output reaches the file too: the last screen, at most every few seconds.
	call(t, c, "send_keys", proto.SendKeysParams{Pane: 1, Text: "echo remember-$((6*7))\n", NoWait: true}, nil)
	waitState(t, s, "pane 1's last screen", func(st *sessionstate.State) bool {
		return slices.Contains(st.Panes[0].Screen, "remember-42")
	})

	// A pane closed is gone from the file.
	call(t, c, "kill_pane", proto.PaneRef{Pane: 2}, nil)
	st = waitState(t, s, "two panes", func(st *sessionstate.State) bool { return len(st.Panes) == 2 })
	if st.Panes[0].ID != 1 || st.Panes[1].ID != 3 || strings.Contains(st.Layout, " 2") {
		t.Errorf("after kill_pane 2: %q %+v", st.Layout, st.Panes)
	}
}

// TestStateBurstIsWrittenOnce makes fifty layout changes at once: the file
// is written once, with the last of them, and a build equal to the file is
// not written again.
func TestStateBurstIsWrittenOnce(t *testing.T) {
	// The window is made longer than stateDebounce so that the burst fits
	// in it however loaded the machine; a burst that did not fit anyway is
	// made again, on a new server, with no write of the last one pending.
	const window = 2 * time.Second
	for attempt := 1; ; attempt++ {
		if burstWrittenOnce(t, window) {
			return
		}
		if attempt == 5 {
			t.Fatalf("no burst of 50 changes took less than %v", window)
		}
	}
}

// burstWrittenOnce makes 50 layout changes, letting go of the lock between
// them and waiting for the writer to take each in before the next, so that
// a writer that wrote at once (no debounce) would write inside the burst.
// It reports false when the burst took longer than the window, which
// leaves nothing to judge.
func burstWrittenOnce(t *testing.T, window time.Duration) bool {
	s, c := startServer(t, withState(filepath.Join(t.TempDir(), "t.json")))
	call(t, c, "new", proto.NewParams{Command: []string{"sleep", "600"}}, nil)
	call(t, c, "open_pane", proto.OpenPaneParams{Layout: "right", Command: "sleep 601", NoWait: true}, nil)
	waitState(t, s, "two panes", func(st *sessionstate.State) bool { return len(st.Panes) == 2 })
	s.saver.debounce.Store(int64(window))
	var last int // the burst ends on the pane not focused now, so that the state written last changes
	s.withLock(func() { last = 3 - s.layout.Focused() })
	before, next := s.saver.written()
	taken := s.saver.taken.Load()
	start := time.Now()
	for i := range 50 {
		s.withLock(func() {
			s.refocusLocked(func() { _ = s.layout.Focus([2]int{last, 3 - last}[(49-i)%2]) })
			s.invalidateLocked()
		})
		for deadline := time.Now().Add(30 * time.Second); s.saver.taken.Load() < taken+int64(i)+1; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the writer did not take change %d in", i+1)
			}
		}
	}
	took := time.Since(start)
	if took >= window {
		t.Logf("the burst took %v, longer than the window of %v: again", took, window)
		return false
	}
	select {
	case <-next:
		n, _ := s.saver.written()
		t.Fatalf("the state was written during a burst of 50 changes in %v (%d writes so far)", took, n-before)
	default:
	}
	select {
	case <-next:
	case <-time.After(30 * time.Second):
		t.Fatal("the burst was never written")
	}
	after, _ := s.saver.written()
	st, err := sessionstate.Read(s.saver.path)
	if err != nil {
		t.Fatal(err)
	}
	if after != before+1 || !strings.Contains(st.Layout, fmt.Sprintf("focus=%d", last)) {
		t.Errorf("a burst of 50 changes: %d writes, layout %q (want one write, focus on pane %d)", after-before, st.Layout, last)
	}
	s.saveState(false)
	if again, _ := s.saver.written(); again != after {
		t.Errorf("an unchanged state was written again (%d writes)", again-after)
	}
	return true
}

// TestStateEndings: kill_server leaves nothing to restore; a signal (the
// machine going down) keeps the file, up to date; a server that never wrote
// the file does not remove it.
func TestStateEndings(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "t.json")
	s, c := startServer(t, withState(file))
	call(t, c, "new", proto.NewParams{Command: []string{"sleep", "600"}}, nil)
	waitState(t, s, "one pane", func(st *sessionstate.State) bool { return len(st.Panes) == 1 })
	// The last change is not written yet when the signal comes.
	s.mu.Lock()
	s.cols = 100
	s.mu.Unlock()
	s.Shutdown("signal terminated")
	st, err := sessionstate.Read(file)
	if err != nil || st.Cols != 100 {
		t.Fatalf("after a signal the state should stay, up to date: %+v, %v", st, err)
	}

	// A server that wrote nothing leaves the file alone.
	idle, ic := startServer(t, withState(file))
	call(t, ic, "kill_server", nil, nil)
	<-idle.Done()
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("a server that never saved removed the state: %v", err)
	}

	// A restored session killed before its first save is over too: the
	// file it was rebuilt from goes with it.
	r, rc := startServer(t, withState(file))
	r.saver.debounce.Store(int64(time.Hour))
	call(t, rc, "restore", proto.RestoreParams{}, nil)
	call(t, rc, "kill_server", nil, nil)
	<-r.Done()
	if n, _ := r.saver.written(); n != 0 {
		t.Fatalf("the restored server saved %d times before its kill; the case needs none", n)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatalf("kill_server after a restore left the state file: %v", err)
	}

	// kill_server: the session is over, nothing to restore.
	k, kc := startServer(t, withState(file))
	call(t, kc, "new", proto.NewParams{Command: []string{"sleep", "600"}}, nil)
	waitState(t, k, "the new session", func(st *sessionstate.State) bool { return st.PID == os.Getpid() && st.Cols == 80 })
	call(t, kc, "kill_server", nil, nil)
	<-k.Done()
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatalf("kill_server left the state file: %v", err)
	}
}
