package orchestrator

import "sync"

// locked runs f with mu held, and releases it however f ends: an
// observer's callback that panics in one of a leg's calls must not leave
// the others waiting on the lock.
func locked(mu *sync.Mutex, f func()) {
	mu.Lock()
	defer mu.Unlock()
	f()
}
