package proto

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Version is the protocol version; client and server must agree exactly.
const Version = 1

// MaxLine is the largest request line the server accepts (1 MiB): big enough
// for any send_keys text a person or model would type, small enough that a
// runaway client cannot make the server buffer without bound.
const MaxLine = 1 << 20

// MaxAnswer is the longest answer line the server writes and a client reads
// (64 MiB): read_pane of a whole default history (10,000 lines) of 2000
// columns of box drawing is 60 MB; tmux prints such a history whole too. A
// larger result is not sent: the request is answered answer_too_large,
// saying what to ask for instead.
const MaxAnswer = 64 << 20

// MaxTitle bounds a pane's title in bytes (2 KiB): one line, shown in
// borders, tables and notifications. open_pane refuses a longer --title; a
// longer one a program sets or a state file holds is clipped.
const MaxTitle = 2 << 10

// Modes a connection can take after the hello.
const (
	ModeControl = "control"
	ModeAttach  = "attach"
)

// Hello is the first line a client sends.
type Hello struct {
	Version   int    `json:"version"`
	Mode      string `json:"mode"`
	Term      string `json:"term,omitempty"`      // attach: the client's $TERM
	ColorTerm string `json:"colorterm,omitempty"` // attach: the client's $COLORTERM
	Cols      int    `json:"cols,omitempty"`      // attach: the client's terminal size
	Rows      int    `json:"rows,omitempty"`
	// Tty (attach): the client can hand its terminal over (see Handover).
	Tty bool `json:"tty,omitempty"`
}

// Welcome is the server's answer to a hello.
type Welcome struct {
	Version int    `json:"version"`
	Session string `json:"session,omitempty"`
	PID     int    `json:"pid,omitempty"`
	Error   *Error `json:"error,omitempty"`
	// Tty (attach): the server takes the terminal the client offered; the
	// client's next bytes are the handover message.
	Tty bool `json:"tty,omitempty"`
}

// The handover message: after a welcome with Tty set, an attaching client
// sends one byte and nothing else until the server has read it. HandoverTty
// comes with two descriptors (SCM_RIGHTS), the client's terminal for input
// and for output, which the server then reads and writes itself, as tmux
// does: a key and its echo cross no process but the server and the pane's
// program. HandoverNone comes alone: the client could not pass them and
// keeps its terminal, as a proxy sending FrameInput. Either way, frames
// follow (resizes only, once the terminal was handed over).
const (
	HandoverTty  byte = 'T'
	HandoverNone byte = 'P'
)

// Request is one control-mode call.
type Request struct {
	ID     int64           `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

// Response answers the Request with the same ID: exactly one of Result and Error is set.
type Response struct {
	ID     int64           `json:"id"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *Error          `json:"error,omitempty"`
}

// Error is an error value on the wire. Code is stable and meant for programs;
// Message is for people and names what was wrong and what is allowed.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *Error) Error() string { return e.Message }

// Error codes. Callers branch on these.
const (
	CodeBadRequest      = "bad_request"       // not JSON, or not a request object
	CodeTooLarge        = "request_too_large" // a line over MaxLine
	CodeAnswerTooLarge  = "answer_too_large"  // a result over MaxAnswer
	CodeUnknownMethod   = "unknown_method"
	CodeBadParams       = "bad_params"   // a missing or wrongly typed parameter
	CodeNoSuchPane      = "no_such_pane" // the pane id does not exist
	CodeTimeout         = "timeout"      // a wait ran out of time
	CodeVersionMismatch = "version_mismatch"
	CodeInternal        = "internal"  // a recovered panic or an I/O failure in the server
	CodeFailed          = "failed"    // the operation itself failed (e.g. the command could not start)
	CodeForbidden       = "forbidden" // the peer may not do this: another uid, or another connection's agent
)

// Errorf builds an Error.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrLineTooLong is returned by LineReader.ReadLine for a line over the limit;
// the rest of that line has been discarded, so the stream stays in step.
var ErrLineTooLong = errors.New("line too long")

// LineReader reads newline-terminated lines with a size limit.
type LineReader struct {
	r     *bufio.Reader
	limit int
}

// NewLineReader reads lines of at most limit bytes from r.
func NewLineReader(r io.Reader, limit int) *LineReader {
	return &LineReader{r: bufio.NewReaderSize(r, 64<<10), limit: limit}
}

