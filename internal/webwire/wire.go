// Package webwire is the connection between a session's server and the
// process that serves it to browsers (`melmux web`, the melmux-web binary):
// what the page needs of the session — its shape, a pane's rows, a signal
// at the next change, typing and answering — and what the session asks of
// the web server — start, a new login code, status, stop — as JSON lines
// over a socket pair the server makes when it starts the process.
//
// The web server is a process of its own so that the session's server
// does not link net/http, crypto/tls, crypto/x509 and the WebSocket
// library: Go runs every linked package's init in every process, and
// those cost an idle server 2.1 MiB whether the web is used or not
// (docs/benchmarks.md, "Session start and an idle server"). The protocol is
// narrow on purpose: the web process faces the network, and the session
// answers it only these few requests.
package webwire

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"

	"github.com/melmux/melmux/internal/proto"
)

// The web process's requests to the session.
const (
	// State answers State.
	State = "state"
	// Screen (ScreenParams) answers a *Screen, null when the pane is gone.
	Screen = "screen"
	// Frame (FrameParams) answers State and the Screens of the panes
	// named, in one round trip: what a page's frame reads.
	Frame = "frame"
	// History (HistoryParams) answers a *HistoryResult, a page of a
	// pane's history in the rows Screen gives, null when the pane is gone.
	History = "history"
	// Arm (ArmParams), a notice the session takes in order (Inline),
	// makes the session send the notice Changed with the same N at its
	// next change: the web process arms before it reads what it sends,
	// and the read comes after the arm on the connection, so no change
	// between is lost.
	Arm = "arm"
	// Type (TypeParams) writes into a pane.
	Type = "type"
	// Answer (AnswerParams) answers a pane's question through the answer
	// command; it answers a proto.AnswerResult.
	Answer = "answer"
	// Log (LogParams) is a notice: a line for the session's log.
	Log = "log"
)

// Changed is the session's notice (ArmParams) that something changed
// since the Arm of the same N.
const Changed = "changed"

// The session's requests to the web process.
const (
	// Start (StartParams) listens; it answers Status with URL and Code,
	// or the error that says why it cannot serve, and the process ends.
	Start = "start"
	// Code answers Status with a new one-time login code.
	Code = "code"
	// Status answers Status.
	Status = "status"
	// Stop closes every page, answers Status and ends the process.
	Stop = "stop"
)

// cancel is a notice from the side that made a request: it no longer
// waits for the answer (CancelParams), so the other side stops its work.
const cancel = "cancel"

// StartParams is what the web server needs to start: proto.WebParams'
// listen address and TLS files, the tokens' file, the session's name.
type StartParams struct {
	Session string `json:"session"`
	Listen  string `json:"listen,omitempty"`
	TLSCert string `json:"tls_cert,omitempty"`
	TLSKey  string `json:"tls_key,omitempty"`
	Tokens  string `json:"tokens"`
}

// StatusResult is how the web process serves.
type StatusResult struct {
	Addr     string `json:"addr"`
	TLS      bool   `json:"tls,omitempty"`
	URL      string `json:"url,omitempty"`
	Code     string `json:"code,omitempty"`
	Browsers int    `json:"browsers"`
}

// StateResult is the session's shape: its tabs with their panes placed in
// the pane area, and its agents.
type StateResult struct {
	Session string           `json:"session"`
	Cols    int              `json:"cols"`
	Rows    int              `json:"rows"`
	Active  int              `json:"active"`
	Focused int              `json:"focused"`
	Tabs    []Tab            `json:"tabs"`
	Agents  []proto.AgentRow `json:"agents"`
}

// Tab is one tab of the layout.
type Tab struct {
	Name  string     `json:"name"`
	Panes []PaneInfo `json:"panes"`
}

// PaneInfo is a pane and where its content lies in the pane area.
type PaneInfo struct {
	ID    int    `json:"id"`
	Title string `json:"title"`
	State string `json:"state,omitempty"` // its agent's state, when it runs one
	X     int    `json:"x"`
	Y     int    `json:"y"`
	W     int    `json:"w"`
	H     int    `json:"h"`
}

// ScreenParams names a pane.
type ScreenParams struct {
	Pane int `json:"pane"`
}

// ScreenResult is a pane's screen as the page draws it: each row as runs
// of one style, already in the page's JSON (the session's
// internal/server encodes them: the web process never sees a cell), so
// the web process compares rows as strings to send only those that
// changed.
type ScreenResult struct {
	Cols   int               `json:"cols"`
	Rows   int               `json:"rows"`
	Title  string            `json:"title"`
	Cursor [3]int            `json:"cursor"` // x, y, visible (0 or 1)
	Lines  []json.RawMessage `json:"lines"`
	// Hist is the place above the history's newest line (HistoryResult):
	// a page scrolled back into the history learns from it that lines
	// scrolled off the screen since it read the history.
	Hist uint64 `json:"hist"`
}

