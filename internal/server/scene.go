package server

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/ui"
	"github.com/melmux/melmux/layout"
	"github.com/melmux/melmux/pane"
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
//
// A frame takes no pane's emulator lock under Server.mu (an emulator
// parsing a flood is locked while it parses, and every command would wait
// behind the frame): it asks under the lock what it must read of which
// panes (frameAsksLocked), reads their emulators with no lock of the
// server's (paneRead.read), and builds the scene under the lock from what
// it read. Should the panes have changed between (a pane placed that was
// not, an agent found in a pane only now), it asks again; after
// frameRounds it reads what is missing under the lock.
func (s *Server) sceneFresh(c *client, fresh int) (sc *ui.Scene, next time.Duration, stale bool) {
	cols, rows := c.tty.size()
	for round := 1; ; round++ {
		var reads map[int]*paneRead
		s.withLock(func() { reads = s.frameAsksLocked(fresh) })
		runHook(&s.hooks.frame)
		for _, r := range reads {
			r.read()
		}
		built := false
		draw := func() {
			s.seeLocked(c) // the person sees what this frame shows
			var missing bool
			sc, next, stale, missing = s.sceneLocked(cols, rows, fresh, reads, round >= frameRounds)
			built = !missing
		}
		if fresh != 0 {
			// A key's echo does not wait for /proc: every pane, the typed
			// one too, shows what the last lookup found (its watcher, or the
			// next full frame, looks again when one is due).
			s.withLock(draw)
		} else {
			s.withFresh(draw)
		}
		if built {
			return sc, next, stale
		}
	}
}

// frameRounds bounds the rounds of reads a frame makes before it reads what
// is still missing under Server.mu.
const frameRounds = 3

// paneRead is what one frame reads of a pane's emulator before it takes
// Server.mu to build the scene: what frameAsksLocked asked, then what read
// found.
type paneRead struct {
	e          *paneEntry
	cols, rows int  // its content in the frame; 0 for a pane only named (a tab's)
	lastOK     bool // an echo frame's other pane: the screen drawn last of it will do
	title      bool // read the title its program set
	agent      bool // read its agent's signals
	agentSees  bool // and its screen, for a new decision

	screen    *term.Screen
	stale     bool // screen is the one drawn last, and the pane printed since
	progTitle string
	ag        agentRead
	agRead    bool // ag was read
}

// frameAsksLocked says what a frame must read of which panes: the active
// tab's placed panes (their screens; unless an echo frame reuses what the
// last frame read, their titles and agents) and the panes that name a tab.
func (s *Server) frameAsksLocked(fresh int) map[int]*paneRead {
	reads := map[int]*paneRead{}
	ask := func(id int, e *paneEntry) *paneRead {
		r := reads[id]
		if r == nil {
			r = &paneRead{e: e}
			reads[id] = r
		}
		return r
	}
	for _, t := range s.layout.Tabs() {
		if e, ok := s.panes[t.Focus]; ok && t.Name == "" && len(t.Panes) > 0 && e.title == "" {
			ask(t.Focus, e).title = true
		}
	}
	w, h := s.paneAreaLocked()
	for _, pl := range s.layout.Place(s.layout.ActiveTab(), w, h) {
		e, ok := s.panes[pl.Pane]
		if !ok {
			continue
		}
		r := ask(pl.Pane, e)
		r.cols, r.rows = pl.Content.W, pl.Content.H
		r.lastOK = fresh != 0 && pl.Pane != fresh
		if r.lastOK && e.drawn {
			continue // title and agent as the last frame read them
		}
		r.title = r.title || e.title == ""
		if e.p.Status().Running {
			r.agent = true
			e.agentDo(func() { r.agentSees = s.agentSeesLocked(e) })
		}
	}
	return reads
}

