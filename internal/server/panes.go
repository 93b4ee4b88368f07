package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/melmux/melmux/internal/config"
	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/layout"
	"github.com/melmux/melmux/pane"
	"github.com/melmux/melmux/worktree"
)

// busyWindow is how recent output must be for a pane to count as busy.
const busyWindow = time.Second

// paneAreaLocked is the window area panes share: the session size less the
// status line.
func (s *Server) paneAreaLocked() (w, h int) {
	h = s.rows - 1
	if h < 1 {
		h = 1
	}
	return max(s.cols, 1), h
}

// lookupLocked finds a pane or returns the error value that names the panes
// that do exist.
func (s *Server) lookupLocked(id int) (*paneEntry, error) {
	if e, ok := s.panes[id]; ok {
		return e, nil
	}
	return nil, s.noSuchPaneLocked(id)
}

// closedPanes remembers how recent panes that are gone ended, so a request
// naming one can say so, and a wait for its exit can still hold. Pane ids are
// never reused; the oldest records are dropped past maxClosedKept.
type closedPanes struct {
	byID  map[int]closedPane
	order []int
}

// closedPane is what is kept of a pane once it is gone.
type closedPane struct {
	status pane.Status // its program's end
	killed bool        // kill_pane (or the UI) closed it, not remain_on_exit
}

const maxClosedKept = 1000

func (c *closedPanes) add(id int, cp closedPane) {
	if c.byID == nil {
		c.byID = map[int]closedPane{}
	}
	c.byID[id] = cp
	c.order = append(c.order, id)
	if len(c.order) > maxClosedKept {
		delete(c.byID, c.order[0])
		c.order = c.order[1:]
	}
}

// how says how a closed pane went: "it closed when its program ended (exit
// code 0)" or "it was killed".
func (cp closedPane) how() string {
	if cp.killed {
		return "it was killed"
	}
	return "it closed when its program ended (" + exitWords(cp.status) + ")"
}

func (s *Server) noSuchPaneLocked(id int) *proto.Error {
	ids := make([]int, 0, len(s.panes))
	for pid := range s.panes {
		ids = append(ids, pid)
	}
	sort.Ints(ids)
	list := make([]string, len(ids))
	for i, pid := range ids {
		list[i] = strconv.Itoa(pid)
	}
	existing := "none"
	if len(list) > 0 {
		existing = strings.Join(list, ", ")
	}
	if cp, ok := s.closed.byID[id]; ok {
		return errorf(proto.CodeNoSuchPane, "pane %d does not exist: %s (panes: %s)", id, cp.how(), existing)
	}
	return errorf(proto.CodeNoSuchPane, "pane %d does not exist (panes: %s)", id, existing)
}

// lookup is lookupLocked for callers not holding the lock.
func (s *Server) lookup(id int) (*paneEntry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lookupLocked(id)
}

// spawnSpec says what a new pane runs and where it goes.
type spawnSpec struct {
	argv    []string
	command string // as shown in list_panes
	cwd     string
	title   string
	env     []string
	target  int    // pane to split; 0 = focused
	layout  string // as requested
	shell   bool   // no command was given: the default shell runs
	preface []byte // written into the emulator before the program starts
	// focus gives the new pane the focus and its tab. Only the person's
	// own keys (a binding, the ":" prompt) or an explicit request ask it:
	// a pane a script or an agent opens must not take the keys the person
	// is typing (an answer "1" meant for one agent went to another).
	focus bool
	// id is the pane's id when reserved beforehand (reserveIDLocked); 0
	// takes the next one.
	id int
	// worktree is the git worktree the pane starts in (cwd is inside it).
	worktree *worktree.Worktree
}

// reserveIDLocked takes a pane id for a pane about to be made, when
// something must be named after it first (its worktree). An id whose pane
// then fails to start is never used.
func (s *Server) reserveIDLocked() int {
	id := s.nextID
	s.nextID++
	return id
}

// startDirLocked is where a pane splitting target (0: the focused pane)
// starts when no directory was given: the target's current directory, else
// the server's.
func (s *Server) startDirLocked(target int) string {
	if target == 0 {
		target = s.layout.Focused()
	}
	if t, ok := s.panes[target]; ok {
		if cwd := t.p.Cwd(); cwd != "" {
			return cwd
		}
	}
	cwd, _ := os.Getwd()
	return cwd
}

