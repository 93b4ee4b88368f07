package orchestrator

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

func readAllEvents(t *testing.T, stream io.Reader) ([]sseEvent, error) {
	t.Helper()
	dec := newSSEDecoder(stream)
	var evs []sseEvent
	for {
		ev, err := dec.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			if dec.events != len(evs) {
				t.Errorf("decoder counted %d events, returned %d", dec.events, len(evs))
			}
			return evs, err
		}
		evs = append(evs, ev)
	}
}

func TestSSEFraming(t *testing.T) {
	cases := []struct {
		name, stream string
		want         []sseEvent
	}{
		{"LF", "event: a\ndata: 1\n\ndata: 2\n\n", []sseEvent{{"a", "1"}, {"", "2"}}},
		{"CRLF", "event: a\r\ndata: 1\r\n\r\ndata: 2\r\n\r\n", []sseEvent{{"a", "1"}, {"", "2"}}},
		{"comments and keep-alives", ": hello\n\n:\nevent: a\n: inside\ndata: 1\n\n", []sseEvent{{"a", "1"}}},
		{"multi-line data joined by LF", "data: one\ndata: two\r\ndata:three\n\n", []sseEvent{{"", "one\ntwo\nthree"}}},
		{"no space after the colon", "event:x\ndata:{}\n\n", []sseEvent{{"x", "{}"}}},
		{"only one space is stripped", "data:  two\n\n", []sseEvent{{"", " two"}}},
		{"event name does not leak into the next event", "event: a\ndata: 1\n\ndata: 2\n\n", []sseEvent{{"a", "1"}, {"", "2"}}},
		{"an event without data is not dispatched", "event: ping\n\ndata: 1\n\n", []sseEvent{{"", "1"}}},
		{"id and retry fields ignored", "id: 7\nretry: 100\ndata: 1\n\n", []sseEvent{{"", "1"}}},
		{"last event without blank line", "data: 1\n\ndata: 2\n", []sseEvent{{"", "1"}, {"", "2"}}},
		{"last line without end", "data: [DONE]", []sseEvent{{"", "[DONE]"}}},
		{"empty stream", "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// One byte at a time as well, so no framing depends on how
			// reads split the stream.
			for _, r := range []io.Reader{strings.NewReader(c.stream), iotest.OneByteReader(strings.NewReader(c.stream))} {
				got, err := readAllEvents(t, r)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, c.want) {
					t.Errorf("got %q, want %q", got, c.want)
				}
			}
		})
	}
}

func TestSSEDone(t *testing.T) {
	got, err := readAllEvents(t, strings.NewReader("data: {}\n\ndata: [DONE]\n\n"))
	if err != nil || len(got) != 2 || got[0].done() || !got[1].done() {
		t.Fatalf("got %q, %v", got, err)
	}
}

// A whole file in one tool call puts far more than bufio.Scanner's 64 KiB
// on one data line.
func TestSSELongLine(t *testing.T) {
	long := strings.Repeat("x", 1<<20+17)
	got, err := readAllEvents(t, strings.NewReader("data: "+long+"\r\n\r\ndata: after\n\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Data != long || got[1].Data != "after" {
		t.Fatalf("got %d events, first %d bytes", len(got), len(got[0].Data))
	}
}

func TestSSETooLarge(t *testing.T) {
	t.Run("one line", func(t *testing.T) {
		_, err := readAllEvents(t, io.MultiReader(strings.NewReader("data: "), strings.NewReader(strings.Repeat("x", maxSSELine+1))))
		if !errors.Is(err, errSSETooLarge) || !strings.Contains(err.Error(), "16 MiB") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("joined data", func(t *testing.T) {
		line := "data: " + strings.Repeat("x", 1<<20) + "\n"
		_, err := readAllEvents(t, strings.NewReader(strings.Repeat(line, 17)+"\n"))
		if !errors.Is(err, errSSETooLarge) {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestSSEBrokenStream(t *testing.T) {
	broken := errors.New("connection reset")
	got, err := readAllEvents(t, io.MultiReader(strings.NewReader("data: 1\n\ndata: 2"), iotest.ErrReader(broken)))
	if !errors.Is(err, broken) || len(got) != 1 {
		t.Fatalf("got %q, %v; want one event and the reset", got, err)
	}
}
