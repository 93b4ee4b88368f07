package pane

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// A mirror reads the output from an offset: what the program wrote after
// Retain, byte for byte, and a snapshot whose offset is where the bytes
// after it begin.
func TestRetainedOutputFromAnOffset(t *testing.T) {
	p := start(t, 40, 5, "sh", "-c", `read x; printf 'one\ntwo\n'; read y; printf 'three\n'; read z`)
	p.Retain(1 << 20)
	scr, at := p.SnapshotAt()
	if at != 0 || scr.Rows != 5 {
		t.Fatalf("snapshot before any output: offset %d, %d rows", at, scr.Rows)
	}
	if err := p.Write([]byte("\n")); err != nil {
		t.Fatal(err)
	}
	got := readUntil(t, p, 0, "two\r\n")
	if !bytes.Contains(got, []byte("one\r\ntwo\r\n")) {
		t.Fatalf("retained output: %q", got)
	}
	end := p.OutputEnd()
	if err := p.Write([]byte("\n")); err != nil {
		t.Fatal(err)
	}
	rest := readUntil(t, p, end, "three\r\n")
	if !strings.HasSuffix(string(rest), "three\r\n") || strings.Contains(string(rest), "two") {
		t.Fatalf("output from offset %d: %q", end, rest)
	}
	// At most n bytes a call, and the next offset says where to go on.
	one, next, ok := p.OutputSince(end, 1)
	if !ok || len(one) != 1 || next != end+1 {
		t.Fatalf("one byte from %d: %q next %d ok %v", end, one, next, ok)
	}
}

// Past the limit the oldest bytes go, and asking for them says so rather
// than answering with what follows.
func TestRetainedOutputIsBounded(t *testing.T) {
	p := start(t, 40, 5, "sh", "-c", `read x; i=0; while [ $i -lt 200 ]; do printf 'line %03d\n' $i; i=$((i+1)); done; read y`)
	p.Retain(256)
	if err := p.Write([]byte("\n")); err != nil {
		t.Fatal(err)
	}
	readUntil(t, p, -1, "line 199\r\n")
	if _, _, ok := p.OutputSince(0, 1<<20); ok {
		t.Fatal("offset 0 was answered though 256 bytes are kept of more than 2000")
	}
	end := p.OutputEnd()
	tail, next, ok := p.OutputSince(end-256, 1<<20)
	if !ok || len(tail) != 256 || next != end || !strings.HasSuffix(string(tail), "line 199\r\n") {
		t.Fatalf("the last 256 bytes: ok %v, %d bytes, next %d of %d: %q", ok, len(tail), next, end, tail)
	}
}

// A mirrored pane's emulator leaves queries to the mirror's: the program
// would otherwise read two answers, the second as typing.
func TestRetainedPaneLeavesRepliesToTheMirror(t *testing.T) {
	p := start(t, 40, 5, "sh", "-c", `stty raw -echo; read x; printf '\033[6n'; sleep 1; dd bs=1 count=64 iflag=nonblock 2>/dev/null | od -c | head -2; printf 'done\r\n'; read y`)
	p.Retain(1 << 16)
	if err := p.Write([]byte("\n")); err != nil {
		t.Fatal(err)
	}
	got := string(readUntil(t, p, 0, "done\r\n"))
	if strings.Contains(got, "033") {
		t.Fatalf("the mirrored pane answered the cursor query: %q", got)
	}
}

// readUntil polls the retained output from offset from (-1: from whatever
// is kept) until it holds want.
func readUntil(t *testing.T, p *Pane, from int64, want string) []byte {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ch := p.Changed()
		off := from
		if off < 0 {
			r := p.ret.Load()
			r.mu.Lock()
			off = r.end - int64(len(r.buf))
			r.mu.Unlock()
		}
		got, _, ok := p.OutputSince(off, 1<<20)
		if ok && bytes.Contains(got, []byte(want)) {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q in the retained output: %q (ok %v)", want, got, ok)
		}
		select {
		case <-ch:
		case <-time.After(time.Second):
		}
	}
}

// readScreen waits for a line starting with prefix and returns it.
func readScreen(t *testing.T, p *Pane, prefix string) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ch := p.Changed()
		for _, l := range p.Term().Lines() {
			if strings.HasPrefix(l, prefix) {
				return l
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no line starting %q: %q", prefix, p.Term().Lines())
		}
		select {
		case <-ch:
		case <-time.After(time.Second):
		}
	}
}