// spawn creates a pane and places it. The layout decides the size first so
// the process starts at its real size.
func (s *Server) spawn(spec spawnSpec) (*paneEntry, layout.AddResult, error) {
	if spec.cwd != "" {
		if fi, err := os.Stat(spec.cwd); err != nil || !fi.IsDir() {
			return nil, layout.AddResult{}, errorf(proto.CodeBadParams, "cwd %q is not a directory", spec.cwd)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.publishLocked() // the new pane may take the focus
	if s.shutdown {
		return nil, layout.AddResult{}, errorf(proto.CodeFailed, "the session is ending")
	}
	target := spec.target
	if target == 0 {
		target = s.layout.Focused()
	} else if _, ok := s.panes[target]; !ok {
		return nil, layout.AddResult{}, s.noSuchPaneLocked(target)
	}
	id := spec.id
	if id == 0 {
		id = s.nextID
	}
	w, h := s.paneAreaLocked()
	add := s.layout.AddUnfocused
	if spec.focus {
		add = s.layout.Add
	}
	res, err := add(target, id, defaultLayout(spec.layout), w, h)
	if err != nil {
		return nil, res, errorf(proto.CodeFailed, "place pane: %v", err)
	}
	var cols, rows int
	for _, pl := range s.layout.Place(res.Tab, w, h) {
		if pl.Pane == id {
			cols, rows = pl.Content.W, pl.Content.H
		}
	}
	if spec.cwd == "" {
		spec.cwd = s.startDirLocked(target)
	}
	e, err := s.startPaneLocked(id, spec, cols, rows)
	if err != nil {
		// Best effort: the pane was never there, give its space back.
		_ = s.layout.Remove(id)
		s.relayoutLocked()
		return nil, res, errorf(proto.CodeFailed, "%v", err)
	}
	if spec.id == 0 {
		s.nextID++
	}
	s.relayoutLocked()
	s.log.Info("pane opened", "pane", id, "command", spec.command, "cols", cols, "rows", rows, "layout", res.Used)
	return e, res, nil
}

// defaultLayout is the layout asked for, a tab when none was: the
// documented default, so it needs no note.
func defaultLayout(requested string) string {
	if requested == "" {
		return string(layout.Tab)
	}
	return requested
}

// startPaneLocked starts the program of pane id, which the layout already
// holds, at cols x rows in spec.cwd, and enters it in the pane table.
func (s *Server) startPaneLocked(id int, spec spawnSpec, cols, rows int) (*paneEntry, error) {
	env := append(append([]string(nil), spec.env...),
		"MELMUX_SOCKET="+s.sock, "MELMUX_PANE="+strconv.Itoa(id), "MELMUX_SESSION="+s.name)
	exitDone := make(chan struct{})
	outputs := &outputTimes{}
	argv := spec.argv
	env = agentEnv(argv, env)
	hooks, hooked := s.agentHookArgs(argv, env)
	if len(hooks) > 0 {
		argv = slices.Concat(argv[:1], hooks, argv[1:])
	}
	p, err := pane.Start(pane.Config{
		ID: id, Argv: argv, Dir: spec.cwd, Env: env, Cols: cols, Rows: rows,
		Scrollback: s.cfg().scroll,
		Preface:    spec.preface,
		OnOutput: func() {
			outputs.note()
			s.paneOutput(id)
		},
		Feed: func(apply func()) { s.sched.Feed(id, apply) },
		OnExit: func() {
			s.paneExited(id)
			close(exitDone)
		},
		Logf: func(format string, args ...any) {
			s.log.Warn(fmt.Sprintf(format, args...))
		},
	})
	if err != nil {
		return nil, err
	}
	s.started = true
	e := &paneEntry{p: p, argv: spec.argv, title: spec.title, command: spec.command, cwd: spec.cwd, shell: spec.shell, exitDone: exitDone, wt: spec.worktree, out: outputs}
	e.turns.hooks = hooked
	e.paneAgent.hooks = &s.hooks
	s.panes[id] = e
	s.agentPanes.Store(id, e)
	s.mels.add(id, p)
	go s.watchAgent(id, e)
	return e, nil
}

// relayoutLocked gives every pane the size its tab's layout says.
func (s *Server) relayoutLocked() {
	w, h := s.paneAreaLocked()
	for _, t := range s.layout.Tabs() {
		for _, pl := range s.layout.Place(t.Index, w, h) {
			if e, ok := s.panes[pl.Pane]; ok {
				if err := e.p.Resize(pl.Content.W, pl.Content.H); err != nil {
					s.log.Warn("resize pane", "pane", pl.Pane, "err", err)
				}
			}
		}
	}
	s.invalidateLocked()
}

// refocusLocked runs a focus change. Focusing another pane of a zoomed tab
// unzooms it, as tmux does; the panes the zoom hid then get their sizes back
// and the zoomed one its own, so every program sees the size it is drawn at.
func (s *Server) refocusLocked(change func()) {
	before := zoomedTabs(s.layout)
	change()
	if zoomedTabs(s.layout) != before {
		s.relayoutLocked()
	}
}

// zoomedTabs lists the zoomed tabs.
func zoomedTabs(l *layout.Layout) string {
	var b strings.Builder
	for _, t := range l.Tabs() {
		if t.Zoomed {
			fmt.Fprintf(&b, "%d,", t.Index)
		}
	}
	return b.String()
}

// removePane closes a pane and takes it out of the layout; killed says a
// request did it rather than remain_on_exit. It reports whether that was the
// last pane, which the caller answers by ending the session.
func (s *Server) removePane(id int, killed bool) (last bool, err error) {
	var e *paneEntry
	err = s.withLockErr(func() error {
		var err error
		if e, err = s.lookupLocked(id); err != nil {
			return err
		}
		delete(s.panes, id)
		s.agentPanes.Delete(id)
		// Best effort: the layout and the pane table agree, so this cannot fail.
		_ = s.layout.Remove(id)
		s.relayoutLocked()
		e.agentDo(func() {
			e.gone = true
			s.agentChangedLocked(e)
		})
		s.mels.drop(id) // waits on its agent end
		last = len(s.panes) == 0
		s.closed.add(id, closedPane{status: e.p.Status(), killed: killed})
		return nil
	})
	if err != nil {
		return false, err
	}
	e.p.Close()
	if killed {
		s.log.Info("pane killed", "pane", id)
	} else {
		s.log.Info("pane closed", "pane", id)
	}
	return last, nil
}

// paneExited runs when a pane's process ends. The pane stays, readable, or
// closes as remain_on_exit says; the last pane closing ends the session.
func (s *Server) paneExited(id int) {
	var e *paneEntry
	var ok, closes bool
	s.withLock(func() {
		if e, ok = s.panes[id]; ok {
			closes = s.closesOnExitLocked(e)
			e.agentDo(func() {
				s.agentChangedLocked(e) // its melmux agent, if any, is exited now
				if !closes {
					s.paneEndedLocked(id, e) // a failure needs the person; exit 0 is done
				}
			})
		}
	})
	if !ok {
		return
	}
	s.log.Info("pane exited", "pane", id, "status", exitWords(e.p.Status()), "closes", closes)
	if closes {
		// An error means it was killed meanwhile, which closed it anyway.
		if last, err := s.removePane(id, false); err == nil && last {
			go s.lastPaneGone("last pane exited")
		}
	}
	s.invalidate()
}

// closesOnExitLocked says whether a pane whose program ended closes, by
// remain_on_exit: auto closes a default shell that exited 0 and keeps every
// other pane (a crashed command, an agent, a shell that failed) for reading.
func (s *Server) closesOnExitLocked(e *paneEntry) bool {
	switch s.remain {
	case config.RemainOn:
		return false
	case config.RemainOff:
		return true
	}
	st := e.p.Status()
	return e.shell && st.ExitCode != nil && *st.ExitCode == 0
}

// paneInfoLocked builds a list_panes row, with the title the pane's
// program set and its agent from what ar read of its emulator
// (withAgentsRead). Caller holds Server.mu.
func (s *Server) paneInfoLocked(ar *agentsRead, id int, e *paneEntry) proto.PaneInfo {
	st := e.p.Status()
	cols, rows := e.p.Size()
	tab, _ := s.layout.TabOf(id)
	info := proto.PaneInfo{
		ID: id, Tab: tab, Title: e.title, Command: e.command, Cwd: e.cwd, PID: st.PID,
		Status: statusWord(st), ExitCode: st.ExitCode, Signal: st.Signal,
		Cols: cols, Rows: rows, Focused: s.layout.Focused() == id,
	}
	info.Activity, info.IdleMS = activity(e)
	if info.Title == "" {
		info.Title = ar.programTitleLocked(id, e)
	}
	if st.Running {
		if cwd := e.p.Cwd(); cwd != "" {
			info.Cwd = cwd
		}
	}
	s.agentFromReadLocked(ar, id, e, func(a *proto.AgentInfo) { info.Agent = a })
	if e.wt != nil {
		info.Worktree, info.Branch = &e.wt.Path, &e.wt.Branch
	}
	s.costLocked(info.Agent)
	remoteInfoLocked(e, &info)
	return info
}

// costLocked sets what a melmux agent's tokens cost, when the config has a
// price for its model.
func (s *Server) costLocked(a *proto.AgentInfo) {
	if a == nil || a.Kind != KindMelmux {
		return
	}
	if p, ok := s.cfg().prices[a.Model]; ok {
		c := p.Cost(a.InputTokens, a.OutputTokens)
		a.Cost = &c
	}
}

// activity is busy while the running program printed within busyWindow, else
// idle, with the time since its last output.
func activity(e *paneEntry) (string, int64) {
	return paneActivity(e.p)
}

// paneActivity is activity of the pane p, which needs no lock of the
// server's.
func paneActivity(p *pane.Pane) (string, int64) {
	idle := time.Since(p.LastOutput()).Milliseconds()
	if busy, _ := p.BusyFor(busyWindow); busy {
		return "busy", idle
	}
	return "idle", idle
}

func statusWord(st pane.Status) string {
	if st.Running {
		return "running"
	}
	return "exited"
}

// commandArgv turns a command line into an argv: a plain word list runs
// directly; anything with shell syntax runs under sh -c.
func commandArgv(shell, line string) []string {
	line = strings.TrimSpace(line)
	if line == "" {
		return []string{shell}
	}
	if strings.ContainsAny(line, "\"'`$\\|&;<>(){}*?[]~=#!\n\t") {
		return []string{"/bin/sh", "-c", line}
	}
	words := strings.Fields(line)
	if shellOnly[words[0]] {
		return []string{"/bin/sh", "-c", line}
	}
	return words
}

// shellOnly are the words that are only the shell's (builtins and keywords
// with no program of that name): a line starting with one runs under sh -c,
// where "exit 3" or "cd sub" means what it says instead of failing to start.
var shellOnly = map[string]bool{
	".": true, ":": true, "alias": true, "break": true, "case": true, "cd": true, "continue": true,
	"eval": true, "exec": true, "exit": true, "export": true, "for": true, "if": true, "read": true,
	"readonly": true, "return": true, "set": true, "shift": true, "source": true, "times": true,
	"trap": true, "ulimit": true, "umask": true, "unalias": true, "unset": true, "until": true,
	"wait": true, "while": true,
}

// waitFirstScreen gives a new pane's program a moment to draw, so open_pane
// can answer with its first screen.
func waitFirstScreen(ctx context.Context, p *pane.Pane, since time.Time) {
	p.WaitSettled(ctx, since, 200*time.Millisecond, 1500*time.Millisecond, 3*time.Second)
}

func absDir(dir string) string {
	if dir == "" {
		return ""
	}
	if a, err := filepath.Abs(dir); err == nil {
		return a
	}
	return dir
}

// writeError is the error of input refused by a pane: the one send_keys
// gives.
func writeError(method string, id int, p *pane.Pane, err error) error {
	if errors.Is(err, pane.ErrExited) {
		return errorf(proto.CodeFailed, "pane %d has exited (%s); it takes no input. read_pane shows its last screen; `melmux kill-pane -t %d` removes it", id, exitWords(p.Status()), id)
	}
	return errorf(proto.CodeFailed, "%s to pane %d: %v", method, id, err)
}
