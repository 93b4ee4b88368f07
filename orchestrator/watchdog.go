package orchestrator

import (
	"io"
	"time"
)

// watchdog calls fire once when it has not been reset for its bound. A nil
// *watchdog (no bound) never fires.
type watchdog struct {
	bound time.Duration
	t     *time.Timer
}

// newWatchdog starts a watchdog; bound <= 0 returns nil, one that never
// fires.
func newWatchdog(bound time.Duration, fire func()) *watchdog {
	if bound <= 0 {
		return nil
	}
	return &watchdog{bound: bound, t: time.AfterFunc(bound, fire)}
}

// reset starts the bound again: the endpoint has just been heard from.
func (w *watchdog) reset() {
	if w != nil {
		w.t.Reset(w.bound)
	}
}

func (w *watchdog) stop() {
	if w != nil {
		w.t.Stop()
	}
}

// reader resets w on every read that brings bytes.
func (w *watchdog) reader(r io.ReadCloser) io.ReadCloser {
	if w == nil {
		return r
	}
	return &watchedBody{ReadCloser: r, w: w}
}

type watchedBody struct {
	io.ReadCloser
	w *watchdog
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.w.reset()
	}
	return n, err
}