// Reader is the buffered stream under the line reader, for switching to
// frames after the hello without losing bytes already buffered.
func (lr *LineReader) Reader() io.Reader { return lr.r }

// Buffered is how many bytes read from the stream past the last line wait in
// the buffer: a message that must be read from the connection itself (the
// terminal's handover) needs none there.
func (lr *LineReader) Buffered() int { return lr.r.Buffered() }

// ReadLine returns the next line without its newline. A line longer than the
// limit is skipped to its end and reported as ErrLineTooLong.
func (lr *LineReader) ReadLine() ([]byte, error) {
	var line []byte
	tooLong := false
	for {
		chunk, err := lr.r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > lr.limit+1 {
				tooLong = true
				line = nil
			} else {
				line = append(line, chunk...)
			}
		}
		switch {
		case err == nil:
			if tooLong {
				return nil, ErrLineTooLong
			}
			return bytes.TrimRight(line, "\r\n"), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && tooLong:
			return nil, ErrLineTooLong
		case errors.Is(err, io.EOF) && len(line) > 0:
			return bytes.TrimRight(line, "\r\n"), nil
		default:
			return nil, err
		}
	}
}

// WriteJSON writes v as one JSON line.
func WriteJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

// Frame types of attach mode.
const (
	FrameInput  byte = 'i' // client → server: bytes typed at the client terminal (proxy clients only)
	FrameResize byte = 'r' // client → server: 4 bytes, cols and rows as big-endian uint16
	FrameOutput byte = 'o' // server → client: bytes for the client terminal (to one that handed it over: only after the server let go of it)
	FrameExit   byte = 'x' // server → client: the client should leave; payload is the reason
)

// MaxFrame bounds a frame's payload.
const MaxFrame = 1 << 20

// WriteFrame writes one frame: type, big-endian uint32 length, payload.
func WriteFrame(w io.Writer, typ byte, payload []byte) error {
	buf, err := Frame(typ, payload)
	if err != nil {
		return err
	}
	_, err = w.Write(buf)
	return err
}

// Frame encodes one frame, for a writer that must know how much of it went
// out (a frame cut short must be finished before the next one).
func Frame(typ byte, payload []byte) ([]byte, error) {
	if len(payload) > MaxFrame {
		return nil, fmt.Errorf("frame of %d bytes exceeds the %d byte limit", len(payload), MaxFrame)
	}
	buf := make([]byte, 5+len(payload))
	buf[0] = typ
	binary.BigEndian.PutUint32(buf[1:5], uint32(len(payload)))
	copy(buf[5:], payload)
	return buf, nil
}

// ResetModes leaves the alternate screen and turns off what a full-screen
// program may have turned on: mouse reporting, bracketed paste, focus events,
// hidden cursor, attributes, application keypad and cursor keys. A client
// writes it when the server could not restore its terminal, and the server
// sends it to a client whose screen it stopped drawing mid-frame.
const ResetModes = "\x1b[?1049l\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1004l\x1b[?2004l" +
	"\x1b[?25h\x1b[0m\x1b[?1l\x1b>\r\n"

// ReadFrame reads one frame into buf (grown as needed) and returns its type and payload.
func ReadFrame(r io.Reader, buf []byte) (byte, []byte, error) {
	var hdr [5]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(hdr[1:5])
	if n > MaxFrame {
		return 0, nil, fmt.Errorf("frame of %d bytes exceeds the %d byte limit", n, MaxFrame)
	}
	if cap(buf) < int(n) {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := io.ReadFull(r, buf); err != nil {
		return 0, nil, err
	}
	return hdr[0], buf, nil
}

// ResizePayload encodes a terminal size for FrameResize.
func ResizePayload(cols, rows int) []byte {
	var b [4]byte
	binary.BigEndian.PutUint16(b[0:2], uint16(clamp(cols)))
	binary.BigEndian.PutUint16(b[2:4], uint16(clamp(rows)))
	return b[:]
}

// ParseResize decodes a FrameResize payload.
func ParseResize(p []byte) (cols, rows int, err error) {
	if len(p) != 4 {
		return 0, 0, fmt.Errorf("resize frame has %d bytes, want 4", len(p))
	}
	return int(binary.BigEndian.Uint16(p[0:2])), int(binary.BigEndian.Uint16(p[2:4])), nil
}

func clamp(n int) int {
	if n < 0 {
		return 0
	}
	if n > 0xffff {
		return 0xffff
	}
	return n
}