// HistoryParams asks for up to N rows of a pane's history: those just
// above the place Before (0: the newest rows), or, with After, those from
// the place After on. A place numbers a line of the pane's history from
// the first line the pane ever saved, so that it stays the line's while
// newer lines are saved and the oldest are dropped; a resize that takes
// lines back onto the screen numbers them anew (a page reads the history
// again after a resize).
type HistoryParams struct {
	Pane   int    `json:"pane"`
	Before uint64 `json:"before,omitempty"`
	After  uint64 `json:"after,omitempty"`
	N      int    `json:"n"`
}

// MaxHistoryRows bounds HistoryParams.N: a page of history is one
// message, and a page asks again as it scrolls.
const MaxHistoryRows = 500

// HistoryResult is a page of a pane's history, oldest first: Lines[i] is
// the line at place First+i, in ScreenResult's rows. Oldest is the place
// of the oldest line the history holds, Top the place above its newest
// (Top-Oldest lines in all).
type HistoryResult struct {
	First  uint64            `json:"first"`
	Oldest uint64            `json:"oldest"`
	Top    uint64            `json:"top"`
	Lines  []json.RawMessage `json:"lines"`
}

// FrameParams names the panes whose screens a frame reads.
type FrameParams struct {
	Panes []int `json:"panes"`
}

// FrameResult is a frame's reads: the state and each pane's screen (null
// for one that is gone), in FrameParams' order.
type FrameResult struct {
	State   StateResult     `json:"state"`
	Screens []*ScreenResult `json:"screens"`
}

// ArmParams numbers an Arm and the Changed it is answered by.
type ArmParams struct {
	N uint64 `json:"n"`
}

// TypeParams is what a page typed: text as it is, or (Keys) in send_keys'
// key notation, encoded for the pane's modes.
type TypeParams struct {
	Pane int    `json:"pane"`
	Text string `json:"text"`
	Keys bool   `json:"keys,omitempty"`
}

// AnswerParams is a page's answer to a pane's question.
type AnswerParams struct {
	Pane     int    `json:"pane"`
	Choice   string `json:"choice"`
	Question string `json:"question,omitempty"`
}

// LogParams is a log record of the web process: its level (slog's), its
// message and its attributes as key, value, key, value...
type LogParams struct {
	Level int    `json:"level"`
	Msg   string `json:"msg"`
	Attrs []any  `json:"attrs,omitempty"`
}

// CancelParams names the request given up.
type CancelParams struct {
	ID uint64 `json:"id"`
}

// MaxLine bounds one message. A screen of the largest size a session
// allows (proto's limits) with a colour change in every cell is some tens
// of MB of JSON; both ends are melmux's own, so a line over it is a
// bug, and ends the connection.
const MaxLine = 64 << 20

// message is one line: a request (ID and M), a notice (M alone) or an
// answer (Re, with R or Err).
type message struct {
	ID  uint64          `json:"id,omitempty"`
	M   string          `json:"m,omitempty"`
	P   json.RawMessage `json:"p,omitempty"`
	Re  uint64          `json:"re,omitempty"`
	R   json.RawMessage `json:"r,omitempty"`
	Err string          `json:"err,omitempty"`
}

// Handler answers a request or takes a notice (its answer is dropped). ctx
// ends when the other side gives the request up or the connection ends.
type Handler func(ctx context.Context, method string, params json.RawMessage) (any, error)

// Peer is one end of the connection. Either end makes requests and
// answers the other's; each request and notice it receives runs on a
// goroutine of its own, so a slow one (typing into a pane that does not
// read) holds up nothing else.
type Peer struct {
	conn   net.Conn
	handle Handler
	ctx    context.Context
	stop   context.CancelFunc

	wmu sync.Mutex // guards writes to conn: one line at a time

	mu      sync.Mutex // guards next, calls, serving, err
	next    uint64
	calls   map[uint64]chan message
	serving map[uint64]context.CancelFunc
	err     error // why the connection ended

	inline map[string]bool // set before Run, read only after
}

// Inline has the notices of these methods handled on the reading
// goroutine, in the order they came, before anything after them is read:
// for what must take effect before the next request (Arm). Their handler
// must not block. Call it before Run.
func (p *Peer) Inline(methods ...string) {
	if p.inline == nil {
		p.inline = map[string]bool{}
	}
	for _, m := range methods {
		p.inline[m] = true
	}
}

// ErrClosed is a request's error once the connection has ended.
var ErrClosed = errors.New("the connection between the session and its web server ended")

// NewPeer wraps conn; Run reads it.
func NewPeer(conn net.Conn, handle Handler) *Peer {
	ctx, stop := context.WithCancel(context.Background())
	return &Peer{conn: conn, handle: handle, ctx: ctx, stop: stop, calls: map[uint64]chan message{}, serving: map[uint64]context.CancelFunc{}}
}

