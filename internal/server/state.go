package server

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/melmux/melmux/internal/sessionstate"
)

// The session's state file (internal/sessionstate) is kept up to date by
// one goroutine, saveLoop, so that `melmux restore` can rebuild the session
// once the server is gone however it went (kill -9, a crash, a reboot).
//
// A change of the layout or of the panes (a pane opened or closed, a split
// moved, a tab or focus changed, an agent registered) is written within
// stateDebounce, a burst of them once. Output changes what the file holds
// too (the last screens, a shell's directory, a title) but comes without
// end, so it is written at most every screenEvery. A build identical to the
// last one written is not written again.
const (
	stateDebounce = 100 * time.Millisecond
	screenEvery   = 5 * time.Second
)

// stateSaver is the state file's writer.
type stateSaver struct {
	path string
	// change and output wake saveLoop, which owns the timing; outputSeen
	// keeps every chunk of output after the first from waking it again.
	change     chan struct{}
	output     chan struct{}
	outputSeen atomic.Bool
	// debounce is stateDebounce, in nanoseconds; a test lengthens it so
	// that its burst cannot outlast it on a loaded machine. taken counts
	// the changes saveLoop took in, for tests to wait on.
	debounce atomic.Int64
	taken    atomic.Int64

	mu    sync.Mutex // guards the fields below; held across a write, so the end of the session never races one
	last  []byte     // the last state written, its time left out
	wrote bool       // this server wrote the file
	// restored says the session was rebuilt from the file: it is this
	// server's to remove at kill_server even before its first save.
	restored bool
	stopped  bool          // the session ended: nothing is written any more
	failed   time.Time     // when a write last failed, to log one failure a minute
	writes   int           // files written, for tests and debug_stats
	next     chan struct{} // closed and replaced at each write, so tests wait on writes instead of polling
}

func newStateSaver(path string) *stateSaver {
	if path == "" {
		return nil
	}
	sv := &stateSaver{path: path, change: make(chan struct{}, 1), output: make(chan struct{}, 1), next: make(chan struct{})}
	sv.debounce.Store(int64(stateDebounce))
	return sv
}

// written is the number of writes so far and a channel closed at the next.
func (sv *stateSaver) written() (int, <-chan struct{}) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	return sv.writes, sv.next
}

// stateChanged says the layout or the panes changed. It never blocks and
// takes no lock.
func (s *Server) stateChanged() {
	if s.saver == nil {
		return
	}
	select {
	case s.saver.change <- struct{}{}:
	default:
	}
}

// stateOutput says a pane printed. Only the first output after a write
// wakes saveLoop.
func (s *Server) stateOutput() {
	if s.saver == nil || s.saver.outputSeen.Swap(true) {
		return
	}
	select {
	case s.saver.output <- struct{}{}:
	default:
	}
}

// saveLoop writes the state file when asked, as the timing rules above say,
// until the session ends.
func (s *Server) saveLoop() {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var due time.Time // when the pending write is due; zero for none
	var lastWrite time.Time
	schedule := func(at time.Time) {
		if !due.IsZero() && !at.Before(due) {
			return
		}
		due = at
		timer.Reset(time.Until(at))
	}
	for {
		select {
		case <-s.done:
			timer.Stop()
			return
		case <-s.saver.change:
			s.saver.taken.Add(1)
			schedule(time.Now().Add(time.Duration(s.saver.debounce.Load())))
		case <-s.saver.output:
			at := time.Now().Add(time.Duration(s.saver.debounce.Load()))
			if next := lastWrite.Add(screenEvery); next.After(at) {
				at = next
			}
			schedule(at)
		case <-timer.C:
			due = time.Time{}
			lastWrite = time.Now()
			s.confined("saving the session state", func() { s.saveState(false) })
			s.quiet.later() // what building the state took goes back once all is quiet
		}
	}
}

