package server

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/melmux/melmux/internal/audit"
	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/web"
	"github.com/melmux/melmux/pane/term"
)

// webHub is the session's side of `melmux web`: the HTTP server while one
// runs, and the change signal its pages wait on. Output calls note for
// every chunk, so note costs one atomic load while no page waits.
type webHub struct {
	armed atomic.Bool
	mu    sync.Mutex // guards ch; never held with Server.mu or run
	ch    chan struct{}

	run sync.Mutex // guards srv; held while one starts or stops
	srv *web.Server

	agents webAgents
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

// webAgentsLocked is agentRowsLocked for the pages. Caller holds Server.mu.
func (s *Server) webAgentsLocked(now time.Time) []proto.AgentRow {
	a := &s.web.agents
	key := []uint64{uint64(s.layout.Focused())}
	for _, id := range s.layout.Panes() {
		e, ok := s.panes[id]
		if !ok {
			continue
		}
		tab, _ := s.layout.TabOf(id)
		key = append(key, uint64(id), uint64(tab), e.ag.gen)
	}
	if a.rows != nil && slices.Equal(key, a.key) && now.Sub(a.at) < webAgentsEvery {
		return slices.Clone(a.rows)
	}
	rows := s.agentRowsLocked(now)
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

// webBackend is the session as web.Backend.
type webBackend struct{ s *Server }

func (b webBackend) Changed() <-chan struct{} { return b.s.web.changed() }

func (b webBackend) State() web.State {
	s := b.s
	var st web.State
	s.withFresh(func() {
		w, h := s.paneAreaLocked()
		st = web.State{Session: s.name, Cols: w, Rows: h, Active: s.layout.ActiveTab(), Focused: s.layout.Focused()}
		st.Agents = s.webAgentsLocked(time.Now())
		states := map[int]string{}
		for _, r := range st.Agents {
			states[r.Pane] = r.Agent.State
		}
		for i, ti := range s.layout.Tabs() {
			t := web.Tab{Name: ti.Name}
			for _, pl := range s.layout.Place(i, w, h) {
				e, ok := s.panes[pl.Pane]
				if !ok {
					continue
				}
				title := e.title
				if title == "" {
					title = programTitle(e)
				}
				t.Panes = append(t.Panes, web.PaneInfo{ID: pl.Pane, Title: title, State: states[pl.Pane],
					X: pl.Frame.X, Y: pl.Frame.Y, W: pl.Content.W, H: pl.Content.H})
			}
			st.Tabs = append(st.Tabs, t)
		}
	})
	return st
}

func (b webBackend) Screen(id int) *term.Screen {
	e, err := b.s.lookup(id)
	if err != nil {
		return nil
	}
	return e.p.Term().Snapshot()
}

// Type writes what a page typed. Keys typed into a question are noted as
// the web's, so the audit log says who answered.
func (b webBackend) Type(ctx context.Context, id int, text string, keys bool) error {
	s := b.s
	var e *paneEntry
	err := s.withLockErr(func() (err error) {
		if e, err = s.lookupLocked(id); err != nil {
			return err
		}
		e.turns.typed = typedKeys{at: time.Now(), by: byWeb, text: text}
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

// Answer goes through the command table's answer, as the CLI's does.
func (b webBackend) Answer(ctx context.Context, id int, choice, question string) (proto.AnswerResult, error) {
	var res proto.AnswerResult
	raw, err := b.s.Call(context.WithValue(ctx, answeredByKey{}, byWeb), "answer", proto.AnswerParams{Pane: id, Choice: choice, Question: question})
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
