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

// clientTty is an attached client's terminal as tcell and the client's loop
// use it: reached through the socket (connTty, a proxy client) or handed
// over by the client (termTty).
type clientTty interface {
	tcell.Tty
	size() (cols, rows int)
	setSize(cols, rows int)
	fit(cols, rows int)
	// writeErr is the error that ended output to the client, if any.
	writeErr() error
	// cutShort is that error and the output frames that finish what it
	// cut short, for sendExit.
	cutShort() (unsent []byte, failed error)
	// setLimit bounds how long one write may take from now on.
	setLimit(d time.Duration)
	// gone is closed by Close: the client is gone.
	gone() <-chan struct{}
	// woken is closed by Drain (and Close): a read held back gives up.
	woken() <-chan struct{}
}

// ttyArea is what a client's tty is whichever way its terminal is reached:
// the size the client reports (in its hello and resize frames, since the
// client is the one SIGWINCH reaches), what tcell is told to draw, and the
// signals that wake its reader.
type ttyArea struct {
	mu       sync.Mutex // guards cols, rows, drawCols, drawRows, onResize, drained
	cols     int        // the client's terminal, as it says (bounded by clientSize)
	rows     int
	drawCols int // what tcell is told and draws: no more than the session shows
	drawRows int
	onResize func()
	drained  chan struct{} // closed by Drain to wake a blocked Read

	closed    chan struct{} // closed by Close: the client is gone
	closeOnce sync.Once
}

func newTtyArea(cols, rows int) ttyArea {
	cols, rows = clientSize(cols, rows)
	return ttyArea{cols: cols, rows: rows, drawCols: cols, drawRows: rows,
		drained: make(chan struct{}), closed: make(chan struct{})}
}

func (t *ttyArea) Start() error {
	locked(&t.mu, func() { t.drained = make(chan struct{}) })
	return nil
}

func (t *ttyArea) Stop() error { return nil }

// Drain wakes tcell's reader so the screen can shut down (Fini) while the
// client is still connected.
func (t *ttyArea) Drain() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	select {
	case <-t.drained:
	default:
		close(t.drained)
	}
	return nil
}

func (t *ttyArea) woken() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.drained
}

func (t *ttyArea) gone() <-chan struct{} { return t.closed }

// shut closes gone and reports whether this call did.
func (t *ttyArea) shut() bool {
	first := false
	t.closeOnce.Do(func() {
		first = true
		close(t.closed)
	})
	return first
}

func (t *ttyArea) NotifyResize(cb func()) {
	locked(&t.mu, func() { t.onResize = cb })
}

