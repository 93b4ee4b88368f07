package proto

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

func TestLineReaderSkipsTooLongLines(t *testing.T) {
	in := "short\n" + strings.Repeat("x", 100) + "\nnext\nlast-without-newline"
	lr := NewLineReader(strings.NewReader(in), 10)
	want := []struct {
		line string
		err  error
	}{{"short", nil}, {"", ErrLineTooLong}, {"next", nil}, {"last-without-newline", ErrLineTooLong}}
	// The last line is over the limit too (20 bytes > 10).
	for i, w := range want {
		got, err := lr.ReadLine()
		if !errors.Is(err, w.err) || (err == nil && string(got) != w.line) {
			t.Fatalf("line %d: got %q, %v; want %q, %v", i, got, err, w.line, w.err)
		}
	}
	if _, err := lr.ReadLine(); !errors.Is(err, io.EOF) {
		t.Fatalf("after the end: %v", err)
	}
}

func TestLineReaderLongerThanItsBuffer(t *testing.T) {
	long := strings.Repeat("y", 200<<10) // over bufio's 64 KiB buffer, under the limit
	lr := NewLineReader(strings.NewReader(long+"\r\nok\n"), 1<<20)
	got, err := lr.ReadLine()
	if err != nil || string(got) != long {
		t.Fatalf("long line: %d bytes, %v", len(got), err)
	}
	if got, err := lr.ReadLine(); err != nil || string(got) != "ok" {
		t.Fatalf("after it: %q, %v", got, err)
	}
}

func TestFrames(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteFrame(&buf, FrameOutput, []byte("hello")); err != nil {
		t.Fatal(err)
	}
	if err := WriteFrame(&buf, FrameResize, ResizePayload(132, 43)); err != nil {
		t.Fatal(err)
	}
	typ, p, err := ReadFrame(&buf, nil)
	if err != nil || typ != FrameOutput || string(p) != "hello" {
		t.Fatalf("first frame: %c %q %v", typ, p, err)
	}
	typ, p, err = ReadFrame(&buf, nil)
	if err != nil || typ != FrameResize {
		t.Fatalf("second frame: %c %v", typ, err)
	}
	if c, r, err := ParseResize(p); err != nil || c != 132 || r != 43 {
		t.Fatalf("resize payload: %d %d %v", c, r, err)
	}
	if _, _, err := ParseResize([]byte{1, 2, 3}); err == nil {
		t.Fatal("a 3-byte resize payload was accepted")
	}
	if err := WriteFrame(&buf, FrameOutput, make([]byte, MaxFrame+1)); err == nil {
		t.Fatal("an oversized frame was written")
	}
	// A header claiming more than the limit is refused before allocating.
	hdr := []byte{FrameInput, 0xff, 0xff, 0xff, 0xff}
	if _, _, err := ReadFrame(bytes.NewReader(hdr), nil); err == nil || !strings.Contains(err.Error(), "exceeds") {
		t.Fatalf("oversized header: %v", err)
	}
	// A frame cut short is an error, not a short payload.
	if _, _, err := ReadFrame(bytes.NewReader([]byte{FrameInput, 0, 0, 0, 9, 'a'}), nil); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("truncated frame: %v", err)
	}
}

func TestLogPathIgnoresARelativeStateHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", "state")
	if got, want := LogPath("main"), filepath.Join(home, ".local", "state", "melmux", "main.log"); got != want {
		t.Errorf("LogPath with a relative $XDG_STATE_HOME = %s, want %s", got, want)
	}
	abs := t.TempDir()
	t.Setenv("XDG_STATE_HOME", abs)
	if got, want := LogPath("main"), filepath.Join(abs, "melmux", "main.log"); got != want {
		t.Errorf("LogPath = %s, want %s", got, want)
	}
}
