package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"sync"

	"github.com/melmux/melmux/internal/cli"
	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/webtoken"
	"github.com/melmux/melmux/internal/webwire"
)

// The web server runs in a process of its own, melmux-web, which the
// session's server starts on `melmux web` as `melmux-web __web` with its
// end of a socket pair as fd 3 (internal/webwire). It lives until the
// session asks it to stop or the pair closes: the session ended, or was
// killed, and nothing is served of it after.
func init() {
	cli.Register(&cli.Verb{
		Name:    cli.WebVerb,
		Usage:   "(started by the session's server on `melmux web`, its connection as fd 3)",
		Summary: "serve a session to browsers",
		Run: func(g *cli.Globals, args []string) error {
			if len(args) > 0 {
				return cli.Usagef("%s takes no arguments: the session's server starts it on `melmux web`", cli.WebVerb)
			}
			f := os.NewFile(3, "session")
			conn, err := net.FileConn(f)
			if f != nil {
				f.Close()
			}
			if err != nil {
				return fmt.Errorf("%s: fd 3 is not a connection to a session (%v): the session's server starts this on `melmux web`; run that instead", cli.WebVerb, err)
			}
			return Serve(conn)
		},
	})
}

// Serve serves the session at the other end of conn until it says stop or
// the connection ends.
func Serve(conn net.Conn) error {
	p := &process{}
	p.peer = webwire.NewPeer(conn, p.handle)
	p.be = &remote{peer: p.peer}
	p.log = slog.New(&wireLog{peer: p.peer})
	// The connection's end is the session's: its stop, its end, or its
	// server killed. Either way nothing is served of it after.
	_ = p.peer.Run()
	var srv *Server
	locked(&p.mu, func() { srv, p.srv = p.srv, nil })
	if srv != nil {
		srv.Close()
	}
	return nil
}

// process is the web server process's side of the connection.
type process struct {
	peer *webwire.Peer
	be   *remote
	log  *slog.Logger

	mu  sync.Mutex // guards srv
	srv *Server
}

func (p *process) handle(ctx context.Context, method string, raw json.RawMessage) (any, error) {
	switch method {
	case webwire.Changed:
		var a webwire.ArmParams
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, err
		}
		p.be.changed(a.N)
		return nil, nil
	case webwire.Start:
		var sp webwire.StartParams
		if err := json.Unmarshal(raw, &sp); err != nil {
			return nil, err
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.srv != nil {
			return nil, errors.New("web: serving already")
		}
		var tokens *webtoken.Store
		if sp.Tokens != "" {
			tokens = webtoken.Open(sp.Tokens)
		}
		srv, err := Start(Config{Listen: sp.Listen, CertFile: sp.TLSCert, KeyFile: sp.TLSKey, Tokens: tokens, Log: p.log, Backend: p.be})
		if err != nil {
			return nil, err
		}
		p.srv = srv
		code := srv.NewCode()
		return webwire.StatusResult{Addr: srv.Addr(), TLS: srv.TLS(), URL: srv.URL(code), Code: code, Browsers: srv.Browsers()}, nil
	case webwire.Code, webwire.Status, webwire.Stop:
		p.mu.Lock()
		defer p.mu.Unlock()
		srv := p.srv
		if srv == nil {
			return nil, errors.New("web: not serving")
		}
		st := webwire.StatusResult{Addr: srv.Addr(), TLS: srv.TLS(), Browsers: srv.Browsers()}
		switch method {
		case webwire.Code:
			st.Code = srv.NewCode()
			st.URL = srv.URL(st.Code)
		case webwire.Stop:
			p.srv = nil
			srv.Close()
		}
		return st, nil
	}
	return nil, fmt.Errorf("web: the web server answers no %q", method)
}

// remote is the session as Backend, over the connection.
type remote struct {
	peer *webwire.Peer

	mu sync.Mutex // guards ch and n
	ch chan struct{}
	n  uint64 // the Arm that ch waits for
}

