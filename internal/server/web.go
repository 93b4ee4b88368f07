package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/melmux/melmux/internal/audit"
	"github.com/melmux/melmux/internal/cli"
	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/webwire"
)

// webHub is the session's side of `melmux web`: the web server's process
// while one runs (melmux-web, internal/web), and the change signal its
// pages wait on. Output calls note for every chunk, so note costs one
// atomic load while no page waits.
//
// The web server is a process of its own, not a part of this one, so the
// session's server links no net/http, TLS, x509 or WebSocket code: their
// package inits cost an idle server 2.1 MiB whether the web was used or
// not. It talks to the session over a socket pair (internal/webwire) and
// ends with it: the session's end closes the pair.
type webHub struct {
	armed atomic.Bool
	mu    sync.Mutex // guards ch; never held with Server.mu or run
	ch    chan struct{}

	run  sync.Mutex // guards proc; held while one starts or stops
	proc *webProc

	agents webAgents
}

// webProc is a running web server process.
type webProc struct {
	peer   *webwire.Peer
	cmd    *exec.Cmd
	addr   string
	tls    bool
	exited chan struct{} // closed once the process was waited for
	ending atomic.Bool   // the session ends it: its end is no news
}

// webAgents is the agents list the pages are sent, built again only when
// an agent may have changed (a pane's agent generation, which every state
// change, question, report and turn bumps; the panes, their tabs, the
// focus) or a second has passed (a title, a cost, a worktree's count):
// building it decides every agent pane, and pages ask for the session's
// state with every frame, which a flooding pane makes 20 a second per
// page. Guarded by Server.mu.
type webAgents struct {
	key    []uint64
	at     time.Time
	rows   []proto.AgentRow
	builds atomic.Int64 // how many times it was built, for tests
}

// webAgentsEvery is the longest a page's agents list goes unbuilt.
const webAgentsEvery = time.Second

// webAgentsLocked is agentRowsLocked for the pages. Caller holds Server.mu,
// taken through withAgentsRead.
func (s *Server) webAgentsLocked(ar *agentsRead, now time.Time) []proto.AgentRow {
	a := &s.web.agents
	key := []uint64{uint64(s.layout.Focused())}
	for _, id := range s.layout.Panes() {
		e, ok := s.panes[id]
		if !ok {
			continue
		}
		tab, _ := s.layout.TabOf(id)
		var gen uint64
		e.agentDo(func() { gen = s.agentGenLocked(e) })
		key = append(key, uint64(id), uint64(tab), gen)
	}
	if a.rows != nil && slices.Equal(key, a.key) && now.Sub(a.at) < webAgentsEvery {
		return slices.Clone(a.rows)
	}
	rows := s.agentRowsLocked(ar, now)
	if ar.dropped() {
		return nil // made again
	}
	for i := range rows {
		// How long ago changes every frame: the page counts it from Since.
		rows[i].SinceMS = 0
	}
	if rows == nil {
		rows = []proto.AgentRow{}
	}
	a.key, a.at, a.rows = key, now, rows
	a.builds.Add(1)
	return slices.Clone(rows)
}

// changed returns a channel closed at the next note.
func (h *webHub) changed() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ch == nil {
		h.ch = make(chan struct{})
	}
	h.armed.Store(true)
	return h.ch
}

