package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"sort"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/creack/pty"
	"github.com/mattn/go-runewidth"
)

// keyTerm is the terminal of one setup: a PTY this program owns, whose
// output it keeps with the time each read came.
type keyTerm struct {
	cmd  *exec.Cmd
	ptmx *os.File
	done chan struct{}

	mu    sync.Mutex // guards out, reads and more
	out   []byte
	reads []read        // where each read ended, and when it came
	more  chan struct{} // closed and replaced at each read
}

type read struct {
	end int
	at  time.Time
}

func startKeyTerm(cmd *exec.Cmd, cols, rows int) (*keyTerm, error) {
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)})
	if err != nil {
		return nil, fmt.Errorf("start %s in a PTY: %w", cmd.Path, err)
	}
	k := &keyTerm{cmd: cmd, ptmx: ptmx, done: make(chan struct{}), more: make(chan struct{})}
	go func() {
		defer close(k.done)
		buf := make([]byte, 64<<10)
		for {
			n, err := ptmx.Read(buf)
			if n > 0 {
				k.took(buf[:n], time.Now())
			}
			if err != nil {
				return
			}
		}
	}()
	return k, nil
}

// took keeps a read of the terminal's output that arrived at now, and
// wakes the waiters.
func (k *keyTerm) took(b []byte, now time.Time) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.out = append(k.out, b...)
	k.reads = append(k.reads, read{len(k.out), now})
	close(k.more)
	k.more = make(chan struct{})
}

// find says when the read that completed s in the output after from came;
// found false with the channel closed at the next read when s is not there
// yet.
func (k *keyTerm) find(from int, s []byte) (at time.Time, found bool, more <-chan struct{}) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if i := bytes.Index(k.out[from:], s); i >= 0 {
		end := from + i + len(s)
		j := sort.Search(len(k.reads), func(j int) bool { return k.reads[j].end >= end })
		return k.reads[j].at, true, nil
	}
	return time.Time{}, false, k.more
}

// mark is how much output there is so far.
func (k *keyTerm) mark() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.out)
}

// await waits until s shows in the output after from, and says when the
// read that completed it came.
func (k *keyTerm) await(from int, s []byte, limit time.Duration) (time.Time, error) {
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	for {
		at, found, more := k.find(from, s)
		if found {
			return at, nil
		}
		select {
		case <-more:
		case <-k.done:
			return time.Time{}, fmt.Errorf("the terminal's program ended: %q", tailOf(k))
		case <-deadline.C:
			return time.Time{}, errTimeout
		}
	}
}

var errTimeout = errors.New("timed out")

func tailOf(k *keyTerm) string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return string(k.out[max(0, len(k.out)-300):])
}

func (k *keyTerm) close() {
	_ = k.cmd.Process.Kill()
	_ = k.cmd.Wait()
	k.ptmx.Close()
	<-k.done
}

// keys are n distinct letters of two UTF-8 bytes, one cell wide, that none
// of the setups draws by itself.
func keys(n int) ([][]byte, error) {
	var out [][]byte
	for _, r := range [][2]rune{{0x0100, 0x024F}, {0x0391, 0x03C9}, {0x0400, 0x0481}, {0x048A, 0x04FF}} {
		for c := r[0]; c <= r[1] && len(out) < n; c++ {
			if unicode.IsLetter(c) && runewidth.RuneWidth(c) == 1 && utf8.RuneLen(c) == 2 {
				out = append(out, []byte(string(c)))
			}
		}
	}
	if len(out) < n {
		return nil, fmt.Errorf("-keys %d: at most %d distinct keys", n, len(out))
	}
	return out, nil
}

// typeKeys types each key into k and measures its echo.
func typeKeys(ctx context.Context, k *keyTerm, ks [][]byte, gap time.Duration) (lat []time.Duration, lost int, err error) {
	for _, key := range ks {
		if ctx.Err() != nil {
			return lat, lost, ctx.Err()
		}
		from := k.mark()
		start := time.Now()
		if _, err := k.ptmx.Write(key); err != nil {
			return lat, lost, err
		}
		at, err := k.await(from, key, 5*time.Second)
		switch {
		case errors.Is(err, errTimeout):
			lost++
		case err != nil:
			return lat, lost, err
		default:
			lat = append(lat, at.Sub(start))
		}
		time.Sleep(gap + time.Duration(rand.Int64N(int64(10*time.Millisecond))))
	}
	return lat, lost, nil
}

// summary is one setup's row: nearest-rank percentiles.
type summary struct {
	n, lost       int
	p50, p90, p99 time.Duration
	max           time.Duration
}

func summarize(d []time.Duration, lost int) summary {
	s := summary{n: len(d), lost: lost}
	if len(d) == 0 {
		return s
	}
	c := append([]time.Duration(nil), d...)
	sort.Slice(c, func(i, j int) bool { return c[i] < c[j] })
	rank := func(p float64) time.Duration {
		i := int(float64(len(c))*p+0.999999) - 1
		return c[min(max(i, 0), len(c)-1)]
	}
	s.p50, s.p90, s.p99, s.max = rank(0.50), rank(0.90), rank(0.99), c[len(c)-1]
	return s
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d.Microseconds())/1000) }
