package pane

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// gatedReader starts a program that reads nothing until the returned open
// function is called, then copies all its input to the returned file.
func gatedReader(t *testing.T) (p *Pane, open func(), out string) {
	t.Helper()
	dir := t.TempDir()
	gate := filepath.Join(dir, "gate")
	if err := syscall.Mkfifo(gate, 0o600); err != nil {
		t.Fatal(err)
	}
	out = filepath.Join(dir, "out")
	// Raw mode: every byte is input at once, no line editing to lose any.
	p = start(t, 80, 5, "sh", "-c", fmt.Sprintf("stty raw -echo; echo READY; cat '%s' >/dev/null; exec cat > '%s'", gate, out))
	// Input sent before stty ran would meet the canonical line limit.
	deadline := time.Now().Add(10 * time.Second)
	for !screenHas(p, "READY") {
		if time.Now().After(deadline) {
			t.Fatalf("the program never started: %q", p.Term().Lines())
		}
		select {
		case <-p.Changed():
		case <-time.After(time.Second):
		}
	}
	return p, func() {
		f, err := os.OpenFile(gate, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	}, out
}

// Keystrokes are never dropped, however many wait for a program that does
// not read yet; once it reads it gets every byte in order, and the queue
// gives its memory back.
func TestTypedBytesAreNeverDropped(t *testing.T) {
	p, open, out := gatedReader(t)
	var want bytes.Buffer
	for i := 0; want.Len() < 300<<10; i++ {
		fmt.Fprintf(&want, "%06d|", i)
	}
	for _, b := range want.Bytes() {
		if err := p.Type([]byte{b}); err != nil {
			t.Fatalf("typing into a pane that does not read yet: %v", err)
		}
	}
	if n, _ := p.Backlog(); n < InputLimit {
		t.Fatalf("backlog %d after typing %d bytes into a program that reads nothing", n, want.Len())
	}
	open()
	deadline := time.Now().Add(30 * time.Second)
	for {
		got, _ := os.ReadFile(out)
		if len(got) >= want.Len() {
			if !bytes.Equal(got, want.Bytes()) {
				t.Fatalf("the program got %d bytes, want %d, different content", len(got), want.Len())
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the program got %d of %d bytes", len(got), want.Len())
		}
		_, less := p.Backlog()
		select {
		case <-less:
		case <-time.After(100 * time.Millisecond):
		}
	}
	p.in.mu.Lock()
	buf := p.in.buf
	p.in.mu.Unlock()
	if buf != nil {
		t.Errorf("the drained queue still holds a %d byte array", cap(buf))
	}
}

// Write (send_keys, deliveries) queues all or nothing: behind a backlog it
// waits while the program reads and says so honestly when it does not.
func TestWriteSaysWhenTheProgramDoesNotRead(t *testing.T) {
	p, open, out := gatedReader(t)
	chunk := bytes.Repeat([]byte("x"), 4096)
	// The kernel takes some input on the program's behalf; past that, the
	// backlog grows to InputLimit and a write has to wait.
	var sent int
	var err error
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		err = p.WriteContext(ctx, chunk)
		cancel()
		if err != nil {
			break
		}
		sent += len(chunk)
	}
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "none of these 4096 bytes were sent") {
		t.Fatalf("a cancelled write behind a backlog: %v", err)
	}
	if n, _ := p.Backlog(); n < InputLimit {
		t.Fatalf("a write waited with only %d bytes waiting", n)
	}
	err = p.Write([]byte("lost?"))
	if !errors.Is(err, ErrInputFull) || !strings.Contains(err.Error(), "none of these 5 bytes were sent") {
		t.Fatalf("a write to a program that reads nothing: %v", err)
	}
	t.Logf("error: %v", err)
	open()
	if err := p.Write([]byte("end")); err != nil {
		t.Fatalf("a write once the program reads: %v", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		got, _ := os.ReadFile(out)
		if len(got) == sent+3 && string(got[sent:]) == "end" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the program got %d bytes, want %d ending in \"end\"", len(got), sent+3)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// FuzzInputQueue drives the input queue with arbitrary adds, partial writes
// and a kill: what the writer is given is exactly what was added, in order
// and in chunks of at most writeChunk, the backlog counts what waits, an
// emptied queue holds no array, and after the kill nothing is taken.
//
// Run: go test ./pane -run '^$' -fuzz FuzzInputQueue -fuzztime 5m
func FuzzInputQueue(f *testing.F) {
	f.Add([]byte{0, 4, 2, 6, 1, 202, 10, 2, 2, 2, 3, 0, 2})
	f.Add([]byte{253, 253, 253, 2, 254, 254, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2})
	f.Fuzz(func(t *testing.T, ops []byte) {
		q := newInputQueue()
		var added, written []byte
		dead := false
		for _, op := range ops {
			arg := int(op >> 2)
			switch op & 3 {
			case 0, 1: // a run of bytes, up to 2,300 of them
				b := make([]byte, arg*37%2311)
				for i := range b {
					b[i] = byte(len(added) + i)
				}
				before, err := q.add(b)
				if dead {
					if err == nil {
						t.Fatal("a dead queue took bytes")
					}
					continue
				}
				if err != nil || before != len(added)-len(written) {
					t.Fatalf("add: backlog before %d, want %d; %v", before, len(added)-len(written), err)
				}
				added = append(added, b...)
			case 2: // the writer writes part of the next chunk
				b := q.next()
				if dead {
					if len(b) != 0 {
						t.Fatalf("a dead queue gave %d bytes to write", len(b))
					}
					continue
				}
				want := added[len(written):]
				if len(b) > writeChunk || len(b) != min(len(want), writeChunk) || !bytes.Equal(b, want[:len(b)]) {
					t.Fatalf("next gave %d bytes, want the next %d of what was added", len(b), min(len(want), writeChunk))
				}
				k := arg % (len(b) + 1)
				written = append(written, b[:k]...)
				q.wrote(k)
			case 3:
				if arg == 0 {
					q.kill(ErrExited)
					dead = true
				}
			}
			n, _ := q.backlog()
			if dead {
				if n != 0 {
					t.Fatalf("a dead queue holds %d bytes", n)
				}
				continue
			}
			if n != len(added)-len(written) {
				t.Fatalf("backlog %d, want %d", n, len(added)-len(written))
			}
			q.mu.Lock()
			kept := q.buf
			q.mu.Unlock()
			if n == 0 && op&3 == 2 && kept != nil {
				t.Fatalf("an emptied queue keeps a %d byte array", cap(kept))
			}
		}
	})
}

// Input that finds nothing waiting is in the PTY when Type returns: it does
// not wait in the queue for the writer's goroutine.
func TestTypeWritesAtOnceWhenNothingWaits(t *testing.T) {
	p, _, _ := gatedReader(t) // reads nothing: the bytes stay in the PTY's buffer
	if err := p.Type([]byte("abc")); err != nil {
		t.Fatal(err)
	}
	if n, _ := p.Backlog(); n != 0 {
		t.Fatalf("%d bytes still queued after Type, with nothing waiting before", n)
	}
}