// WindowSize is the area tcell draws, which is what the session shows: a
// client larger than the session costs no more than one of its size.
func (t *ttyArea) WindowSize() (tcell.WindowSize, error) {
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
func (t *ttyArea) setSize(cols, rows int) {
	cols, rows = clientSize(cols, rows)
	locked(&t.mu, func() { t.cols, t.rows = cols, rows })
}

// fit makes tcell draw cols x rows of the client's terminal (no more than
// the terminal has), telling it when that changed.
func (t *ttyArea) fit(cols, rows int) {
	if changed, cb := t.setDrawSize(cols, rows); changed && cb != nil {
		cb()
	}
}

// setDrawSize is fit's part under the lock (fit runs at every frame): it
// reports whether the area drawn changed, and the callback to tell.
func (t *ttyArea) setDrawSize(cols, rows int) (changed bool, onResize func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	cols, rows = min(max(cols, 1), t.cols), min(max(rows, 1), t.rows)
	changed = cols != t.drawCols || rows != t.drawRows
	t.drawCols, t.drawRows = cols, rows
	return changed, t.onResize
}

func (t *ttyArea) size() (int, int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.cols, t.rows
}

// slowClientLimit is how long one write to a client may take. A client that
// has not taken its output within it is dropped: its loop would otherwise sit
// in a write for as long as the client stalls. (Server.tune's slowClient in
// tests.)
const slowClientLimit = 10 * time.Second

// ErrSlowClient is the write error of a client that stopped reading.
var ErrSlowClient = errors.New("client stopped reading its output")

// deadlineWriter is where a client's output goes: its connection, or its
// terminal through Go's poller; both take write deadlines.
type deadlineWriter interface {
	io.Writer
	SetWriteDeadline(t time.Time) error
}

// ttyOut writes a client's output under the slow-client limit, wrapped in
// output frames for the connection or as they are for the terminal.
type ttyOut struct {
	w      deadlineWriter
	framed bool        // w is the connection: output goes in frames
	wmu    *sync.Mutex // guards writes to w, failed and unsent; for the connection, shared with its other writers
	failed error       // the write error that ended output to this client
	// unsent is output frames that finish what the failed write cut short
	// (the rest of a frame, or of a write to the terminal), so the client can
	// be told why it was dropped, should it read again.
	unsent []byte
	// limit is how long one write may take (nanoseconds); shortened when the
	// client is being sent away. Atomic: set without wmu, which a stalled
	// write holds.
	limit atomic.Int64
}

func (o *ttyOut) init(w deadlineWriter, framed bool, wmu *sync.Mutex) {
	o.w, o.framed, o.wmu = w, framed, wmu
	o.limit.Store(int64(slowClientLimit))
}

func (o *ttyOut) setLimit(d time.Duration) { o.limit.Store(int64(d)) }

func (o *ttyOut) Write(p []byte) (int, error) {
	o.wmu.Lock()
	defer o.wmu.Unlock()
	if o.failed != nil {
		return 0, o.failed
	}
	n := 0
	for len(p) > 0 {
		chunk := p[:min(len(p), proto.MaxFrame)]
		out := chunk
		if o.framed {
			frame, err := proto.Frame(proto.FrameOutput, chunk)
			if err != nil {
				return n, err
			}
			out = frame
		}
		_ = o.w.SetWriteDeadline(time.Now().Add(time.Duration(o.limit.Load())))
		if sent, err := o.w.Write(out); err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				err = ErrSlowClient
			}
			o.failed = err
			if o.framed {
				o.unsent = out[sent:]
			} else if sent < len(out) {
				o.unsent, _ = proto.Frame(proto.FrameOutput, out[sent:])
			}
			return n, err
		}
		n += len(chunk)
		p = p[len(chunk):]
	}
	// Disarm the deadline: an armed one is a runtime timer that would wake
	// an idle server when it expires.
	_ = o.w.SetWriteDeadline(time.Time{})
	return n, nil
}

func (o *ttyOut) writeErr() error {
	o.wmu.Lock()
	defer o.wmu.Unlock()
	return o.failed
}

func (o *ttyOut) cutShort() ([]byte, error) {
	o.wmu.Lock()
	defer o.wmu.Unlock()
	return o.unsent, o.failed
}

// connTty is the tcell.Tty of a proxy client: what tcell writes goes to the
// client as output frames, what the client types arrives through feed. It
// lets the server run a real terminfo screen for the client's TERM over
// nothing but the socket.
type connTty struct {
	ttyArea
	ttyOut

	in      chan []byte // typed bytes, from feed to Read
	pending []byte      // owned by tcell's one reader goroutine
}

var _ clientTty = (*connTty)(nil)

// newConnTty is the tty of a client of cols x rows, all of which tcell
// draws until fit says otherwise; wmu guards writes to conn.
func newConnTty(conn net.Conn, wmu *sync.Mutex, cols, rows int) *connTty {
	t := &connTty{ttyArea: newTtyArea(cols, rows), in: make(chan []byte, 16)}
	t.ttyOut.init(conn, true, wmu)
	return t
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
		select {
		case b := <-t.in:
			t.pending = b
		case <-t.woken():
			return 0, os.ErrDeadlineExceeded
		case <-t.closed:
			return 0, io.EOF
		}
	}
	n := copy(p, t.pending)
	t.pending = t.pending[n:]
	return n, nil
}

func (t *connTty) Close() error {
	t.shut()
	return nil
}
