package pane

import (
	"context"
	"fmt"
	"sync"
	"syscall"
	"time"
)

// Input bounds. The queue holds bytes, not writes: a burst of single
// keystrokes costs what its bytes cost.
const (
	// InputLimit is the backlog above which writers wait: Write and
	// WriteContext before queueing, an attached client before reading more
	// of what its person types (see Backlog).
	InputLimit = 64 << 10
	// StallLimit is how long the program may take none of its waiting input
	// before Write and WriteContext give up and say it is not reading.
	StallLimit = 3 * time.Second
	// writeChunk is the most written to the PTY at once, so that progress
	// of a slow reader is seen within one chunk.
	writeChunk = 1 << 10
	// replyLimit is the backlog above which a terminal reply is dropped:
	// the program has not read a long way of input, and a reply cannot be
	// made to wait (it is produced inside the emulator's Write).
	replyLimit = 4 * InputLimit
)

// inputQueue is the pane's input on its way to the program, in order: what
// a person types, send_keys, pastes and the emulator's replies. One writer
// goroutine drains it into the PTY, where the kernel's own flow control
// applies: a program that does not read blocks the writer, never the caller.
type inputQueue struct {
	mu       sync.Mutex // guards the fields below
	buf      []byte     // bytes waiting, oldest first
	progress time.Time  // when the program last took bytes, or when bytes began waiting
	less     chan struct{}
	dead     error         // set once nothing will be written any more
	work     chan struct{} // capacity one: the writer has bytes to write
	// direct writes to the program's terminal what it takes at once,
	// without waiting, and says how much (set before the pane starts).
	direct func([]byte) int
}

func newInputQueue() *inputQueue {
	return &inputQueue{less: make(chan struct{}), work: make(chan struct{}, 1)}
}

// add queues b unconditionally unless the queue is dead. It returns the
// backlog before b.
func (q *inputQueue) add(b []byte) (int, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.addLocked(b)
}

func (q *inputQueue) addLocked(b []byte) (int, error) {
	if q.dead != nil {
		return 0, q.dead
	}
	n := len(q.buf)
	if len(b) == 0 {
		return n, nil
	}
	if n == 0 {
		q.progress = time.Now()
		// Nothing waits, so no write is under way either (bytes leave
		// the queue only once written): what the terminal takes now
		// goes in order without a hop through the writer's goroutine,
		// one thread wake-up less on a key's way to its program.
		if q.direct != nil {
			if b = b[q.direct(b):]; len(b) == 0 {
				return n, nil
			}
		}
	}
	q.buf = append(q.buf, b...)
	select {
	case q.work <- struct{}{}:
	default:
	}
	return n, nil
}

// addBelowLimit queues b, all of it, when the backlog is below InputLimit
// and the queue lives. It returns whether it did, the backlog before b, a
// channel closed when some of the backlog has been written, and why nothing
// will be written any more (nil while the program lives).
func (q *inputQueue) addBelowLimit(b []byte) (queued bool, n int, less <-chan struct{}, dead, err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	n, less, dead = len(q.buf), q.less, q.dead
	if dead == nil && n < InputLimit {
		_, err = q.addLocked(b)
		return true, n, less, dead, err
	}
	return false, n, less, dead, nil
}

// backlog returns the bytes waiting and a channel closed when some of them
// have been written (or the queue died).
func (q *inputQueue) backlog() (int, <-chan struct{}) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.buf), q.less
}

// stalled is how long the program has taken nothing while bytes wait; 0
// when nothing waits.
func (q *inputQueue) stalled() time.Duration {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.buf) == 0 {
		return 0
	}
	return time.Since(q.progress)
}

// next returns up to writeChunk bytes to write, without removing them.
func (q *inputQueue) next() []byte {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.buf[:min(len(q.buf), writeChunk)]
}

// wrote removes n written bytes and wakes waiters. An emptied queue gives
// its array back, so a burst's memory does not outlive it.
func (q *inputQueue) wrote(n int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.dead != nil {
		return // killed while the bytes were being written
	}
	q.buf = q.buf[n:]
	if len(q.buf) == 0 {
		q.buf = nil
	}
	q.progress = time.Now()
	close(q.less)
	q.less = make(chan struct{})
}

// kill drops what waits and refuses more with err: the program is gone.
func (q *inputQueue) kill(err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.dead != nil {
		return
	}
	q.dead = err
	q.buf = nil
	close(q.less)
	q.less = make(chan struct{})
}

