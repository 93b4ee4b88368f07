package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/melmux/melmux/internal/webwire"
)

// conn is one page's WebSocket. Its writer (the handler's goroutine) is the
// only one that writes: frames are built from the session when it is ready
// to send one, never queued, so a slow page gets fewer frames and the
// panes never wait for it; a page that takes no frame for writeTimeout is
// dropped. Replies to the page's requests go through out, bounded: a page
// that floods requests faster than it reads is dropped too.
type conn struct {
	s    *Server
	ws   *websocket.Conn
	sess *session
	key  string // the session's key, checked again on every request and ping

	out    chan []byte
	kick   chan struct{} // capacity one: build a frame now (watch changed, writer changed)
	cancel context.CancelFunc
	once   sync.Once
	reason string

	mu      sync.Mutex // guards watched: the reader sets it, the writer reads it
	watched []int

	// The writer's alone: what the page holds.
	lastState []byte
	sent      map[int]*sentPane
}

type sentPane struct {
	cols, rows int
	lines      []string
	hist       uint64
	gone       bool
}

// inMsg is a message from the page.
type inMsg struct {
	T        string `json:"t"`
	Panes    []int  `json:"panes,omitempty"`
	Pane     int    `json:"pane,omitempty"`
	Text     string `json:"text,omitempty"`
	Key      string `json:"key,omitempty"`
	Choice   string `json:"choice,omitempty"`
	Question string `json:"question,omitempty"`
	Before   uint64 `json:"before,omitempty"`
	After    uint64 `json:"after,omitempty"`
	N        int    `json:"n,omitempty"`
}

func (s *Server) socket(w http.ResponseWriter, r *http.Request) {
	if !s.originOK(r) {
		s.log.Warn("web: refused a WebSocket from another origin", "origin", r.Header.Get("Origin"), "from", r.RemoteAddr)
		http.Error(w, "melmux web: wrong Origin", http.StatusForbidden)
		return
	}
	sess, key := s.sessionOf(r)
	if sess == nil {
		http.Error(w, "melmux web: log in first", http.StatusUnauthorized)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &conn{s: s, sess: sess, key: key, out: make(chan []byte, outQueue), kick: make(chan struct{}, 1),
		cancel: cancel, sent: map[int]*sentPane{}}
	// Counted before its upgrade is answered: a page that has its 101 is
	// a browser connected, for Browsers (web --status) as for itself.
	if !s.add(c) {
		cancel()
		http.Error(w, "melmux web stopped", http.StatusServiceUnavailable)
		return
	}
	defer s.gone(c)
	// Origin was checked above, against the Host the browser used;
	// Accept's own check (Origin's host equal to Host) agrees.
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{CompressionMode: websocket.CompressionNoContextTakeover})
	if err != nil {
		cancel()
		return
	}
	ws.SetReadLimit(maxMessage)
	c.ws = ws
	go c.read(ctx)
	c.write(ctx)
	code, why := websocket.StatusNormalClosure, c.reason
	if why != "" {
		code = websocket.StatusPolicyViolation
	}
	ws.Close(code, why)
}

// add counts c among the pages connected; false once the server is closed.
func (s *Server) add(c *conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.conns[c] = struct{}{}
	return true
}

func (s *Server) gone(c *conn) {
	var wrote bool
	var others []*conn
	locked(&s.mu, func() {
		delete(s.conns, c)
		wrote = s.writer == c
		if wrote {
			s.writer = nil
		}
		others = s.connsLocked()
	})
	if wrote {
		for _, o := range others {
			o.poke()
		}
	}
}

func (s *Server) connsLocked() []*conn {
	out := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		out = append(out, c)
	}
	return out
}

func (c *conn) poke() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// drop ends the connection, saying why.
func (c *conn) drop(reason string) {
	c.once.Do(func() {
		c.reason = reason
		c.cancel()
	})
}

func (c *conn) send(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	select {
	case c.out <- b:
	default:
		c.drop("too many requests unread")
	}
}

func (c *conn) fail(format string, args ...any) {
	c.send(map[string]string{"t": "error", "msg": fmt.Sprintf(format, args...)})
}

func (c *conn) read(ctx context.Context) {
	defer c.drop("")
	for {
		typ, b, err := c.ws.Read(ctx)
		if err != nil {
			var ce websocket.CloseError
			if !errors.As(err, &ce) && ctx.Err() == nil {
				c.s.log.Info("web: a page's connection ended", "err", err)
			}
			// A frame over the limit, or one that is not WebSocket,
			// ends up here: coder/websocket closed it with the status.
			c.drop("")
			return
		}
		var m inMsg
		if typ != websocket.MessageText || json.Unmarshal(b, &m) != nil {
			c.s.log.Warn("web: a page sent a malformed message; dropped it", "bytes", len(b))
			c.drop("malformed message")
			return
		}
		if !c.s.valid(c.key) {
			c.drop("logged out (the token was revoked, or the login expired)")
			return
		}
		c.handle(ctx, m)
	}
}

