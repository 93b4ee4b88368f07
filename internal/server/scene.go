package server

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/ui"
	"github.com/melmux/melmux/layout"
	"github.com/melmux/melmux/pane/agentstate"
	"github.com/melmux/melmux/pane/term"
)

// syncHold bounds how long a pane's synchronized-output frame may hold back
// its screen: an application that never ends the frame must not freeze it.
const syncHold = time.Second

func uiRect(r layout.Rect) ui.Rect { return ui.Rect{X: r.X, Y: r.Y, W: r.W, H: r.H} }

// scene builds what client c shows: the active tab at the session size. It
// also says when the scene will change without any event (a busy pane turning
// idle), so the client can redraw then instead of polling; 0 means never.
func (s *Server) scene(c *client) (*ui.Scene, time.Duration) {
	sc, next, _ := s.sceneFresh(c, 0)
	return sc, next
}

// agentView is what a frame says of a pane's agent: nil for none, and when
// that could change with no output.
type agentView struct {
	info   *proto.AgentInfo
	change time.Duration
}

// sceneFresh is scene with only pane fresh's screen taken anew (0: every
// pane's); the others show the screen last drawn of them, when there is one
// of their size. It is the frame of a typed key's echo: it costs no parse of
// the floods beside it and carries none of their rows. stale says a pane
// has printed since the screen shown of it, so a full frame must follow.
func (s *Server) sceneFresh(c *client, fresh int) (sc *ui.Scene, next time.Duration, stale bool) {
	cols, rows := c.tty.size()
	draw := func() {
		s.seeLocked(c) // the person sees what this frame shows
		sc, next, stale = s.sceneLocked(cols, rows, fresh)
	}
	if fresh != 0 {
		// A key's echo does not wait for /proc: every pane, the typed one
		// too, shows what the last lookup found (its watcher, or the next
		// full frame, looks again when one is due).
		s.withLock(draw)
	} else {
		s.withFresh(draw)
	}
	return sc, next, stale
}