// note tells the pages something changed. It never blocks.
func (h *webHub) note() {
	if !h.armed.Load() {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ch != nil {
		close(h.ch)
		h.ch = nil
	}
	h.armed.Store(false)
}

// webHolds says what melmux-web is for, in the error when it is missing.
const webHolds = "the web server of `melmux web`"

// webCommand is the web server's command line: melmux-web found as the
// other binaries are, or this session's melmux when the web server is
// linked into it (cmd/melmux's tests, whose binary is every melmux
// program).
func (s *Server) webCommand() ([]string, error) {
	if s.tune.web != nil {
		return s.tune.web(), nil
	}
	if v := cli.Lookup(cli.WebVerb); v != nil && !v.StandIn && s.self != "" {
		return []string{s.self, cli.WebVerb}, nil
	}
	bin, err := cli.FindBinary(cli.WebBinary, webHolds)
	if err != nil {
		return nil, err
	}
	return []string{bin, cli.WebVerb}, nil
}

// startWeb starts the web server's process and asks it to listen. A
// process that cannot serve (a refused address, a bad certificate) is
// ended, and its reason is the error.
func (s *Server) startWeb(ctx context.Context, p proto.WebParams, tokens string) (*webProc, webwire.StatusResult, error) {
	var st webwire.StatusResult
	argv, err := s.webCommand()
	if err != nil {
		return nil, st, err
	}
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, st, fmt.Errorf("web: a socket pair for the web server: %w", err)
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "web"), os.NewFile(uintptr(fds[1]), "web (its end)")
	defer theirs.Close()
	conn, err := net.FileConn(ours)
	ours.Close()
	if err != nil {
		return nil, st, fmt.Errorf("web: %w", err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.ExtraFiles = []*os.File{theirs} // fd 3
	out := &webOutput{log: s.log}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		conn.Close()
		return nil, st, fmt.Errorf("web: start %s: %w", argv[0], err)
	}
	w := &webProc{cmd: cmd, exited: make(chan struct{})}
	w.peer = webwire.NewPeer(conn, func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		return s.webRequest(ctx, w, method, params)
	})
	w.peer.Inline(webwire.Arm)
	go func() {
		defer s.recovered("web", nil)
		_ = cmd.Wait()
		out.flush()
		close(w.exited)
	}()
	go func() {
		defer s.recovered("web", nil)
		_ = w.peer.Run()
	}()
	err = w.peer.Call(ctx, webwire.Start, webwire.StartParams{Session: s.name, Listen: p.Listen, TLSCert: p.TLSCert, TLSKey: p.TLSKey, Tokens: tokens}, &st)
	if err != nil {
		w.end()
		if errors.Is(err, webwire.ErrClosed) {
			return nil, st, fmt.Errorf("web: the web server (%s) ended before it served (see the session's log, %s)", argv[0], proto.LogPath(s.name))
		}
		return nil, st, err
	}
	w.addr, w.tls = st.Addr, st.TLS
	go s.watchWeb(w)
	return w, st, nil
}

// webEndWait bounds how long the session waits for a web server to end
// once its connection is closed (it closes its pages first).
const webEndWait = 5 * time.Second

// end closes w's connection, which ends it, and waits for it; one that
// does not end is killed.
func (w *webProc) end() {
	w.ending.Store(true)
	w.peer.Close()
	select {
	case <-w.exited:
	case <-time.After(webEndWait):
		_ = w.cmd.Process.Kill()
		<-w.exited
	}
}

// watchWeb ends w with the session (nothing is served of a session that
// is gone), and forgets it if it ends by itself.
func (s *Server) watchWeb(w *webProc) {
	defer s.recovered("web", nil)
	select {
	case <-s.done:
	case <-w.peer.Done():
	case <-w.exited:
	}
	if !w.ending.Load() {
		select {
		case <-s.done:
		default:
			s.log.Warn("web: the web server ended by itself; melmux web starts another", "err", w.peer.Err())
		}
	}
	h := &s.web
	locked(&h.run, func() {
		if h.proc == w {
			h.proc = nil
		}
	})
	w.end()
}

// webRequest answers the web server's requests: the little the page needs
// of the session, nothing more.
func (s *Server) webRequest(ctx context.Context, w *webProc, method string, raw json.RawMessage) (any, error) {
	defer s.recovered("web "+method, nil)
	switch method {
	case webwire.State:
		return s.webState(), nil
	case webwire.Screen:
		var p webwire.ScreenParams
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, err
		}
		e, err := s.lookup(p.Pane)
		if err != nil {
			return nil, nil // gone: the page is told so
		}
		return webScreenOf(e.p.Term()), nil
	case webwire.History:
		var p webwire.HistoryParams
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, err
		}
		e, err := s.lookup(p.Pane)
		if err != nil {
			return nil, nil // gone: the page is told so
		}
		return webHistory(e.p.Term(), p), nil
	case webwire.Frame:
		var p webwire.FrameParams
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, err
		}
		f := webwire.FrameResult{State: s.webState(), Screens: make([]*webwire.ScreenResult, len(p.Panes))}
		for i, id := range p.Panes {
			if e, err := s.lookup(id); err == nil {
				f.Screens[i] = webScreenOf(e.p.Term())
			}
		}
		return f, nil
	case webwire.Arm:
		var p webwire.ArmParams
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, err
		}
		ch := s.web.changed()
		go func() {
			defer s.recovered("web", nil)
			select {
			case <-ch:
				_ = w.peer.Notify(webwire.Changed, p)
			case <-w.peer.Done():
			}
		}()
		return struct{}{}, nil
	case webwire.Type:
		var p webwire.TypeParams
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, err
		}
		return struct{}{}, s.webType(ctx, p.Pane, p.Text, p.Keys)
	case webwire.Answer:
		var p webwire.AnswerParams
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, err
		}
		return s.webAnswer(ctx, p.Pane, p.Choice, p.Question)
	case webwire.Log:
		var p webwire.LogParams
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, err
		}
		s.log.Log(context.Background(), slog.Level(p.Level), p.Msg, p.Attrs...)
		return nil, nil
	}
	return nil, fmt.Errorf("web: the session answers no %q", method)
}