func (c *conn) handle(ctx context.Context, m inMsg) {
	switch m.T {
	case "watch":
		ids := m.Panes
		if len(ids) > maxWatched {
			ids = ids[:maxWatched]
		}
		locked(&c.mu, func() { c.watched = slices.Clone(ids) })
		c.poke()
		return
	case "history":
		// Watching includes the history: a read-only login reads it too.
		// One page at a time, on the reading goroutine: a page cannot
		// have more than one read of the session outstanding.
		h := c.s.cfg.Backend.History(ctx, m.Pane, webwire.HistoryParams{Before: m.Before, After: m.After, N: m.N})
		r := historyMsg{T: "history", Pane: m.Pane}
		if h == nil {
			r.Gone = true
		} else {
			r.First, r.Oldest, r.Top, r.Lines = h.First, h.Oldest, h.Top, h.Lines
		}
		if r.Lines == nil {
			r.Lines = []json.RawMessage{}
		}
		c.send(r)
		return
	case "text", "key", "take", "answer":
	default:
		c.fail("unknown message %q", m.T)
		return
	}
	if c.sess.readOnly {
		c.s.log.Warn("web: refused typing from a read-only login", "as", c.sess.name)
		c.fail("this login (%s) is read-only: it can watch, not type or answer", c.sess.name)
		return
	}
	switch m.T {
	case "take":
		c.s.take(c)
	case "text", "key":
		if !c.s.mayType(c) {
			c.fail("another page is typing: take over to type here")
			return
		}
		text, keys := m.Text, false
		if m.T == "key" {
			text, keys = m.Key, true
		}
		if text == "" {
			return
		}
		if err := c.s.cfg.Backend.Type(ctx, m.Pane, text, keys); err != nil {
			c.fail("%v", err)
		}
	case "answer":
		go func() {
			res, err := c.s.cfg.Backend.Answer(ctx, m.Pane, m.Choice, m.Question)
			r := map[string]any{"t": "answered", "pane": m.Pane, "ok": err == nil && res.Gone}
			switch {
			case err != nil:
				r["msg"] = err.Error()
			case res.Gone:
				r["msg"] = fmt.Sprintf("answered %q with %s", res.Question.Text, res.Option.Label)
			default:
				r["msg"] = fmt.Sprintf("typed %s, but pane %d still asks", res.Option.Key, m.Pane)
			}
			c.send(r)
		}()
	}
}

// mayType says c may type: the page that typed last keeps the keyboard
// until another takes it over (or it goes).
func (s *Server) mayType(c *conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch s.writer {
	case c:
		return true
	case nil:
		s.writer = c
		for _, o := range s.connsLocked() {
			o.poke()
		}
		return true
	}
	return false
}

func (s *Server) take(c *conn) {
	var others []*conn
	locked(&s.mu, func() {
		s.writer = c
		others = s.connsLocked()
	})
	for _, o := range others {
		o.poke()
	}
}

func (s *Server) writerIs(c *conn) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch s.writer {
	case nil:
		return ""
	case c:
		return "you"
	}
	return "other"
}