// decisionCurrentLocked says the pane's last agent decision holds: nothing
// changed since it was made (gen is agentGenLocked's count). Caller holds
// the pane's agent lock.
func (e *paneEntry) decisionCurrentLocked(gen uint64) bool {
	e.mustHoldAgent()
	return e.ag.cached != nil && e.ag.cachedCh == e.p.Changed() && e.ag.cacheGen == gen && time.Now().Before(e.ag.until)
}

// read reads what r asks of the pane's emulator. It takes no lock of the
// server's.
func (r *paneRead) read() {
	p := r.e.p
	if r.cols > 0 {
		if r.lastOK {
			r.screen, r.stale = r.e.draw.drawnLast(r.cols, r.rows)
		}
		if r.screen == nil {
			r.screen = r.e.draw.screen(p)
		}
	}
	if r.title {
		r.progTitle = clipTitle(p.Term().Title())
	}
	if r.agent {
		r.ag.read(p, r.agentSees)
		r.agRead = true
	}
}

func (s *Server) sceneLocked(cols, rows, fresh int, reads map[int]*paneRead, live bool) (sc *ui.Scene, next time.Duration, stale, missing bool) {
	// read is what the frame read of pane id, or nil when it did not read
	// what the scene needs (the panes changed since it asked): then the
	// scene is missing it, unless live, when it is read now.
	// A placed pane's read is needed at its content's size (cols x rows),
	// a tab's or an agent's at any (0).
	read := func(id int, e *paneEntry, cols, rows int, need func(*paneRead) bool) *paneRead {
		r := reads[id]
		if r != nil && r.e == e && need(r) {
			return r
		}
		if !live {
			missing = true
			return nil
		}
		if r == nil || r.e != e {
			r = &paneRead{e: e}
			reads[id] = r
		}
		if cols > 0 {
			r.cols, r.rows, r.lastOK = cols, rows, false
		}
		r.screen, r.stale, r.ag = nil, false, agentRead{}
		r.title, r.agent, r.agentSees = true, true, true
		r.read()
		return r
	}
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
			} else if r := read(id, e, 0, 0, func(r *paneRead) bool { return r.agRead }); r != nil {
				var short bool
				e.agentDo(func() {
					v.info, v.change, short = s.agentFromLocked(id, e, &r.ag)
					if short && live {
						v.info, v.change = s.agentLocked(id, e)
					}
				})
				if short && !live {
					missing = true
				}
				e.drawnAgent = v
			}
			agents[id] = v
		}
		return v
	}
	titleOf := func(id int, e *paneEntry) string {
		if r := read(id, e, 0, 0, func(r *paneRead) bool { return r.title }); r != nil {
			return r.progTitle
		}
		return ""
	}
	for _, t := range s.layout.Tabs() {
		tv := ui.TabView{Index: t.Index, Name: t.Name, Panes: len(t.Panes), Active: t.Index == active, Zoomed: t.Zoomed}
		if tv.Name == "" && len(t.Panes) > 0 {
			if e, ok := s.panes[t.Focus]; ok {
				tv.Name = s.displayNameFrom(e, func() string { return titleOf(t.Focus, e) })
			}
		}
		// The tab's mark is its panes' unseen changes: a question or a
		// failure (needs you), a finished turn (done).
		for _, id := range t.Panes {
			if e, ok := s.panes[id]; ok {
				var mark attention
				e.agentDo(func() { mark = e.notify.mark })
				switch mark {
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
		pw, ph := pl.Content.W, pl.Content.H
		r := read(pl.Pane, e, pw, ph, func(r *paneRead) bool { return r.cols == pw && r.rows == ph })
		if r == nil {
			continue
		}
		st := e.p.Status()
		pv := ui.PaneView{
			ID: pl.Pane, Frame: uiRect(pl.Frame), Content: uiRect(pl.Content),
			Title: e.title, Command: s.runningLocked(e), Focused: pl.Pane == focused,
			Exited: !st.Running, ExitCode: st.ExitCode,
			Screen: r.screen,
		}
		stale = stale || r.stale
		if pv.Title == "" {
			if reuse(pl.Pane, e) {
				pv.Title = e.drawnTitle
			} else {
				pv.Title = titleOf(pl.Pane, e)
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
	return sc, next, stale, missing
}

// paneDraw is what frames keep of a pane's screen: the latest snapshot,
// which every client draws from until the pane changes (so clients hold one
// copy, not one each), and the last screen drawn outside a synchronized
// output frame. Its lock is its own, taken without Server.mu; the pane's
// emulator lock is taken under it.
type paneDraw struct {
	mu        sync.Mutex      // guards the fields below
	snap      *term.Screen    // the latest snapshot
	snapCh    <-chan struct{} // the pane's change channel when snap was taken
	lastFull  *term.Screen    // the last screen drawn outside a synchronized output frame
	syncSince time.Time       // when the current synchronized output frame began
}

// drawnLast is the screen last drawn of the pane when it is cols x rows
// (nil when it is not), and whether the pane may show more than it: it
// printed since the last snapshot, or that snapshot is not it.
func (d *paneDraw) drawnLast(cols, rows int) (*term.Screen, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	last := d.lastFull
	if last == nil || last.Cols != cols || last.Rows != rows {
		return nil, false
	}
	if d.snap != last {
		return last, true
	}
	select {
	case <-d.snapCh:
		return last, true
	default:
		return last, false
	}
}

// screen is p's screen to draw: the live one, or while the application
// holds synchronized output, the last complete one (for at most syncHold),
// so no client sees a half-drawn frame.
func (d *paneDraw) screen(p *pane.Pane) *term.Screen {
	d.mu.Lock()
	defer d.mu.Unlock()
	snap := d.snapshotLocked(p)
	if snap.Modes.SyncOutput && d.lastFull != nil {
		if d.syncSince.IsZero() {
			d.syncSince = time.Now()
		}
		if time.Since(d.syncSince) < syncHold {
			return d.lastFull
		}
	}
	d.syncSince = time.Time{}
	d.lastFull = snap
	return snap
}

// snapshotLocked is p's screen now, taken again only when the pane printed
// (its change channel closed) or changed size since the last one.
func (d *paneDraw) snapshotLocked(p *pane.Pane) *term.Screen {
	ch := p.Changed() // before the snapshot: output after it closes ch
	if d.snap != nil {
		select {
		case <-d.snapCh:
		default:
			if cols, rows := p.Term().Size(); d.snapCh == ch && cols == d.snap.Cols && rows == d.snap.Rows {
				return d.snap
			}
		}
	}
	d.snap, d.snapCh = p.Term().Snapshot(), ch
	return d.snap
}

// displayNameLocked names a pane in the status line: its title, the title its
// program set, else what runs in it.
func (s *Server) displayNameLocked(e *paneEntry) string {
	return s.displayNameFrom(e, func() string { return programTitle(e) })
}

// displayNameFrom is displayNameLocked with the program's title from
// progTitle (a frame's, read before it took Server.mu). Caller holds
// Server.mu.
func (s *Server) displayNameFrom(e *paneEntry, progTitle func() string) string {
	if e.title != "" {
		return e.title
	}
	if t := progTitle(); t != "" {
		return t
	}
	return s.runningLocked(e)
}

// runningLocked is what runs in the pane: a melmux agent by its role, the
// foreground program when the shell started another (vim, top, claude), else
// the pane's command. Caller holds Server.mu, not the pane's agent lock,
// which it takes.
func (s *Server) runningLocked(e *paneEntry) string {
	var a *melAgent
	var fg string
	e.agentDo(func() { a, fg = s.melLocked(e), s.foregroundLocked(e) })
	if a != nil {
		return "mel " + a.role // "mel worker", its state beside it
	}
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
	defer s.publishLocked() // the focus moves
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