func (s *Server) sceneLocked(cols, rows, fresh int) (sc *ui.Scene, next time.Duration, stale bool) {
	w, h := s.paneAreaLocked()
	// The client draws no more than the session: the rest of a larger
	// terminal stays blank and costs nothing.
	sc = &ui.Scene{Cols: min(cols, s.cols), Rows: min(rows, s.rows), Session: s.name, StatusStyle: s.cfg().ui.Status}
	if cols > s.cols || rows > s.rows {
		why := "smallest client"
		if s.sizeByResize {
			why = "set by resize"
		}
		sc.SizeNote = fmt.Sprintf("%dx%d (%s)", s.cols, s.rows, why)
	}
	active := s.layout.ActiveTab()
	// Each shown agent pane's state is worked out once per frame (it reads
	// the screen); the tab markers are the panes' attention marks, which
	// the agent watchers set (agent_notify.go).
	// A key's echo frame reads no pane but the typed one: the others show
	// what the last frame read of them (an emulator parsing a flood is
	// locked while it parses).
	reuse := func(id int, e *paneEntry) bool { return fresh != 0 && id != fresh && e.drawn }
	agents := map[int]agentView{}
	agentOf := func(id int, e *paneEntry) agentView {
		v, ok := agents[id]
		if !ok {
			if reuse(id, e) {
				v = e.drawnAgent
			} else {
				v.info, v.change = s.agentLocked(id, e)
				e.drawnAgent = v
			}
			agents[id] = v
		}
		return v
	}
	for _, t := range s.layout.Tabs() {
		tv := ui.TabView{Index: t.Index, Name: t.Name, Panes: len(t.Panes), Active: t.Index == active, Zoomed: t.Zoomed}
		if tv.Name == "" && len(t.Panes) > 0 {
			if e, ok := s.panes[t.Focus]; ok {
				tv.Name = s.displayNameLocked(e)
			}
		}
		// The tab's mark is its panes' unseen changes: a question or a
		// failure (needs you), a finished turn (done).
		for _, id := range t.Panes {
			if e, ok := s.panes[id]; ok {
				switch e.notify.mark {
				case attnNeeds:
					tv.Attention = true
				case attnDone:
					tv.Done = true
				}
			}
		}
		sc.Tabs = append(sc.Tabs, tv)
	}
	focused := s.layout.Focused()
	for _, pl := range s.layout.Place(active, w, h) {
		e, ok := s.panes[pl.Pane]
		if !ok {
			continue
		}
		st := e.p.Status()
		pv := ui.PaneView{
			ID: pl.Pane, Frame: uiRect(pl.Frame), Content: uiRect(pl.Content),
			Title: e.title, Command: s.runningLocked(e), Focused: pl.Pane == focused,
			Exited: !st.Running, ExitCode: st.ExitCode,
		}
		if last := e.lastFull; fresh != 0 && pl.Pane != fresh && last != nil && last.Cols == pl.Content.W && last.Rows == pl.Content.H {
			pv.Screen = last
			stale = stale || e.printedSinceLocked(last)
		} else {
			pv.Screen = e.screenLocked()
		}
		if pv.Title == "" {
			if reuse(pl.Pane, e) {
				pv.Title = e.drawnTitle
			} else {
				pv.Title = programTitle(e)
				e.drawnTitle = pv.Title
			}
		}
		if e.wt != nil && e.title == "" {
			// Two agents of one kind side by side (claude and claude, each
			// titling itself alike) differ by the worktree each works in.
			tag := " [" + e.wt.Name + "]"
			pv.Command += tag
			if pv.Title != "" {
				pv.Title += tag
			}
		}
		if st.Signal != nil {
			pv.Signal = *st.Signal
		}
		pv.Diff = s.diffCountLocked(e, &next)
		switch {
		case !st.Running:
			pv.State = "exited"
		default:
			if av := agentOf(pl.Pane, e); av.info != nil {
				a, change := av.info, av.change
				// An agent pane shows the agent's state: working,
				// waiting (in the attention colour) or idle. A melmux
				// agent's waiting is for its next message, which asks
				// nothing of the person: ready.
				pv.State = a.State
				if a.Kind == KindMelmux && a.State == string(agentstate.Waiting) {
					pv.State = "ready"
				}
				if change > 0 && (next == 0 || change < next) {
					next = change
				}
			} else if busy, left := e.p.BusyFor(busyWindow); busy {
				pv.State = "busy"
				if next == 0 || left < next {
					next = left
				}
			} else {
				pv.State = "idle"
			}
		}
		remoteBorderLocked(e, &pv)
		e.drawn = true
		sc.Panes = append(sc.Panes, pv)
	}
	for _, b := range s.layout.Borders(active, w, h) {
		if b.Split == layout.Right {
			sc.Separators = append(sc.Separators, ui.Rect{X: b.X, Y: b.Y, W: 1, H: b.Len})
		}
	}
	return sc, next, stale
}

// printedSinceLocked reports whether the pane may show more than screen, a
// screen taken of it before: it printed since the last snapshot, or that
// snapshot is not screen.
func (e *paneEntry) printedSinceLocked(screen *term.Screen) bool {
	if e.snap != screen {
		return true
	}
	select {
	case <-e.snapCh:
		return true
	default:
		return false
	}
}

// screenLocked is the pane's screen to draw: the live one, or while the
// application holds synchronized output, the last complete one (for at most
// syncHold), so no client sees a half-drawn frame.
func (e *paneEntry) screenLocked() *term.Screen {
	snap := e.snapshotLocked()
	if snap.Modes.SyncOutput && e.lastFull != nil {
		if e.syncSince.IsZero() {
			e.syncSince = time.Now()
		}
		if time.Since(e.syncSince) < syncHold {
			return e.lastFull
		}
	}
	e.syncSince = time.Time{}
	e.lastFull = snap
	return snap
}