// writeLoop drains the queue into the PTY until the pane closes.
func (p *Pane) writeLoop() {
	q := p.in
	for {
		select {
		case <-q.work:
		case <-p.closed:
			return
		}
		for {
			b := q.next()
			if len(b) == 0 {
				break
			}
			n, err := p.ptmx.Write(b)
			if err != nil {
				// The program's side of the PTY is gone; whatever waits
				// can never be read.
				p.logf("pane %d: write: %v", p.id, err)
				q.kill(ErrExited)
				return
			}
			q.wrote(n)
		}
	}
}

// writeNow writes to the PTY what it takes without waiting (none when its
// buffer is full or the program's side is gone: the writer then meets it).
func (p *Pane) writeNow(b []byte) int {
	raw, err := p.ptmx.SyscallConn()
	if err != nil {
		return 0
	}
	n := 0
	_ = raw.Write(func(fd uintptr) bool {
		if m, err := syscall.Write(int(fd), b); err == nil && m > 0 {
			n = m
		}
		return true // one try: waiting is the writer's
	})
	return n
}

// reply queues the emulator's answers to device queries. It must not block:
// the emulator calls it from inside Write.
func (p *Pane) reply(b []byte) {
	if p.mirrored() {
		return
	}
	q := p.in
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.buf) >= replyLimit {
		p.logf("pane %d: dropped a %d byte terminal reply: the program has not read %d bytes of input", p.id, len(b), len(q.buf))
		return
	}
	_, _ = q.addLocked(b)
}

// Type queues what a person typed. It never drops and never blocks: a
// person's keystrokes are held by the caller (see Backlog), not refused.
// It fails only when the program has ended.
func (p *Pane) Type(b []byte) error {
	if err := p.usable(); err != nil {
		return err
	}
	_, err := p.in.add(b)
	if err == nil && len(b) > 0 {
		p.lastInput.Store(time.Now().UnixNano())
	}
	return err
}

// Backlog returns how many input bytes wait for the program and a channel
// closed when the program has taken some of them. A caller that feeds the
// pane from someone typing stops reading them while the backlog is at least
// InputLimit, as a terminal's kernel stops taking input a program does not
// read.
func (p *Pane) Backlog() (int, <-chan struct{}) { return p.in.backlog() }

// InputStalled is how long the program has taken none of the input waiting
// for it; 0 when none waits.
func (p *Pane) InputStalled() time.Duration { return p.in.stalled() }

// Write queues b for the program's input, all of it or nothing. It waits
// while the backlog is at least InputLimit and the program is reading; see
// WriteContext.
func (p *Pane) Write(b []byte) error { return p.WriteContext(context.Background(), b) }

// WriteContext queues b, all of it or nothing, once the backlog is below
// InputLimit. While it is not, it waits for the program to read; when the
// program takes nothing for StallLimit (while this call waits) it fails with
// an ErrInputFull saying so, having queued none of b.
func (p *Pane) WriteContext(ctx context.Context, b []byte) error {
	start := time.Now()
	for {
		if err := p.usable(); err != nil {
			return err
		}
		queued, n, less, dead, err := p.in.addBelowLimit(b)
		if queued {
			if err == nil && len(b) > 0 {
				p.lastInput.Store(time.Now().UnixNano())
			}
			return err
		}
		if dead != nil {
			return dead
		}
		// Still for StallLimit, and for all of this call: a program that
		// has just begun to read again is given its chance.
		stalled := min(p.in.stalled(), time.Since(start))
		if stalled >= StallLimit {
			return fmt.Errorf("%w: it has taken none of the %d bytes waiting for %s; none of these %d bytes were sent",
				ErrInputFull, n, stalled.Round(100*time.Millisecond), len(b))
		}
		t := time.NewTimer(StallLimit - stalled)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%d bytes of input wait for the program; none of these %d bytes were sent: %w", n, len(b), ctx.Err())
		case <-p.exited:
		case <-p.closed:
		case <-less:
		case <-t.C:
		}
		t.Stop()
	}
}

// usable says why input can no longer be queued, if so.
func (p *Pane) usable() error {
	select {
	case <-p.closed:
		return ErrClosed
	case <-p.exited:
		return ErrExited
	default:
		return p.refusal()
	}
}