// write is the connection's one writer: frames when the session changed
// (at most one each frameInterval), replies, pings.
func (c *conn) write(ctx context.Context) {
	ping := time.NewTicker(pingEvery)
	defer ping.Stop()
	throttle := time.NewTimer(0)
	<-throttle.C
	pending, waiting := true, false
	var last time.Time
	var changed <-chan struct{}
	if err := c.writeJSON(ctx, map[string]any{"t": "hello", "name": c.sess.name, "read_only": c.sess.readOnly}); err != nil {
		return
	}
	for {
		if pending && !waiting {
			if wait := frameInterval - time.Since(last); wait > 0 {
				throttle.Reset(wait)
				waiting = true
			} else {
				changed = c.s.cfg.Backend.Changed()
				if err := c.frame(ctx); err != nil {
					c.drop("")
					return
				}
				pending, last = false, time.Now()
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
			changed, pending = nil, true
		case <-c.kick:
			pending = true
		case <-throttle.C:
			waiting = false
		case b := <-c.out:
			if err := c.writeRaw(ctx, b); err != nil {
				c.drop("")
				return
			}
		case <-ping.C:
			if !c.s.valid(c.key) {
				c.drop("logged out (the token was revoked, or the login expired)")
				return
			}
			pctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
			err := c.ws.Ping(pctx)
			cancel()
			if err != nil {
				c.drop("")
				return
			}
		}
	}
}

func (c *conn) writeJSON(ctx context.Context, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return c.writeRaw(ctx, b)
}

func (c *conn) writeRaw(ctx context.Context, b []byte) error {
	// Not under ctx: the connection's end cancels ctx, and a write cut
	// off by a cancel closes the socket at once, before the close frame
	// that says why.
	wctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	err := c.ws.Write(wctx, websocket.MessageText, b)
	if err != nil && errors.Is(wctx.Err(), context.DeadlineExceeded) {
		c.s.log.Warn("web: dropped a page that takes no frames", "err", err)
	}
	return err
}

type stateMsg struct {
	T        string `json:"t"`
	State    State  `json:"state"`
	Writer   string `json:"writer"`
	ReadOnly bool   `json:"read_only"`
}

type screenMsg struct {
	T      string `json:"t"`
	Pane   int    `json:"pane"`
	Cols   int    `json:"cols"`
	Rows   int    `json:"rows"`
	Full   bool   `json:"full,omitempty"`
	Title  string `json:"title"`
	Lines  []row  `json:"lines"`
	Cursor [3]int `json:"cursor"` // x, y, visible
	Hist   uint64 `json:"hist"`   // the place above the history's newest line
	Gone   bool   `json:"gone,omitempty"`
}

// historyMsg is a page of a pane's history (webwire.HistoryResult).
type historyMsg struct {
	T      string            `json:"t"`
	Pane   int               `json:"pane"`
	First  uint64            `json:"first"`
	Oldest uint64            `json:"oldest"`
	Top    uint64            `json:"top"`
	Lines  []json.RawMessage `json:"lines"`
	Gone   bool              `json:"gone,omitempty"`
}

// row is [y, runs] as JSON.
type row struct {
	Y    int
	Runs json.RawMessage
}

func (r row) MarshalJSON() ([]byte, error) {
	b := fmt.Appendf(nil, "[%d,", r.Y)
	b = append(b, r.Runs...)
	return append(b, ']'), nil
}

// frame sends what changed since the last frame: the state when it
// differs, and each watched pane's changed rows.
func (c *conn) frame(ctx context.Context) error {
	var watched []int
	locked(&c.mu, func() { watched = slices.Clone(c.watched) })
	var state State
	screens := make([]*webwire.ScreenResult, len(watched))
	if f, ok := c.s.cfg.Backend.(framer); ok {
		var read bool
		if state, screens, read = f.Frame(watched); !read {
			return errors.New("web: the session did not answer")
		}
	} else {
		state = c.s.cfg.Backend.State()
		for i, id := range watched {
			screens[i] = c.s.cfg.Backend.Screen(id)
		}
	}
	st := stateMsg{T: "state", State: state, Writer: c.s.writerIs(c), ReadOnly: c.sess.readOnly}
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	if string(b) != string(c.lastState) {
		if err := c.writeRaw(ctx, b); err != nil {
			return err
		}
		c.lastState = b
	}
	for id := range c.sent {
		if !slices.Contains(watched, id) {
			delete(c.sent, id)
		}
	}
	for i, id := range watched {
		m := c.screenDiff(id, screens[i])
		if m == nil {
			continue
		}
		if err := c.writeJSON(ctx, m); err != nil {
			return err
		}
	}
	return nil
}

// framer is a Backend that answers a frame's reads, the state and the
// watched panes' screens, at once: the session at the other end of the
// connection, in one round trip instead of one a read.
type framer interface {
	// Frame's false says the session is gone.
	Frame(panes []int) (State, []*webwire.ScreenResult, bool)
}

func (c *conn) screenDiff(id int, scr *webwire.ScreenResult) *screenMsg {
	prev := c.sent[id]
	if scr == nil {
		if prev != nil && prev.gone {
			return nil
		}
		c.sent[id] = &sentPane{gone: true}
		return &screenMsg{T: "screen", Pane: id, Gone: true}
	}
	full := prev == nil || prev.gone || prev.cols != scr.Cols || prev.rows != scr.Rows || len(prev.lines) != len(scr.Lines)
	if full {
		prev = &sentPane{cols: scr.Cols, rows: scr.Rows, lines: make([]string, len(scr.Lines))}
		c.sent[id] = prev
	}
	m := &screenMsg{T: "screen", Pane: id, Cols: scr.Cols, Rows: scr.Rows, Full: full, Title: scr.Title, Cursor: scr.Cursor, Hist: scr.Hist}
	for y, enc := range scr.Lines {
		if !full && prev.lines[y] == string(enc) {
			continue
		}
		prev.lines[y] = string(enc)
		m.Lines = append(m.Lines, row{Y: y, Runs: enc})
	}
	// Lines that scroll off a screen that looks the same after (`yes`)
	// change only the history: a page scrolled back is told.
	if !full && len(m.Lines) == 0 && prev.hist == scr.Hist {
		return nil
	}
	prev.hist = scr.Hist
	return m
}
