package remote

import "sync"

// locked runs f with mu held, and releases it however f ends: a panic in
// f (which a goroutine's recover may confine) must not leave the relay or
// the link locked for the rest of the process's life. Sections that wait
// on a sync.Cond, or return what they read, are methods that lock and
// defer the Unlock themselves.
func locked(mu *sync.Mutex, f func()) {
	mu.Lock()
	defer mu.Unlock()
	f()
}
