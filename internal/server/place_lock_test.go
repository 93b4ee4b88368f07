package server

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"testing"
)

// A panic while place counts the agents on each host (under Server.mu, in
// a request's recover) gives the placement slot back too: kept, it would
// stop every later spawn_agent and open_pane placement of the session.
func TestPlacePanicReleasesThePlacementSlot(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(file, []byte("[agent]\nspawn_hosts = [\"local\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, _ := startServer(t, func(c *Config) { c.ConfigFile = file })
	// Only place's section panics: the server's own goroutines take
	// Server.mu too.
	var armed atomic.Bool
	hook := func() {
		if armed.Load() && strings.Contains(string(debug.Stack()), "(*Server).place(") && armed.Swap(false) {
			panic("boom")
		}
	}
	s.hooks.lock.Store(&hook)
	armed.Store(true)
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Errorf("place recovered %v, want the hook's panic", r)
			}
		}()
		_, _ = s.place("spawn_agent", false)
	}()
	if armed.Load() {
		t.Fatal("place never took Server.mu through withLock")
	}
	if !slotFree(s) {
		t.Fatal("after a panic in place, the placement slot stayed taken: no later placement would count")
	}
	pl, err := s.place("spawn_agent", false)
	if err != nil || pl == nil || pl.host != "local" {
		t.Fatalf("the next placement: %+v, %v; want host local", pl, err)
	}
	pl.done()

	// No host with room lets go of it as well (the config is read at each
	// placement).
	if err := os.WriteFile(file, []byte("[agent]\nspawn_hosts = [\"build1\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if pl, err := s.place("spawn_agent", true); err == nil || !strings.Contains(err.Error(), "no host of [agent] spawn_hosts has room") {
		t.Fatalf("a worktree's placement with only build1: %+v, %v; want no room", pl, err)
	}
	if !slotFree(s) {
		t.Fatal("after a placement found no room, the placement slot stayed taken")
	}
}

// slotFree says the session's placement slot is free (and leaves it so).
func slotFree(s *Server) bool {
	select {
	case s.placing <- struct{}{}:
		<-s.placing
		return true
	default:
		return false
	}
}
