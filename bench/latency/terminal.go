package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"
)

// ErrEchoTimeout means the awaited bytes did not reach the terminal in time.
var ErrEchoTimeout = errors.New("no echo before the timeout")

// tailKeep is how many trailing bytes of the stream are kept so a marker
// split across two reads is still found; markers are shorter than this.
const tailKeep = 16

// terminal is the user's terminal: a PTY this program owns, with the attach
// command on its slave side and a reader that drains every byte the client
// writes, whether or not anyone waits for one.
type terminal struct {
	cmd  *exec.Cmd
	ptmx *os.File
	done chan struct{} // closed when the reader stopped (the client closed its side)

	mu    sync.Mutex // guards want, tail, total and readErr
	want  []byte     // bytes awaited; nil when nobody waits
	tail  []byte     // the stream's last bytes, for markers split across reads
	total int64      // bytes the client wrote so far
	seen  chan time.Time
	// readErr is why the reader stopped.
	readErr error
}

// startTerminal runs cmd on a new PTY of cols x rows.
func startTerminal(cmd *exec.Cmd, cols, rows int) (*terminal, error) {
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)})
	if err != nil {
		return nil, fmt.Errorf("start %s in a PTY: %w", cmd.Path, err)
	}
	t := &terminal{cmd: cmd, ptmx: ptmx, done: make(chan struct{}), seen: make(chan time.Time, 1)}
	go t.read()
	return t, nil
}

func (t *terminal) read() {
	defer close(t.done)
	buf := make([]byte, 64<<10)
	for {
		n, err := t.ptmx.Read(buf)
		if n > 0 {
			t.scan(buf[:n], time.Now())
		}
		if err != nil {
			func() {
				t.mu.Lock()
				defer t.mu.Unlock()
				t.readErr = err
			}()
			return
		}
	}
}

// scan looks for the awaited bytes in one chunk of output that arrived at now.
func (t *terminal) scan(chunk []byte, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.total += int64(len(chunk))
	if t.want != nil && containsAcross(t.tail, chunk, t.want) {
		t.want = nil
		select {
		case t.seen <- now:
		default:
		}
	}
	if len(chunk) >= tailKeep {
		t.tail = append(t.tail[:0], chunk[len(chunk)-tailKeep:]...)
	} else {
		t.tail = append(t.tail, chunk...)
		if len(t.tail) > tailKeep {
			t.tail = append(t.tail[:0], t.tail[len(t.tail)-tailKeep:]...)
		}
	}
}

// containsAcross reports whether want occurs in chunk or straddles the end
// of the previous bytes (tail) and the start of chunk.
func containsAcross(tail, chunk, want []byte) bool {
	if bytes.Contains(chunk, want) {
		return true
	}
	if len(tail) == 0 || len(want) < 2 {
		return false
	}
	head := chunk
	if len(head) > len(want)-1 {
		head = head[:len(want)-1]
	}
	joined := make([]byte, 0, len(tail)+len(head))
	joined = append(append(joined, tail...), head...)
	return bytes.Contains(joined, want)
}

// expect arms the watcher for want; a stale sighting of an earlier want is
// dropped, so each wait sees only its own.
func (t *terminal) expect(want []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.want = append([]byte(nil), want...)
	select {
	case <-t.seen:
	default:
	}
}

// await returns when the armed bytes arrived, or ErrEchoTimeout. A timeout
// disarms the watcher so a late echo is not taken for the next key's.
func (t *terminal) await(timeout time.Duration) (time.Time, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case at := <-t.seen:
		return at, nil
	case <-timer.C:
		func() {
			t.mu.Lock()
			defer t.mu.Unlock()
			t.want = nil
		}()
		return time.Time{}, ErrEchoTimeout
	case <-t.done:
		err := func() error {
			t.mu.Lock()
			defer t.mu.Unlock()
			return t.readErr
		}()
		return time.Time{}, fmt.Errorf("the attached client closed the terminal: %w", err)
	}
}

// typeKey writes one key and returns the moment just before the write.
func (t *terminal) typeKey(key []byte) (time.Time, error) {
	at := time.Now()
	if _, err := t.ptmx.Write(key); err != nil {
		return at, fmt.Errorf("type %q: %w", key, err)
	}
	return at, nil
}

// bytesSeen is how many bytes the client has written so far.
func (t *terminal) bytesSeen() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.total
}

// pid is the attach client's process id.
func (t *terminal) pid() int { return t.cmd.Process.Pid }

// close ends the client if it has not left by itself (its server is normally
// killed first) and releases the PTY.
func (t *terminal) close() error {
	exited := make(chan error, 1)
	go func() { exited <- t.cmd.Wait() }()
	var err error
	select {
	case err = <-exited:
	case <-time.After(3 * time.Second):
		// Only this client, by its own pid: it did not leave with its server.
		_ = t.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err = <-exited:
		case <-time.After(2 * time.Second):
			_ = t.cmd.Process.Kill()
			err = <-exited
		}
	}
	t.ptmx.Close()
	<-t.done
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		// A client whose server went away may exit non-zero; that is expected here.
		return nil
	}
	return err
}