// snapshotLocked is the pane's screen now, taken again only when the pane
// printed (its change channel closed) or changed size since the last one.
func (e *paneEntry) snapshotLocked() *term.Screen {
	ch := e.p.Changed() // before the snapshot: output after it closes ch
	if e.snap != nil {
		select {
		case <-e.snapCh:
		default:
			if cols, rows := e.p.Term().Size(); e.snapCh == ch && cols == e.snap.Cols && rows == e.snap.Rows {
				return e.snap
			}
		}
	}
	e.snap, e.snapCh = e.p.Term().Snapshot(), ch
	return e.snap
}

// displayNameLocked names a pane in the status line: its title, the title its
// program set, else what runs in it.
func (s *Server) displayNameLocked(e *paneEntry) string {
	if e.title != "" {
		return e.title
	}
	if t := programTitle(e); t != "" {
		return t
	}
	return s.runningLocked(e)
}

// runningLocked is what runs in the pane: a melmux agent by its role, the
// foreground program when the shell started another (vim, top, claude), else
// the pane's command.
func (s *Server) runningLocked(e *paneEntry) string {
	if a := e.melLocked(); a != nil {
		return "mel " + a.role // "mel worker", its state beside it
	}
	fg := s.foregroundLocked(e)
	start := e.startArgv()
	if fg == "" || (len(start) > 0 && fg == filepath.Base(start[0])) {
		return shortCommand(start)
	}
	return fg
}

// shells are the programs whose `-c LINE` is shown as the LINE it runs.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "fish": true}

// maxShortCommand bounds a shell command line shown in a border or a tab,
// in runes, before the ellipsis.
const maxShortCommand = 32

// shortCommand names what a pane started for a border or a tab, as a person
// would say it: the program without its directory (`bash`, not
// `/bin/bash`), and for `sh -c LINE` the first line of LINE, its spaces
// collapsed, cut to maxShortCommand runes with an ellipsis.
func shortCommand(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	name := filepath.Base(argv[0])
	if len(argv) < 3 || argv[1] != "-c" || !shells[name] {
		return strings.Join(append([]string{name}, argv[1:]...), " ")
	}
	line, _, more := strings.Cut(strings.TrimSpace(argv[2]), "\n")
	words := strings.Fields(line)
	if len(words) == 0 {
		return name
	}
	words[0] = filepath.Base(words[0])
	short := []rune(strings.Join(words, " "))
	if len(short) > maxShortCommand {
		return string(short[:maxShortCommand]) + "…"
	}
	if more {
		return string(short) + " …"
	}
	return string(short)
}