// saveState writes the state file if the state changed since the last
// write. final is the last save of a session ending with its state kept: it
// is built although the session is shutting down.
func (s *Server) saveState(final bool) {
	sv := s.saver
	sv.outputSeen.Store(false)
	st := s.buildState(final)
	if st == nil {
		return
	}
	b, err := json.Marshal(st)
	if err != nil {
		s.log.Error("session state: encode", "err", err)
		return
	}
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if sv.stopped || bytes.Equal(b, sv.last) {
		return
	}
	st.Saved = time.Now().UTC()
	st.PID = os.Getpid()
	data, err := json.MarshalIndent(st, "", " ")
	if err != nil {
		s.log.Error("session state: encode", "err", err)
		return
	}
	if !sv.wrote {
		// Left by a server of this name killed inside a write.
		sessionstate.RemoveTemps(sv.path)
	}
	if err := sessionstate.Write(sv.path, append(data, '\n')); err != nil {
		if time.Since(sv.failed) > time.Minute {
			sv.failed = time.Now()
			s.log.Warn("session state not saved; `melmux restore` will find an older one", "err", err)
		}
		return
	}
	sv.last, sv.wrote = b, true
	sv.writes++
	close(sv.next)
	sv.next = make(chan struct{})
}

// finishState is the end of the state file with the session: kept and
// brought up to date (keep), or removed when it is this server's: it wrote
// it or restored the session from it. Nothing is written after it.
func (s *Server) finishState(keep bool) {
	sv := s.saver
	if sv == nil {
		return
	}
	if keep {
		// The file is stopped below even when this last save panics.
		s.confined("the session state's last save", func() { s.saveState(true) })
	}
	sv.mu.Lock()
	defer sv.mu.Unlock()
	sv.stopped = true
	if !keep && (sv.wrote || sv.restored) {
		if err := sessionstate.Remove(sv.path); err != nil {
			s.log.Warn("session state not removed", "err", err)
		}
	}
}

// stateRow is a pane of the state file as buildStateLocked reads it under
// Server.mu, for buildState to finish without it.
type stateRow struct {
	e  *paneEntry
	sp sessionstate.Pane
}

// buildState is the session as the state file saves it, or nil when there
// is nothing to save (no pane, or a session ending unless final). The time
// and pid are left for saveState, so two builds of one state are equal.
func (s *Server) buildState(final bool) *sessionstate.State {
	st, rows := s.buildStateSnapshot(final)
	if st == nil {
		return nil
	}
	// What the pane's own locks or /proc answer is read without Server.mu.
	for _, r := range rows {
		p := r.e.p
		sp := r.sp
		sp.Argv = r.e.startArgv()
		if sp.Cwd = p.Cwd(); sp.Cwd == "" {
			sp.Cwd = r.e.cwd
		}
		if fg := p.Foreground(); len(fg) > 0 && !slices.Equal(fg, sp.Argv) {
			sp.Foreground = fg
		}
		sp.Screen = sessionstate.TrimScreen(p.Term().Lines())
		st.Panes = append(st.Panes, sp)
	}
	return st
}

// buildStateSnapshot takes Server.mu for buildStateLocked and lets it go
// however that returns: a panic there must not leave the session locked.
func (s *Server) buildStateSnapshot(final bool) (*sessionstate.State, []stateRow) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buildStateLocked(final)
}

// buildStateLocked is what the state file takes from the session's own
// fields: the state without its panes, and the panes to finish.
func (s *Server) buildStateLocked(final bool) (*sessionstate.State, []stateRow) {
	if (s.shutdown && !final) || len(s.panes) == 0 {
		return nil, nil
	}
	runHook(&s.hooks.state)
	st := &sessionstate.State{Version: sessionstate.Version, Session: s.name, Cols: s.cols, Rows: s.rows, Layout: s.layout.Dump()}
	var rows []stateRow
	for _, id := range s.layout.Panes() {
		e, ok := s.panes[id]
		if !ok {
			continue
		}
		sp := sessionstate.Pane{ID: id, Command: e.command, Shell: e.shell, Title: e.title}
		if e.wt != nil {
			sp.Worktree, sp.Branch = e.wt.Path, e.wt.Branch
		}
		var a *melAgent
		e.agentDo(func() { a = s.melLocked(e) })
		if a != nil {
			sp.Agent = &sessionstate.Agent{ID: a.id, Role: a.role, Model: a.model, Provider: a.provider}
		}
		rows = append(rows, stateRow{e, sp})
	}
	return st, rows
}

// adopt makes the file this server's: the session was restored from it.
func (sv *stateSaver) adopt() {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	sv.restored = true
}