// Changed arms the session before it returns, and so before the caller
// reads what it will send: a change after that closes the channel. Every
// page shares the one arm.
func (r *remote) Changed() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ch != nil {
		return r.ch
	}
	r.n++
	ch := make(chan struct{})
	// A notice, not a call: the session takes it in order, before the
	// frame's read that follows it on the connection.
	if err := r.peer.Notify(webwire.Arm, webwire.ArmParams{N: r.n}); err != nil {
		// The session is gone; this process ends with the connection.
		return ch
	}
	r.ch = ch
	return ch
}

// changed takes the session's notice of a change since Arm n.
func (r *remote) changed(n uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ch != nil && r.n == n {
		close(r.ch)
		r.ch = nil
	}
}

func (r *remote) State() State {
	var st State
	_ = r.peer.Call(context.Background(), webwire.State, struct{}{}, &st)
	return st
}

// Frame reads the state and the panes' screens in one round trip.
func (r *remote) Frame(panes []int) (State, []*webwire.ScreenResult, bool) {
	var f webwire.FrameResult
	if err := r.peer.Call(context.Background(), webwire.Frame, webwire.FrameParams{Panes: panes}, &f); err != nil || len(f.Screens) != len(panes) {
		return State{}, nil, false
	}
	return f.State, f.Screens, true
}

func (r *remote) Screen(id int) *webwire.ScreenResult {
	var scr *webwire.ScreenResult
	if err := r.peer.Call(context.Background(), webwire.Screen, webwire.ScreenParams{Pane: id}, &scr); err != nil {
		return nil
	}
	return scr
}

func (r *remote) History(ctx context.Context, id int, p webwire.HistoryParams) *webwire.HistoryResult {
	p.Pane = id
	var h *webwire.HistoryResult
	if err := r.peer.Call(ctx, webwire.History, p, &h); err != nil {
		return nil
	}
	return h
}

func (r *remote) Type(ctx context.Context, id int, text string, keys bool) error {
	return r.peer.Call(ctx, webwire.Type, webwire.TypeParams{Pane: id, Text: text, Keys: keys}, nil)
}

func (r *remote) Answer(ctx context.Context, id int, choice, question string) (proto.AnswerResult, error) {
	var res proto.AnswerResult
	err := r.peer.Call(ctx, webwire.Answer, webwire.AnswerParams{Pane: id, Choice: choice, Question: question}, &res)
	return res, err
}

// wireLog sends the web server's log records to the session's log.
type wireLog struct {
	peer  *webwire.Peer
	attrs []any
}

func (l *wireLog) Enabled(_ context.Context, level slog.Level) bool { return level >= slog.LevelInfo }

func (l *wireLog) Handle(_ context.Context, r slog.Record) error {
	attrs := append([]any(nil), l.attrs...)
	r.Attrs(func(a slog.Attr) bool {
		attrs = append(attrs, a.Key, logValue(a.Value))
		return true
	})
	return l.peer.Notify(webwire.Log, webwire.LogParams{Level: int(r.Level), Msg: r.Message, Attrs: attrs})
}

func (l *wireLog) WithAttrs(as []slog.Attr) slog.Handler {
	n := &wireLog{peer: l.peer, attrs: append([]any(nil), l.attrs...)}
	for _, a := range as {
		n.attrs = append(n.attrs, a.Key, logValue(a.Value))
	}
	return n
}

func (l *wireLog) WithGroup(string) slog.Handler { return l }

// logValue is v as JSON carries it to the session's log: numbers, strings
// and booleans as they are, anything else (a duration, an error) as its
// text.
func logValue(v slog.Value) any {
	v = v.Resolve()
	switch v.Kind() {
	case slog.KindString, slog.KindInt64, slog.KindUint64, slog.KindFloat64, slog.KindBool:
		return v.Any()
	}
	return v.String()
}
