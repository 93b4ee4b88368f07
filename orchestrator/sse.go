package orchestrator

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// maxSSELine bounds one line, and one event's joined data, of a model
// stream. Real streams put a whole tool call (a file being written) on one
// data line, so bufio.Scanner's 64 KiB default is far too small; the bound
// only stops a server that streams without ever ending a line.
const maxSSELine = 16 << 20

// errSSETooLarge is wrapped when a line or an event's data passes
// maxSSELine.
var errSSETooLarge = fmt.Errorf("a stream line or event is over %d MiB", maxSSELine>>20)

// sseEvent is one dispatched Server-Sent Event: its event field ("" when
// the server sent none) and its data lines joined by "\n".
type sseEvent struct {
	Event string
	Data  string
}

// done reports the OpenAI end marker, data "[DONE]".
func (e sseEvent) done() bool { return e.Data == "[DONE]" }

// sseDecoder reads Server-Sent Events as the WHATWG spec frames them (LF or
// CRLF line ends, ":" comments, field "name: value" with one optional space,
// a blank line dispatching the event), which is all the three providers
// need. id and retry fields are ignored: a leg is never resumed.
type sseDecoder struct {
	r      *bufio.Reader
	events int // events dispatched so far; the retry policy asks "any yet?"
	strays int // lines that are no part of an event stream (no field, comment or blank)
	head   headReader
}

func newSSEDecoder(r io.Reader) *sseDecoder {
	d := &sseDecoder{head: headReader{r: r}}
	d.r = bufio.NewReaderSize(&d.head, 64<<10)
	return d
}

// maxHead bounds the start of a body kept to say what came instead of a
// stream.
const maxHead = 200

// headReader keeps the first maxHead bytes read through it.
type headReader struct {
	r    io.Reader
	head []byte
	more bool // bytes came after head
}

func (h *headReader) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	keep := min(n, maxHead-len(h.head))
	h.head = append(h.head, p[:keep]...)
	h.more = h.more || keep < n
	return n, err
}

// notAStream says whether the body read so far is something else than an
// event stream: no event, and lines that are not a stream's. Then quoted is
// its start, quoted, with "…" when there was more.
func (d *sseDecoder) notAStream() (quoted string, ok bool) {
	if d.events > 0 || d.strays == 0 {
		return "", false
	}
	quoted = fmt.Sprintf("%q", d.head.head)
	if d.head.more {
		quoted += "…"
	}
	return quoted, true
}

// Next returns the next event that carries data. At the end of the stream
// it returns io.EOF; an event not closed by a blank line before a clean end
// is still dispatched (lenient: some servers close right after the last data
// line). A broken connection returns the transport's error.
func (d *sseDecoder) Next() (sseEvent, error) {
	var (
		event   string
		data    bytes.Buffer
		hasData bool
	)
	for {
		line, err := d.line()
		if err == io.EOF && len(line) == 0 {
			if hasData {
				d.events++
				return sseEvent{Event: event, Data: data.String()}, nil
			}
			return sseEvent{}, io.EOF
		}
		if err != nil && err != io.EOF {
			return sseEvent{}, err
		}
		if len(line) == 0 { // a blank line ends the event
			if hasData {
				d.events++
				return sseEvent{Event: event, Data: data.String()}, nil
			}
			event = ""
			continue
		}
		if line[0] == ':' { // a comment, often a keep-alive
			continue
		}
		name, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(name) {
		case "id", "retry":
		default:
			d.strays++ // ignored, as the spec says, but no stream sends it
		case "event":
			event = string(value)
		case "data":
			if hasData {
				data.WriteByte('\n')
			}
			if data.Len()+len(value) > maxSSELine {
				return sseEvent{}, errSSETooLarge
			}
			data.Write(value)
			hasData = true
		}
	}
}

// each hands every event to fn until fn reports the end of the answer.
// A stream that ends cleanly before that is whole only when complete says
// so (a server may close right after its last event); otherwise the error
// names the missing end.
func (d *sseDecoder) each(fn func(sseEvent) (end bool, err error), complete func() bool, missing string) error {
	for {
		ev, err := d.Next()
		if errors.Is(err, io.EOF) {
			if complete != nil && complete() {
				return nil
			}
			return fmt.Errorf("the stream ended before %s", missing)
		}
		if err != nil {
			return err
		}
		if end, err := fn(ev); end || err != nil {
			return err
		}
	}
}

// line reads one line without its LF or CRLF end. A last line without an end
// comes back with io.EOF.
func (d *sseDecoder) line() ([]byte, error) {
	var long []byte // only used when a line is longer than the buffer
	for {
		chunk, err := d.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if len(long)+len(chunk) > maxSSELine {
				return nil, errSSETooLarge
			}
			long = append(long, chunk...)
			continue
		}
		line := chunk
		if long != nil {
			line = append(long, chunk...)
		}
		if len(line) > maxSSELine {
			return nil, errSSETooLarge
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		return line, err
	}
}
