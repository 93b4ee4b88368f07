package agentverbs

import "sync"

// locked runs f with mu held, and releases it however f ends: a panic in
// f, which a goroutine's recover may confine, must not leave the REPL's
// terminal or the session's report locked. Sections on a per-key path, and
// those that return what they read, are methods that lock and defer the
// Unlock themselves.
func locked(mu *sync.Mutex, f func()) {
	mu.Lock()
	defer mu.Unlock()
	f()
}
