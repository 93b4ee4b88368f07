package server

import (
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/melmux/melmux/internal/proto"
)

// connTty is the tcell.Tty of an attached client: what tcell writes goes to
// the client as output frames, what the client types arrives through feed,
// and the size is the one the client last reported. It lets the server run a
// real terminfo screen for the client's TERM over nothing but the socket.
type connTty struct {
	conn   net.Conn
	wmu    *sync.Mutex // guards writes to conn, failed and unsent, shared with other writers of this client
	failed error       // the write error that ended output to this client
	unsent []byte      // the rest of the frame the failed write cut short
	// limit is how long one frame may take to go out (nanoseconds); shortened
	// when the client is being sent away. Atomic: set without wmu, which a
	// stalled write holds.
	limit atomic.Int64

	in        chan []byte   // typed bytes, from feed to Read
	closed    chan struct{} // closed by Close: the client is gone
	closeOnce sync.Once
	pending   []byte // owned by tcell's one reader goroutine

	mu       sync.Mutex // guards cols, rows, drawCols, drawRows, onResize, drained
	cols     int        // the client's terminal, as it says (bounded by clientSize)
	rows     int
	drawCols int // what tcell is told and draws: no more than the session shows
	drawRows int
	onResize func()
	drained  chan struct{} // closed by Drain to wake a blocked Read
}

// newConnTty is the tty of a client of cols x rows, all of which tcell
// draws until fit says otherwise.
func newConnTty(conn net.Conn, wmu *sync.Mutex, cols, rows int) *connTty {
	cols, rows = clientSize(cols, rows)
	t := &connTty{conn: conn, wmu: wmu, in: make(chan []byte, 16), closed: make(chan struct{}),
		cols: cols, rows: rows, drawCols: cols, drawRows: rows, drained: make(chan struct{})}
	t.limit.Store(int64(slowClientLimit))
	return t
}

func (t *connTty) Start() error {
	t.mu.Lock()
	t.drained = make(chan struct{})
	t.mu.Unlock()
	return nil
}

func (t *connTty) Stop() error { return nil }

// Drain wakes tcell's reader so the screen can shut down (Fini) while the
// client is still connected.
func (t *connTty) Drain() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	select {
	case <-t.drained:
	default:
		close(t.drained)
	}
	return nil
}

func (t *connTty) NotifyResize(cb func()) {
	t.mu.Lock()
	t.onResize = cb
	t.mu.Unlock()
}

// WindowSize is the area tcell draws, which is what the session shows: a
// client larger than the session costs no more than one of its size.
func (t *connTty) WindowSize() (tcell.WindowSize, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return tcell.WindowSize{Width: t.drawCols, Height: t.drawRows}, nil
}

// Client sizes beyond these are taken as these: each drawn cell costs the
// server about 200 bytes per client (tcell's buffer), so a terminal claiming
// 65535x65535 must not make it allocate gigabytes. 1000x500 is more than any
// real terminal (a 4K screen in a small font is about 640x135).
const (
	MaxClientCols = 1000
	MaxClientRows = 500
)

// clientSize bounds what a client may claim.
func clientSize(cols, rows int) (int, int) {
	return min(max(cols, 1), MaxClientCols), min(max(rows, 1), MaxClientRows)
}

// setSize records a resize frame; fit then tells tcell what to draw.
func (t *connTty) setSize(cols, rows int) {
	cols, rows = clientSize(cols, rows)
	t.mu.Lock()
	t.cols, t.rows = cols, rows
	t.mu.Unlock()
}

// fit makes tcell draw cols x rows of the client's terminal (no more than
// the terminal has), telling it when that changed.
func (t *connTty) fit(cols, rows int) {
	t.mu.Lock()
	cols, rows = min(max(cols, 1), t.cols), min(max(rows, 1), t.rows)
	changed := cols != t.drawCols || rows != t.drawRows
	t.drawCols, t.drawRows = cols, rows
	cb := t.onResize
	t.mu.Unlock()
	if changed && cb != nil {
		cb()
	}
}

func (t *connTty) size() (int, int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.cols, t.rows
}

// feed hands bytes the client typed to tcell's input parser.
func (t *connTty) feed(p []byte) error {
	c := append([]byte(nil), p...)
	select {
	case t.in <- c:
		return nil
	case <-t.closed:
		return io.ErrClosedPipe
	}
}

func (t *connTty) Read(p []byte) (int, error) {
	if len(t.pending) == 0 {
		t.mu.Lock()
		drained := t.drained
		t.mu.Unlock()
		select {
		case b := <-t.in:
			t.pending = b
		case <-drained:
			return 0, os.ErrDeadlineExceeded
		case <-t.closed:
			return 0, io.EOF
		}
	}
	n := copy(p, t.pending)
	t.pending = t.pending[n:]
	return n, nil
}

// Write sends output to the client in frames no larger than the protocol allows.
// A client that has not taken a frame within slowClientLimit is dropped: its
// loop would otherwise sit in a write for as long as the client stalls. (A
// variable for tests.)
var slowClientLimit = 10 * time.Second

// ErrSlowClient is the write error of a client that stopped reading.
var ErrSlowClient = errors.New("client stopped reading its output")

func (t *connTty) Write(p []byte) (int, error) {
	t.wmu.Lock()
	defer t.wmu.Unlock()
	if t.failed != nil {
		return 0, t.failed
	}
	n := 0
	for len(p) > 0 {
		chunk := p
		if len(chunk) > proto.MaxFrame {
			chunk = chunk[:proto.MaxFrame]
		}
		frame, err := proto.Frame(proto.FrameOutput, chunk)
		if err != nil {
			return n, err
		}
		_ = t.conn.SetWriteDeadline(time.Now().Add(time.Duration(t.limit.Load())))
		if sent, err := t.conn.Write(frame); err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				err = ErrSlowClient
			}
			t.failed = err
			// Kept so the frame stream can be finished, and the client told
			// why it was dropped, should it read again.
			t.unsent = frame[sent:]
			return n, err
		}
		n += len(chunk)
		p = p[len(chunk):]
	}
	// Disarm the deadline: an armed one is a runtime timer that would wake
	// an idle server when it expires.
	_ = t.conn.SetWriteDeadline(time.Time{})
	return n, nil
}

// writeErr is the error that ended output to the client, if any.
func (t *connTty) writeErr() error {
	t.wmu.Lock()
	defer t.wmu.Unlock()
	return t.failed
}

func (t *connTty) Close() error {
	t.closeOnce.Do(func() { close(t.closed) })
	return nil
}