// Done is closed when the connection has ended.
func (p *Peer) Done() <-chan struct{} { return p.ctx.Done() }

// Err says why the connection ended (nil while it goes on; io.EOF when
// the other side closed it).
func (p *Peer) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// Close ends the connection.
func (p *Peer) Close() error {
	p.end(ErrClosed)
	return nil
}

func (p *Peer) end(err error) {
	calls := p.ended(err)
	p.stop()
	p.conn.Close()
	for _, ch := range calls {
		close(ch)
	}
}

// ended records err as why the connection ended, unless it ended already,
// and takes every call waiting for its answer.
func (p *Peer) ended(err error) map[uint64]chan message {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err == nil {
		p.err = err
	}
	calls := p.calls
	p.calls = map[uint64]chan message{}
	return calls
}

// takeCall takes the channel of the call numbered id out of those waiting
// for their answer; nil when it waits no more.
func (p *Peer) takeCall(id uint64) chan message {
	p.mu.Lock()
	defer p.mu.Unlock()
	ch := p.calls[id]
	delete(p.calls, id)
	return ch
}

// cancelServing gives up serving the request numbered id, if it is still
// being served.
func (p *Peer) cancelServing(id uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if stop := p.serving[id]; stop != nil {
		stop()
	}
}

// setServing records stop as what gives up serving the request numbered
// id; nil forgets it, once it is answered.
func (p *Peer) setServing(id uint64, stop context.CancelFunc) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if stop == nil {
		delete(p.serving, id)
		return
	}
	p.serving[id] = stop
}

// Run reads messages until the connection ends, and returns why.
func (p *Peer) Run() error {
	sc := bufio.NewScanner(p.conn)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLine)
	for sc.Scan() {
		var m message
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			p.end(fmt.Errorf("webwire: a malformed message: %v", err))
			return p.Err()
		}
		switch {
		case m.Re != 0:
			if ch := p.takeCall(m.Re); ch != nil {
				ch <- m
			}
		case m.M == cancel:
			var c CancelParams
			_ = json.Unmarshal(m.P, &c)
			p.cancelServing(c.ID)
		case m.M != "" && m.ID == 0 && p.inline[m.M]:
			_, _ = p.handle(p.ctx, m.M, m.P)
		case m.M != "":
			p.serve(m)
		}
	}
	err := sc.Err()
	if err == nil {
		err = io.EOF
	}
	p.end(err)
	return p.Err()
}

func (p *Peer) serve(m message) {
	ctx, stop := context.WithCancel(p.ctx)
	if m.ID != 0 {
		p.setServing(m.ID, stop)
	}
	go func() {
		defer stop()
		res, err := p.handle(ctx, m.M, m.P)
		if m.ID == 0 {
			return
		}
		p.setServing(m.ID, nil)
		a := message{Re: m.ID}
		if err != nil {
			a.Err = err.Error()
		} else if a.R, err = json.Marshal(res); err != nil {
			a.R, a.Err = nil, err.Error()
		}
		_ = p.write(a)
	}()
}

func (p *Peer) write(m message) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	p.wmu.Lock()
	defer p.wmu.Unlock()
	if p.ctx.Err() != nil {
		return ErrClosed
	}
	if _, err := p.conn.Write(b); err != nil {
		p.end(err)
		return ErrClosed
	}
	return nil
}

// Notify sends a notice.
func (p *Peer) Notify(method string, params any) error {
	b, err := json.Marshal(params)
	if err != nil {
		return err
	}
	return p.write(message{M: method, P: b})
}

// Call makes a request and waits for its answer into result (nil drops
// it). An error the other side answered comes back with its message as it
// was; ctx's end gives the request up and tells the other side.
func (p *Peer) Call(ctx context.Context, method string, params, result any) error {
	b, err := json.Marshal(params)
	if err != nil {
		return err
	}
	ch := make(chan message, 1)
	id, ok := p.newCall(ch)
	if !ok {
		return ErrClosed
	}
	if err := p.write(message{ID: id, M: method, P: b}); err != nil {
		return err
	}
	select {
	case a, ok := <-ch:
		if !ok {
			return ErrClosed
		}
		if a.Err != "" {
			return errors.New(a.Err)
		}
		if result != nil {
			return json.Unmarshal(a.R, result)
		}
		return nil
	case <-ctx.Done():
		p.takeCall(id)
		_ = p.Notify(cancel, CancelParams{ID: id})
		return ctx.Err()
	}
}

// newCall numbers a call whose answer goes to ch; false once the
// connection has ended.
func (p *Peer) newCall(ch chan message) (uint64, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return 0, false
	}
	p.next++
	p.calls[p.next] = ch
	return p.next, true
}