// webState is the session's shape for the pages.
func (s *Server) webState() webwire.StateResult {
	var st webwire.StateResult
	s.withAgentsRead(true, func(ar *agentsRead) {
		w, h := s.paneAreaLocked()
		st = webwire.StateResult{Session: s.name, Cols: w, Rows: h, Active: s.layout.ActiveTab(), Focused: s.layout.Focused()}
		st.Agents = s.webAgentsLocked(ar, time.Now())
		states := map[int]string{}
		for _, r := range st.Agents {
			states[r.Pane] = r.Agent.State
		}
		for i, ti := range s.layout.Tabs() {
			t := webwire.Tab{Name: ti.Name}
			for _, pl := range s.layout.Place(i, w, h) {
				e, ok := s.panes[pl.Pane]
				if !ok {
					continue
				}
				title := e.title
				if title == "" {
					title = ar.programTitleLocked(pl.Pane, e)
				}
				t.Panes = append(t.Panes, webwire.PaneInfo{ID: pl.Pane, Title: title, State: states[pl.Pane],
					X: pl.Frame.X, Y: pl.Frame.Y, W: pl.Content.W, H: pl.Content.H})
			}
			st.Tabs = append(st.Tabs, t)
		}
	})
	return st
}

// webType writes what a page typed. Keys typed into a question are noted
// as the web's, so the audit log says who answered.
func (s *Server) webType(ctx context.Context, id int, text string, keys bool) error {
	var e *paneEntry
	err := s.withLockErr(func() (err error) {
		if e, err = s.lookupLocked(id); err != nil {
			return err
		}
		e.agentDo(func() { e.turns.typed = typedKeys{at: time.Now(), by: byWeb, text: text} })
		return nil
	})
	if err != nil {
		return err
	}
	if keys {
		_, err = e.p.SendKeys(ctx, text)
	} else {
		err = e.p.WriteContext(ctx, []byte(text))
	}
	if err != nil {
		return writeError("web", id, e.p, err)
	}
	return nil
}

// webAnswer goes through the command table's answer, as the CLI's does.
func (s *Server) webAnswer(ctx context.Context, id int, choice, question string) (proto.AnswerResult, error) {
	var res proto.AnswerResult
	raw, err := s.Call(context.WithValue(ctx, answeredByKey{}, byWeb), "answer", proto.AnswerParams{Pane: id, Choice: choice, Question: question})
	if err != nil {
		var pe *proto.Error
		if errors.As(err, &pe) {
			return res, errors.New(pe.Message)
		}
		return res, err
	}
	err = json.Unmarshal(raw, &res)
	return res, err
}

// webOutput puts what the web server's process writes (nothing, but a
// crash's panic and stack) into the session's log, a record a line.
type webOutput struct {
	log *slog.Logger
	mu  sync.Mutex // guards buf
	buf []byte
}

func (o *webOutput) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.buf = append(o.buf, p...)
	for {
		i := slices.Index(o.buf, '\n')
		if i < 0 {
			break
		}
		o.log.Warn("web: melmux-web wrote", "line", string(o.buf[:i]))
		o.buf = o.buf[i+1:]
	}
	if len(o.buf) > 4096 {
		o.log.Warn("web: melmux-web wrote", "line", string(o.buf))
		o.buf = nil
	}
	return len(p), nil
}

func (o *webOutput) flush() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.buf) > 0 {
		o.log.Warn("web: melmux-web wrote", "line", string(o.buf))
		o.buf = nil
	}
}

// byWeb is who answered through a browser, in the audit log.
const byWeb = audit.ByWeb

// answeredByKey marks a request's context with who asked for an answer
// when it is not the answer command's own caller.
type answeredByKey struct{}

func answeredBy(ctx context.Context) string {
	if by, ok := ctx.Value(answeredByKey{}).(string); ok {
		return by
	}
	return "answer"
}
