package web

import "sync"

// locked runs f with mu held, and releases it however f ends: a panic in
// f, which net/http recovers for the request that made it, must not leave
// the server locked for every other page and login for the rest of the
// process's life.
func locked(mu *sync.Mutex, f func()) {
	mu.Lock()
	defer mu.Unlock()
	f()
}
