package pane

import (
	"sync"

	"github.com/melmux/melmux/pane/term"
)

// retained keeps the last bytes the program wrote, numbered from the first
// byte written after Retain was called, so that a mirror of the pane on
// another machine can ask for what it has not seen yet, from an offset, and
// lose nothing over a dropped link as long as the bytes are still held.
type retained struct {
	mu    sync.Mutex // guards buf, end and limit; held while a chunk is applied, so a snapshot and end agree
	buf   []byte     // the last bytes, at most max; buf[len(buf)-1] is byte end-1
	end   int64      // bytes written since retention began
	limit int
}

// Retain starts keeping the last limit bytes of output (idempotent; a later
// call may raise the limit). From then on the pane's emulator answers no
// queries itself: the bytes are drawn by the mirror's emulator, which does,
// and a program answered twice would take the second answer for typing.
func (p *Pane) Retain(limit int) {
	if r := p.ret.Load(); r != nil {
		r.raise(limit)
		return
	}
	if !p.ret.CompareAndSwap(nil, &retained{limit: limit}) {
		p.Retain(limit) // another call won the race: raise its limit
	}
}

// raise keeps at least limit bytes from now on.
func (r *retained) raise(limit int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.limit = max(r.limit, limit)
}

// mirrored says the pane's output is retained for a mirror (Retain).
func (p *Pane) mirrored() bool { return p.ret.Load() != nil }

// applyOutput feeds b to the emulator and, when retained, keeps it, both
// under the retention lock so that SnapshotAt sees a screen and an offset
// that agree.
func (p *Pane) applyOutput(b []byte) {
	r := p.ret.Load()
	if r == nil {
		p.term.Write(b)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	p.term.Write(b)
	r.end += int64(len(b))
	if len(b) >= r.limit {
		r.buf = append(r.buf[:0], b[len(b)-r.limit:]...)
		return
	}
	if over := len(r.buf) + len(b) - r.limit; over > 0 {
		// Shift rather than ring: reads take a slice as it is, and a
		// pane over its limit moves limit bytes per limit bytes written.
		r.buf = append(r.buf[:0], r.buf[over:]...)
	}
	r.buf = append(r.buf, b...)
}

// OutputSince returns a copy of the retained output from offset from, at
// most n bytes, and the offset after it. ok is false when from is older than
// what is retained (or retention is off): the caller must start again from
// a snapshot (SnapshotAt).
func (p *Pane) OutputSince(from int64, n int) (data []byte, next int64, ok bool) {
	r := p.ret.Load()
	if r == nil {
		return nil, 0, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	start := r.end - int64(len(r.buf))
	if from < start || from > r.end {
		return nil, r.end, false
	}
	data = r.buf[from-start:]
	if len(data) > n {
		data = data[:n]
	}
	return append([]byte(nil), data...), from + int64(len(data)), true
}

// SnapshotAt returns the screen and the output offset it shows: the bytes
// from that offset on are what came after it. Retention must be on.
func (p *Pane) SnapshotAt() (*term.Screen, int64) {
	r := p.ret.Load()
	if r == nil {
		return p.term.Snapshot(), 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return p.term.Snapshot(), r.end
}

// OutputEnd is the offset after the last retained byte.
func (p *Pane) OutputEnd() int64 {
	r := p.ret.Load()
	if r == nil {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.end
}
