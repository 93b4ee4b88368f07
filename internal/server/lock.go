package server

import "sync"

// Server.mu is taken in one way only: by withLock or withFresh, or in a
// small function that defers its Unlock. Each request runs under a recover
// (Server.call) and so do the server's own goroutines (recovered), so a
// panic is confined to its work; but a panic between a Lock and a
// hand-written Unlock would leave the lock held, and every later command,
// frame and client would wait on it forever. TestLocksUnlockDeferred (the
// module root's) keeps it so, for every lock of the module.

// locked runs f holding mu, and lets go of it however f ends: the rule of
// Server.mu holds for the package's other locks too. Sections on a path
// taken per keystroke, output write or frame are small methods that lock
// and defer the Unlock themselves instead, as are those that return what
// they read.
func locked(mu *sync.Mutex, f func()) {
	mu.Lock()
	defer mu.Unlock()
	f()
}

// withLock runs f holding Server.mu, and lets go of it even when f
// panics: a panic in one request never freezes the session.
func (s *Server) withLock(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.publishLocked()
	runHook(&s.hooks.lock)
	f()
}

// publishLocked leaves what the parts that do not take Server.mu read of
// the pane table where they read it: the focused pane (Server.focus).
// withLock runs it as it lets go of the lock; a section that takes
// Server.mu by hand and may move the focus defers it too.
func (s *Server) publishLocked() {
	if s.layout != nil {
		s.focus.Store(int64(s.layout.Focused()))
	}
}

// withFresh is withLock with the lookups of panes ids (every pane when none
// is given) no older than agentKindTTL: those that are older are made
// again first, with the lock released (refreshForeground). A pane whose
// lookup cannot be kept fresh (each made takes longer than agentKindTTL)
// is read as last looked up: after three rounds f runs whatever is due.
func (s *Server) withFresh(f func(), ids ...int) {
	for round := 0; ; round++ {
		var due []*paneEntry
		s.withLock(func() {
			if round < 3 {
				due = s.lookupsDueLocked(ids)
			}
			if len(due) == 0 {
				f()
			}
		})
		if len(due) == 0 {
			return
		}
		for _, e := range due {
			s.refreshForeground(e)
		}
	}
}

// withLockErr is withLock for a section that may fail.
func (s *Server) withLockErr(f func() error) (err error) {
	s.withLock(func() { err = f() })
	return err
}

// withFreshErr is withFresh for a section that may fail.
func (s *Server) withFreshErr(f func() error, ids ...int) (err error) {
	s.withFresh(func() { err = f() }, ids...)
	return err
}

// freshDo runs f as withFresh does and returns what f returns.
func freshDo[T any](s *Server, f func() (T, error), ids ...int) (out T, err error) {
	s.withFresh(func() { out, err = f() }, ids...)
	return out, err
}
