package server

import (
	"io"
	"net"
	"sync"

	"github.com/gdamore/tcell/v2"

	"github.com/melmux/melmux/internal/proto"
)

// connTty is the tcell.Tty of an attached client: what tcell writes goes to
// the client as output frames, what the client types arrives through feed,
// and the size is the one the client last reported. It lets the server run a
// real terminfo screen for the client's TERM over nothing but the socket.
type connTty struct {
	conn net.Conn
	wmu  *sync.Mutex // guards writes to conn, shared with other writers of this client

	in *io.PipeReader
	pw *io.PipeWriter

	mu       sync.Mutex // guards cols, rows, onResize
	cols     int
	rows     int
	onResize func()
}

func newConnTty(conn net.Conn, wmu *sync.Mutex, cols, rows int) *connTty {
	pr, pw := io.Pipe()
	return &connTty{conn: conn, wmu: wmu, in: pr, pw: pw, cols: cols, rows: rows}
}

func (t *connTty) Start() error { return nil }
func (t *connTty) Stop() error  { return nil }
func (t *connTty) Drain() error { return nil }

func (t *connTty) NotifyResize(cb func()) {
	t.mu.Lock()
	t.onResize = cb
	t.mu.Unlock()
}

func (t *connTty) WindowSize() (tcell.WindowSize, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return tcell.WindowSize{Width: t.cols, Height: t.rows}, nil
}

// setSize records a resize frame and tells tcell.
func (t *connTty) setSize(cols, rows int) {
	t.mu.Lock()
	t.cols, t.rows = cols, rows
	cb := t.onResize
	t.mu.Unlock()
	if cb != nil {
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
	_, err := t.pw.Write(p)
	return err
}

func (t *connTty) Read(p []byte) (int, error) { return t.in.Read(p) }

// Write sends output to the client in frames no larger than the protocol allows.
func (t *connTty) Write(p []byte) (int, error) {
	t.wmu.Lock()
	defer t.wmu.Unlock()
	n := 0
	for len(p) > 0 {
		chunk := p
		if len(chunk) > proto.MaxFrame {
			chunk = chunk[:proto.MaxFrame]
		}
		if err := proto.WriteFrame(t.conn, proto.FrameOutput, chunk); err != nil {
			return n, err
		}
		n += len(chunk)
		p = p[len(chunk):]
	}
	return n, nil
}

func (t *connTty) Close() error {
	t.pw.Close()
	return nil
}