// uiCommand runs a key-bound command for client c.
func (s *Server) uiCommand(c *client, a ui.Command) error {
	if done, err := s.tmuxCommand(c, a); done {
		return err
	}
	switch a.Name {
	case "split-right", "split-down", "new-tab":
		kind := map[string]string{"split-right": "right", "split-down": "down", "new-tab": "tab"}[a.Name]
		_, res, err := s.spawn(spawnSpec{argv: []string{s.shell}, command: s.shell, env: s.env, target: a.Pane, layout: kind, shell: true, focus: true})
		if err != nil {
			return err
		}
		if res.Note != "" {
			c.say("%s", res.Note)
		}
		return nil
	case "diff":
		if a.Pane != 0 {
			go c.showDiff(a.Pane)
		}
		return nil
	case "next-waiting":
		return s.nextWaiting(c)
	case "kill-pane":
		if a.Pane == 0 {
			return nil
		}
		last, err := s.removePane(a.Pane, true)
		if last {
			go s.lastPaneGone("last pane killed")
		}
		return err
	case "detach":
		c.exit("detached (from session " + s.name + ")")
		return nil
	case "paste-buffer":
		var buf string
		var e *paneEntry
		var ok bool
		s.withLock(func() {
			buf = s.buffer
			e, ok = s.panes[s.layout.Focused()]
		})
		if !ok || buf == "" {
			return nil
		}
		return e.p.Type(ui.PasteBytes(buf, e.p.Term().Modes()))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	w, h := s.paneAreaLocked()
	switch a.Name {
	case "next-tab":
		s.layout.NextTab()
	case "prev-tab":
		s.layout.PrevTab()
	case "select-tab":
		if len(a.Args) != 1 {
			return fmt.Errorf("select-tab needs a tab number")
		}
		n, err := strconv.Atoi(a.Args[0])
		if err != nil {
			return fmt.Errorf("select-tab: %q is not a tab number", a.Args[0])
		}
		return s.layout.SelectTab(n)
	case "focus":
		if len(a.Args) != 1 {
			return fmt.Errorf("focus needs a direction: left, right, up or down")
		}
		d, ok := map[string]layout.Direction{"left": layout.Left, "right": layout.Right, "up": layout.Up, "down": layout.Down}[a.Args[0]]
		if !ok {
			return fmt.Errorf("focus: %q is not left, right, up or down", a.Args[0])
		}
		s.refocusLocked(func() { s.layout.MoveFocus(d, w, h) })
	case "zoom":
		s.layout.ToggleZoom()
		s.relayoutLocked()
	case "resize":
		return s.resizeSplitLocked(a)
	default:
		return fmt.Errorf("unknown command %q", a.Name)
	}
	return nil
}

// dragBorder moves the right or bottom edge of a pane by the mouse.
func (s *Server) dragBorder(a ui.DragBorder) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w, h := s.paneAreaLocked()
	tab := s.layout.ActiveTab()
	for _, pl := range s.layout.Place(tab, w, h) {
		if pl.Pane != a.Pane {
			continue
		}
		x, y := pl.Frame.X+pl.Frame.W, pl.Frame.Y
		if !a.Vertical {
			x, y = pl.Frame.X, pl.Frame.Y+pl.Frame.H
		}
		b, ok := s.layout.BorderAt(tab, x, y, w, h)
		if !ok {
			return
		}
		to := b.X + a.Delta
		if !a.Vertical {
			to = b.Y + a.Delta
		}
		if s.layout.DragBorder(tab, b, to, w, h) {
			s.relayoutLocked()
		}
		return
	}
}

// resizeSplitLocked moves a border of the focused pane from the keyboard, as
// tmux's resize-pane: left/right move its right edge (its left edge when it
// has none on the right), up/down its bottom edge (else its top edge).
func (s *Server) resizeSplitLocked(a ui.Command) error {
	if len(a.Args) == 0 {
		return fmt.Errorf("resize needs a direction: left, right, up or down")
	}
	n := 1
	if len(a.Args) > 1 {
		v, err := strconv.Atoi(a.Args[1])
		if err != nil || v < 1 {
			return fmt.Errorf("resize: %q is not a number of cells", a.Args[1])
		}
		n = v
	}
	vertical := a.Args[0] == "left" || a.Args[0] == "right"
	if a.Args[0] == "left" || a.Args[0] == "up" {
		n = -n
	}
	w, h := s.paneAreaLocked()
	tab := s.layout.ActiveTab()
	for _, pl := range s.layout.Place(tab, w, h) {
		if pl.Pane != a.Pane {
			continue
		}
		// The far edge first (the separator after the pane, or the title bar
		// of the pane below), then the near one.
		edges := [][2]int{{pl.Frame.X + pl.Frame.W, pl.Frame.Y}, {pl.Frame.X - 1, pl.Frame.Y}}
		if !vertical {
			edges = [][2]int{{pl.Frame.X, pl.Frame.Y + pl.Frame.H}, {pl.Frame.X, pl.Frame.Y}}
		}
		for i, e := range edges {
			if i == 1 && !vertical && pl.Frame.Y == 0 {
				break // the top pane's title bar is no border
			}
			b, ok := s.layout.BorderAt(tab, e[0], e[1], w, h)
			if !ok || (b.Split == layout.Right) != vertical {
				continue
			}
			to := b.X + n
			if !vertical {
				to = b.Y + n
			}
			if s.layout.DragBorder(tab, b, to, w, h) {
				s.relayoutLocked()
			}
			return nil
		}
		return fmt.Errorf("pane %d has no border to move %s", a.Pane, a.Args[0])
	}
	return nil
}
