package muxenv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/creack/pty"
)

// Terminal is an attached client's terminal: a PTY this program owns and
// drains as fast as the client writes, counting the bytes. A drained PTY is
// fair to both multiplexers: it takes what either sends and charges
// neither for what the other draws (a real emulator would add its own
// parsing, more for whoever sends more).
type Terminal struct {
	Cmd  *exec.Cmd
	ptmx *os.File
	done chan struct{} // closed when the client closed its side
	mark []byte        // what says the end was drawn: the first letter of a marker no drawing holds before

	mu    sync.Mutex // guards n, last, tail and at
	n     int64      // bytes the client wrote
	last  time.Time  // when the last bytes came
	tail  []byte     // the last bytes, to find mark split across reads
	at    time.Time  // when mark came; zero before
	found chan struct{}
}

// StartTerminal runs cmd (an attach command) on a new PTY of cols x rows.
// mark is a few bytes that appear in nothing the client draws before the
// end: the first letter of a non-ASCII marker (UTF-8 is self-synchronising
// and a diffing renderer cannot skip a cell it never drew).
func StartTerminal(cmd *exec.Cmd, cols, rows int, mark string) (*Terminal, error) {
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)})
	if err != nil {
		return nil, fmt.Errorf("start %s in a PTY: %w", cmd.Path, err)
	}
	t := &Terminal{Cmd: cmd, ptmx: ptmx, done: make(chan struct{}), found: make(chan struct{}), mark: []byte(mark)}
	go t.read()
	return t, nil
}

func (t *Terminal) read() {
	defer close(t.done)
	buf := make([]byte, 256<<10)
	for {
		n, err := t.ptmx.Read(buf)
		if n > 0 {
			t.took(buf[:n], time.Now())
		}
		if err != nil {
			return
		}
	}
}

// took counts a read of the client's output that arrived at now, and
// looks in it for the mark.
func (t *Terminal) took(b []byte, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(b)
	t.n += int64(n)
	t.last = now
	if t.at.IsZero() {
		joined := append(t.tail, b[:min(n, len(t.mark))]...)
		if bytes.Contains(b, t.mark) || bytes.Contains(joined, t.mark) {
			t.at = now
			close(t.found)
		}
		t.tail = append(t.tail[:0], b[max(0, n-len(t.mark)+1):n]...)
	}
}

// Total is how many bytes the client has written to its terminal.
func (t *Terminal) Total() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.n
}

// drawn is how many bytes the client has written and when it last did.
func (t *Terminal) drawn() (int64, time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.n, t.last
}

// Settle waits until the client has drawn something and then nothing for
// 300 ms: its first frame is done.
func (t *Terminal) Settle(ctx context.Context, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		n, last := t.drawn()
		if n > 0 && time.Since(last) > 300*time.Millisecond {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the attached client did not draw and settle within %v (%d bytes drawn)", limit, n)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.done:
			return fmt.Errorf("the attached client left before drawing (%d bytes)", n)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Await returns when the mark was drawn.
func (t *Terminal) Await(ctx context.Context, limit time.Duration) (time.Time, error) {
	select {
	case <-t.found:
		t.mu.Lock()
		defer t.mu.Unlock()
		return t.at, nil
	case <-ctx.Done():
		return time.Time{}, ctx.Err()
	case <-t.done:
		return time.Time{}, errors.New("the attached client left before drawing the end of the stream")
	case <-time.After(limit):
		return time.Time{}, fmt.Errorf("the end of the stream was not drawn within %v", limit)
	}
}

// Close waits for the client to leave (its session or server is gone),
// ending it by its pid if it does not.
func (t *Terminal) Close() {
	exited := make(chan struct{})
	go func() { _ = t.Cmd.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(3 * time.Second):
		_ = t.Cmd.Process.Kill()
		<-exited
	}
	t.ptmx.Close()
	<-t.done
}
