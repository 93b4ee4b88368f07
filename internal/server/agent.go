package server

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/pane"
	"github.com/melmux/melmux/pane/agentstate"
	"github.com/melmux/melmux/pane/term"
)

// A pane's agent state is decided by one agentstate.Engine per pane, fed
// with every signal the server has: a registered melmux agent's reports,
// the agent's hooks (`melmux notify`), its program status reports and other
// OSC signals on its terminal, its screen under the kind's rules, its
// output and the input sent to it. The engine lives on the paneEntry under
// the pane's agent lock (paneAgent.agentMu). Whoever asks (list_panes,
// wait, read_agent, the clients' frames, the pane's watcher) gets the same
// decision; the watcher (watchAgent) makes sure a change is seen, and
// notified, when nobody asks.

// agentKindTTL bounds how often a pane's foreground processes are looked up
// (an ioctl and a walk of /proc): often enough to notice `claude` started
// in a shell, rarely enough to cost nothing per frame.
const agentKindTTL = time.Second

// agentCacheMax bounds how long a decision is reused while nothing changed
// (no output, no report): the times in its evidence age.
const agentCacheMax = time.Second

// KindAgent is the kind of an agent known only from its own reports (a hook
// that named no kind).
const KindAgent = "agent"

// paneAgent is the agents part of a pane: what runs in it as last looked
// up, the agent state engine and its reports, the notifications of its
// changes held back and its attention mark, the turns and questions of the
// agent CLI it runs (the melmux agent registered for it is melAgents',
// under its own lock). It is guarded by its own lock, agentMu, not by
// Server.mu: a decision reads the pane's screen, and the pane's watcher, an
// agent's hooks (`melmux notify`) and read_agent's wait for a turn decide
// while a command or a frame holds the pane table. What a decision needs of
// the rest of the server it reads without Server.mu: the pane itself (its
// own locks), the focused pane as the last section under Server.mu left
// it (Server.focus) and the clients' count (clientSet). Sections under
// Server.mu (list_panes, the frames, explain, send_keys) take agentMu
// inside it, never the other way round. paneEntry embeds it, so the
// agents' files (agent*.go, deliver.go, turns.go, questions.go and the
// agent commands) reach its fields as the pane's.
type paneAgent struct {
	// hooks are the server's test hooks (agentDo runs agentLock).
	hooks *testHooks
	// agentMu guards the fields below.
	agentMu sync.Mutex
	// gone says the pane left the table (removePane): nothing is decided
	// for it any more.
	gone bool
	// The coding agent the pane runs ("" for none) and when that was last
	// looked up (agentFresh, withFresh), and the channel closed when the
	// lookup under way ends (nil for none).
	kind    string
	kindPID int    // the agent's process, 0 when unknown
	fg      string // the foreground program's name
	kindAt  time.Time
	looking chan struct{}
	// remoteFg is what the host of a pane on another host said the pane
	// runs (remote_link), with the host's name; nil for a local pane.
	remoteFg   *proto.RemoteForeground
	remoteHost string
	// The agent state engine and its reports.
	ag agentWatch
	// The notifications of its agent's changes held back
	// (agent_notify.go).
	notify notifyGate
	// The turns and questions of the agent CLI the pane runs (turns.go,
	// questions.go).
	turns cliTurns
}

// agentDo runs f holding the pane's agent lock, and lets go of it even
// when f panics.
func (e *paneEntry) agentDo(f func()) {
	e.agentMu.Lock()
	defer e.agentMu.Unlock()
	if e.hooks != nil {
		runHook(&e.hooks.agentLock)
	}
	f()
}

// mustHoldAgent tells the server's unlocked test hook when nobody holds
// the pane's agent lock: the ...Locked functions of the agents part call
// it, so a path that reaches them without the lock fails the package's
// tests at once, not only when the race detector happens to see two of
// them meet.
func (e *paneEntry) mustHoldAgent() {
	if e.hooks == nil {
		return
	}
	if f := e.hooks.unlocked.Load(); f != nil && e.agentMu.TryLock() {
		defer e.agentMu.Unlock()
		(*f)("a pane's agent state was used without its agent lock (paneAgent.agentMu)")
	}
}

// agentFresh runs f holding pane e's agent lock alone, with what the pane
// runs looked up no longer than agentKindTTL ago, as withFresh does for a
// section under Server.mu; a lookup that cannot be kept fresh is read as
// last made after three rounds. It reports false, without running f, once
// the pane has left the table.
func (s *Server) agentFresh(e *paneEntry, f func()) bool {
	for round := 0; ; round++ {
		gone, due := false, false
		e.agentDo(func() {
			if gone = e.gone; gone {
				return
			}
			if due = round < 3 && e.lookupDueLocked(); !due {
				f()
			}
		})
		if gone {
			return false
		}
		if !due {
			return true
		}
		s.refreshForeground(e)
	}
}

// agentEntry is pane id's entry, found without Server.mu; nil when the
// pane is not in the table. Its agent lock says whether it left since
// (paneAgent.gone).
func (s *Server) agentEntry(id int) *paneEntry {
	if e, ok := s.agentPanes.Load(id); ok {
		return e.(*paneEntry)
	}
	return nil
}

// agentLookup is pane id's entry for a call of the agents part that takes
// no Server.mu. A pane not in the index is looked up in the table, for the
// error that says what became of it.
func (s *Server) agentLookup(id int) (*paneEntry, error) {
	if e := s.agentEntry(id); e != nil {
		return e, nil
	}
	var e *paneEntry
	err := s.withLockErr(func() error {
		var err error
		e, err = s.lookupLocked(id)
		return err
	})
	return e, err
}

// goneError says what became of pane id, which left the table while a
// call of the agents part was at it.
func (s *Server) goneError(id int) error {
	if err := s.withLockErr(func() error { _, err := s.lookupLocked(id); return err }); err != nil {
		return err
	}
	return errorf(proto.CodeFailed, "pane %d was closed", id)
}

// lookupDueLocked says what the pane runs was last looked up agentKindTTL
// ago or more. Caller holds the pane's agent lock.
func (e *paneEntry) lookupDueLocked() bool {
	return e.kindAt.IsZero() || time.Since(e.kindAt) >= agentKindTTL
}

// agentWatch is a pane's agent state: its engine, the reports it got and
// the last decision. Guarded by the pane's agent lock.
type agentWatch struct {
	engine *agentstate.Engine
	hook   *agentstate.Report // the last `melmux notify`
	// hookKind is the kind the last hook named ("" for none).
	hookKind string
	// status is the last program status report (OSC 7501) and the count it
	// was parsed at; statusApp the kind its app= names.
	status      *agentstate.Report
	statusCount uint64
	statusKind  string

	pgrp      int       // the foreground process group at the last lookup
	procSince time.Time // when it last changed
	kindWhy   string    // why kind (paneEntry.kind) was decided
	banner    string    // the kind found by banner for this process group, sticky
	bannerWhy string

	// The decision last made, reused while the pane's output channel and
	// gen are the same and until is not passed.
	cached   *agentstate.Decision
	cachedCh <-chan struct{}
	cacheGen uint64 // agentGenLocked when it was made
	until    time.Time
	gen      uint64 // bumped by reports and changes under the agent lock (agentGenLocked adds the melmux agent's)
}

// outputTimes keeps the times of a pane's last output writes. It is written
// by the pane's reader goroutine, so it has its own lock.
type outputTimes struct {
	mu    sync.Mutex // guards the fields below
	times [4]time.Time
	next  int
}

func (o *outputTimes) note() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.times[o.next] = time.Now()
	o.next = (o.next + 1) % len(o.times)
}

// printed reports whether the pane has printed anything.
func (o *outputTimes) printed() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return !o.times[0].IsZero() // the first write's slot
}

// newestFirst returns the kept times, newest first.
func (o *outputTimes) newestFirst() []time.Time {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make([]time.Time, 0, len(o.times))
	for i := 1; i <= len(o.times); i++ {
		t := o.times[(o.next-i+len(o.times))%len(o.times)]
		if !t.IsZero() {
			out = append(out, t)
		}
	}
	return out
}

// What a pane runs is looked up holding no lock: the lookup reads /proc
// (the group's processes, more for a wrapper's tree), and every decision
// of the pane's agent waits on its agent lock, as every command, frame and
// client waits on Server.mu. So lookForeground gathers (the foreground
// group by the pane's ioctl, its processes, their kind) with no lock held,
// and applyForegroundLocked stores the result on the paneEntry under its
// agent lock. Code that answers with a pane's agent or foreground program
// (list_panes, wait, frames, the watcher...) takes the lock through
// agentFresh or withFresh, which first bring the lookups it needs up to
// date, so an answer rests on a lookup no older than agentKindTTL; the
// ...Locked readers only read what was stored.

// foreground is what one lookup of a pane found.
type foreground struct {
	at   time.Time // when the lookup began
	pgrp int       // the foreground process group, 0 once exited
	fg   string    // the foreground program's name, "" once exited
	kind string    // the coding agent among its processes, "" for none
	why  string
	pid  int // the agent's process, 0 for none or unknown
	// banner is the kind whose banner is on the screen, looked for when
	// the group runs no known agent and is not an idle shell.
	banner, bannerWhy string
}

// lookForeground finds what pane p runs now: the foreground program and
// the coding agent among the processes of its group, or a kind's banner on
// its screen (once the pane has printed, unless the group is bannered,
// whose banner is known), the program it ran once it has exited. It reads
// /proc and the screen: the caller holds no lock of the server's.
func (s *Server) lookForeground(p *pane.Pane, bannered int, printed bool) foreground {
	r := foreground{at: time.Now(), pgrp: p.ForegroundGroup()}
	rules := s.rules()
	if r.pgrp != 0 {
		if h := s.hooks.look.Load(); h != nil {
			(*h)(p)
		}
		leader := readProc(r.pgrp)
		if len(leader.Argv) > 0 {
			r.fg = filepath.Base(leader.Argv[0])
		}
		r.kind, r.why = rules.KindOfProcs([]agentstate.Proc{leader})
		if r.kind != "" {
			r.pid = leader.PID
		}
		if r.kind != "" || idleShell(leader.Argv) {
			return r
		}
		// A wrapper (a script, npx, node) runs the agent as its child.
		procs, walked := walkGroup(r.pgrp, leader)
		// The pane's program caught exiting (its command line goes first)
		// or exited and not yet reaped is looked at as it will be in a
		// moment, not as a group whose leader is gone, whose members only
		// a scan of every process finds: what is left in its group stops
		// counting once the pane has seen the exit. (A short program is
		// often caught so.)
		st := p.Status()
		exiting := r.pgrp == st.PID && (!st.Running || len(leader.Argv) == 0 || !walked && exited(r.pgrp))
		if !exiting {
			if !walked {
				procs = scanGroup(r.pgrp, leader)
			}
			r.kind, r.why = rules.KindOfProcs(procs)
			r.pid = agentPID(rules, procs)
			// Reading a screen costs as much empty as full: only a pane
			// that printed is read.
			if r.kind == "" && printed && r.pgrp != bannered {
				r.banner, r.bannerWhy = rules.KindOfScreen(p.Term().Lines())
			}
			return r
		}
	}
	// Exited (or unreadable): what it was started with.
	r = foreground{at: r.at}
	r.kind, r.why = rules.KindOfProcs([]agentstate.Proc{{PID: p.Status().PID, Argv: p.Argv()}})
	return r
}

// agentPID is the process among procs that is an agent, 0 for none.
func agentPID(rules *agentstate.Rules, procs []agentstate.Proc) int {
	for _, p := range procs {
		if k, _ := rules.KindOfProcs([]agentstate.Proc{p}); k != "" {
			return p.PID
		}
	}
	return 0
}

// applyForegroundLocked stores a lookup's result, unless a later lookup's
// is stored already. Caller holds the pane's agent lock.
func (s *Server) applyForegroundLocked(e *paneEntry, r foreground) {
	e.mustHoldAgent()
	if !r.at.After(e.kindAt) {
		return
	}
	remoteForegroundLocked(e, &r)
	e.kindAt = r.at
	if r.pgrp != e.ag.pgrp {
		e.ag.pgrp, e.ag.procSince = r.pgrp, r.at
		e.ag.banner, e.ag.bannerWhy = "", ""
	}
	e.fg, e.kind, e.ag.kindWhy, e.kindPID = r.fg, r.kind, r.why, r.pid
	if r.banner != "" && e.ag.banner == "" {
		e.ag.banner, e.ag.bannerWhy = r.banner, r.bannerWhy
	}
}

// refreshForeground looks up what pane e runs now and stores it; when a
// lookup of the pane is under way already, it waits for that one instead.
// The caller holds no lock of the server's.
func (s *Server) refreshForeground(e *paneEntry) {
	var ch, waitFor chan struct{}
	bannered := 0
	e.agentDo(func() {
		if waitFor = e.looking; waitFor != nil {
			return
		}
		ch = make(chan struct{})
		e.looking = ch
		if e.ag.banner != "" {
			bannered = e.ag.pgrp
		}
	})
	if waitFor != nil {
		<-waitFor
		return
	}
	var r foreground
	looked := false
	defer func() { // even after a panic: whoever waits on ch is let go
		defer close(ch)
		e.agentDo(func() {
			if looked {
				s.applyForegroundLocked(e, r)
			}
			e.looking = nil
		})
	}()
	r = s.lookForeground(e.p, bannered, e.out.printed())
	looked = true
}

// lookupsDueLocked lists the panes among ids (every pane when none is
// given) whose lookup is older than agentKindTTL. Caller holds Server.mu.
func (s *Server) lookupsDueLocked(ids []int) []*paneEntry {
	var due []*paneEntry
	add := func(e *paneEntry) {
		e.agentDo(func() {
			if e.lookupDueLocked() {
				due = append(due, e)
			}
		})
	}
	if len(ids) == 0 {
		for _, e := range s.panes {
			add(e)
		}
	}
	for _, id := range ids {
		if e, ok := s.panes[id]; ok {
			add(e)
		}
	}
	return due
}

// idleShell reports an interactive shell by itself (argv just its name):
// whatever it runs is in another process group.
func idleShell(argv []string) bool {
	return len(argv) == 1 && shells[strings.TrimPrefix(filepath.Base(argv[0]), "-")]
}

// agentKindLocked is the kind of coding agent the pane runs now, "" for
// none: from its processes (as last looked up: see withFresh), else its
// program status reports, its hooks or a banner on its screen.
func (s *Server) agentKindLocked(e *paneEntry) (string, string) {
	return s.agentKindFromLocked(e, nil)
}

// agentKindFromLocked is agentKindLocked with the program status from what
// a frame read of the pane's emulator (pre; nil: from the emulator now).
func (s *Server) agentKindFromLocked(e *paneEntry, pre *agentRead) (string, string) {
	s.readStatusLocked(e, pre)
	return e.agentKindKnownLocked()
}

// agentKindKnownLocked is the pane's agent kind from what is known of it
// already, reading nothing of its emulator.
func (e *paneEntry) agentKindKnownLocked() (string, string) {
	e.mustHoldAgent()
	switch {
	case e.kind != "":
		return e.kind, e.ag.kindWhy
	case e.ag.status != nil && e.ag.statusKind != "" && !e.ag.status.At.Before(e.ag.procSince):
		return e.ag.statusKind, "program status reports app " + e.ag.statusKind
	case e.ag.hook != nil && !e.ag.hook.At.Before(e.ag.procSince):
		if e.ag.hookKind != "" {
			return e.ag.hookKind, "its hooks say so (melmux notify)"
		}
		return KindAgent, "it reports through its hooks (melmux notify)"
	case e.ag.banner != "":
		return e.ag.banner, e.ag.bannerWhy
	}
	return "", ""
}

// readStatusLocked takes a new program status report (OSC 7501) from the
// pane's terminal, or from what a frame read of it (pre), which may be
// older than a report already taken: the count only goes up.
func (s *Server) readStatusLocked(e *paneEntry, pre *agentRead) {
	e.mustHoldAgent()
	var sig term.Signal
	if pre != nil {
		sig = pre.signals.Status
		if sig.Count < e.ag.statusCount {
			return
		}
	} else {
		sig = e.p.Term().Signals().Status
	}
	if sig.Count == e.ag.statusCount {
		return
	}
	e.ag.statusCount = sig.Count
	ps, err := agentstate.ParseProgramStatus(sig.Text)
	if err != nil || ps.AgentState() == "" {
		return // a report of a state not known here: nothing to weigh
	}
	e.ag.status = &agentstate.Report{Source: "program status", State: ps.AgentState(),
		Detail: "OSC 7501 " + ps.Describe(), Message: ps.Msg, At: sig.At}
	e.ag.statusKind = s.rules().KindOfApp(ps.App)
}

// foregroundLocked names the program in the pane's foreground ("vim" while
// the shell runs vim), "" once the pane's program has exited, as last
// looked up (see withFresh).
func (s *Server) foregroundLocked(e *paneEntry) string {
	e.mustHoldAgent()
	return e.fg
}

// agentLocked describes the agent in a pane, or nil when it runs none. It
// also says when the state could change with no output (a working agent
// turning idle once quiet, a question settling), 0 for never. Caller holds
// the pane's agent lock.
func (s *Server) agentLocked(id int, e *paneEntry) (*proto.AgentInfo, time.Duration) {
	info, next, _ := s.agentFromLocked(id, e, nil)
	return info, next
}

// agentFromLocked is agentLocked deciding from what a frame read of the
// pane's emulator (pre; nil: from the emulator now). short says pre lacks
// what a decision needs (the screen of a pane found running an agent only
// now): nothing is decided, and the frame reads again.
func (s *Server) agentFromLocked(id int, e *paneEntry, pre *agentRead) (_ *proto.AgentInfo, _ time.Duration, short bool) {
	d, kind, short := s.decideFromLocked(id, e, false, pre)
	if d == nil {
		return nil, 0, short
	}
	var info *proto.AgentInfo
	a := s.melLocked(e)
	if a != nil {
		info = a.infoLocked(e.p)
	} else {
		info = &proto.AgentInfo{ID: fmt.Sprintf("pane-%d", id), Role: "external", Kind: kind, State: string(d.State)}
	}
	info.Evidence = d.Evidence
	if a == nil && d.State == agentstate.Waiting {
		info.Question = questionInfo(e.turns.q)
	}
	var next time.Duration
	if d.Next > 0 {
		next = d.Next
	}
	return info, next, false
}

// decideLocked runs the pane's engine, or reuses its last decision while
// nothing changed; fresh forces a new one (explain). It returns nil when
// the pane runs no agent.
func (s *Server) decideLocked(id int, e *paneEntry, fresh bool) (*agentstate.Decision, string) {
	d, kind, _ := s.decideFromLocked(id, e, fresh, nil)
	return d, kind
}

// decideFromLocked is decideLocked with the emulator's part of the signals
// from what a frame read of it (pre; nil: from the emulator now). A
// decision made from pre is kept for the pane's change channel as it was
// before pre was read, so output after the read makes the next one anew.
// Without the screen in pre, the last decision stands if there is one (it
// is at most what the pane printed since the frame's read out of date);
// else short says nothing could be decided.
func (s *Server) decideFromLocked(id int, e *paneEntry, fresh bool, pre *agentRead) (_ *agentstate.Decision, _ string, short bool) {
	e.mustHoldAgent()
	kind, why := s.agentKindFromLocked(e, pre)
	mel, melGen := s.mels.view(e.p.ID())
	a := e.shownMel(mel)
	gen := e.ag.gen + melGen // as agentGenLocked
	if a != nil {
		kind, why = KindMelmux, "a melmux agent registered for the pane"
	}
	if kind == "" {
		return nil, "", false
	}
	ch := e.p.Changed()
	now := time.Now()
	if c := e.ag.cached; !fresh && c != nil && e.ag.cachedCh == ch && e.ag.cacheGen == gen && now.Before(e.ag.until) {
		return c, kind, false
	}
	if pre != nil {
		if pre.screen == nil {
			if c := e.ag.cached; c != nil && e.ag.cacheGen == gen {
				return c, kind, false
			}
			return nil, "", true
		}
		ch = pre.ch
	}
	sig := s.signalsLocked(e, kind, why, now, pre)
	if a != nil {
		sig.Mel = &agentstate.Report{Source: "melmux agent", State: agentstate.State(a.state),
			Detail: fmt.Sprintf("%s (turn %d)", a.state, a.turn), At: a.at}
		if !a.live {
			sig.Running = false
			sig.Exit = "its connection closed"
		}
	}
	if e.ag.engine == nil {
		e.ag.engine = agentstate.NewEngine(s.rules())
	}
	d := e.ag.engine.Decide(sig)
	if d.Changed {
		s.agentChangedStateLocked(id, e, kind, d)
	}
	if a == nil {
		s.trackTurnLocked(id, e, kind, &d, sig.Screen, now) // the screen the decision read
	}
	e.ag.cached, e.ag.cachedCh, e.ag.cacheGen = &d, ch, gen
	e.ag.until = now.Add(agentCacheMax)
	if d.Next > 0 && d.Next < agentCacheMax {
		e.ag.until = now.Add(d.Next)
	}
	return &d, kind, false
}

// signalsLocked gathers what the engine weighs.
// With pre, the emulator's part is what a frame read of it.
func (s *Server) signalsLocked(e *paneEntry, kind, why string, now time.Time, pre *agentRead) agentstate.Signals {
	st := e.p.Status()
	if pre == nil {
		pre = &agentRead{}
		pre.read(e.p, true)
	}
	osc := pre.signals
	return agentstate.Signals{
		Now: now, Running: st.Running, Exit: exitWords(st),
		Kind: kind, KindWhy: why,
		Screen: *pre.screen,
		Hook:   e.ag.hook, Status: e.ag.status,
		Bells:   pre.bells,
		Notify:  agentstate.Mark{Text: osc.Notify.Text, At: osc.Notify.At, Count: osc.Notify.Count},
		Prompt:  agentstate.Mark{Text: osc.Prompt.Text, At: osc.Prompt.At, Count: osc.Prompt.Count},
		Outputs: e.out.newestFirst(), LastOutput: e.p.LastOutput(), LastInput: e.p.LastInput(),
		ProcSince: e.ag.procSince,
	}
}

// agentRead is what an agent decision reads of a pane's emulator, read
// apart from the decision: a frame reads it before it takes Server.mu and
// the pane's agent lock.
type agentRead struct {
	signals term.Signals
	// What a new decision reads beside the signals, when it was asked for
	// (screen not nil): the pane's change channel taken before the reads,
	// the bells and the screen.
	ch     <-chan struct{}
	bells  uint64
	screen *agentstate.Screen
}

// read reads what an agent decision needs of p's emulator into r; for a new
// decision (decide) the screen too, which costs the screen's text.
func (r *agentRead) read(p *pane.Pane, decide bool) {
	t := p.Term()
	if !decide {
		r.signals = t.Signals()
		return
	}
	r.ch = p.Changed()
	r.signals, r.bells = t.Signals(), t.Bells()
	sc := agentScreen(t)
	r.screen = &sc
}

// agentScreen is the screen as agentstate reads it, taken at one instant,
// with the title.
func agentScreen(t *term.Terminal) agentstate.Screen {
	txt := t.TextSince(math.MaxUint64)
	return agentstate.Screen{Lines: txt.Lines, CursorY: txt.CursorY, CursorHidden: txt.CursorHidden, Title: clipTitle(t.Title())}
}

// rules are the session's agent kinds and screen rules.
func (s *Server) rules() *agentstate.Rules {
	if r := s.cfg().agents.Rules; r != nil {
		return r
	}
	return agentstate.Default()
}

// watchAgent re-decides a pane's agent state whenever something may have
// changed it — output, a report, the time the last decision named — so
// that changes are noticed (and notified) when nobody asks. It looks at
// most every watchEvery, and ends with the pane. A panic ends the watcher
// of that pane only: the pane goes on, its state decided when asked.
func (s *Server) watchAgent(id int, e *paneEntry) {
	defer s.recovered(fmt.Sprintf("pane %d's agent watcher", id), nil)
	var last time.Time
	for {
		if wait := watchEvery - time.Since(last); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-s.done:
				t.Stop()
				return
			}
		}
		last = time.Now()
		ch, ach, next, ok := s.decideAgent(id, e)
		if !ok {
			return
		}
		s.quiet.later() // a decision reads the screen: its garbage goes back once all is quiet
		t := time.NewTimer(next)
		if next <= 0 {
			t.Stop()
		}
		select {
		case <-ch:
		case <-ach:
		case <-t.C:
		case <-s.done:
			t.Stop()
			return
		}
		t.Stop()
	}
}

// decideAgent is one decision of pane id's watcher: what to wait on for
// the next and when it is due at the latest; ok is false once the pane is
// gone. It takes the pane's agent lock alone, let go of even after a
// panic, and reads the pane's emulator before it decides, holding no lock
// (agentFreshRead), as a frame does: a watcher deciding never holds up a
// command or a frame, nor does an emulator busy parsing a flood hold up
// through it whoever needs the pane's agent.
func (s *Server) decideAgent(id int, e *paneEntry) (ch, ach <-chan struct{}, next time.Duration, ok bool) {
	ok = s.agentFreshRead(e, func(r *agentRead) (short bool) {
		ch, ach, next, short = s.decideAgentLocked(id, e, r)
		return short
	})
	return ch, ach, next, ok
}

// agentFreshRead is agentFresh for a section that decides the pane's agent
// from pre (decideFromLocked, agentFromLocked): what the decision needs of
// the pane's emulator is read first, holding no lock of the server's, so
// that an emulator busy parsing a flood holds up this caller alone, never
// through the pane's agent lock whoever else needs the pane's agent (its
// hooks, its watcher, a frame asking under Server.mu). The screen is read
// only when the last decision no longer holds (agentSeesLocked); the
// program status, which tells an agent's kind, always, as it costs
// little. When the last decision no longer holds by the time the lock is
// taken, or f reports short (the pane found running an agent only now),
// the screen is read and f runs again with it: what f decides is as new as
// a decision read under the lock. It reports false, without running f,
// once the pane has left the table.
func (s *Server) agentFreshRead(e *paneEntry, f func(pre *agentRead) (short bool)) bool {
	sees := false
	if !s.agentFresh(e, func() { sees = s.agentSeesLocked(e) }) {
		return false
	}
	for {
		var r agentRead
		r.read(e.p, sees)
		short := false
		if !s.agentFresh(e, func() {
			if short = !sees && s.agentSeesLocked(e); !short {
				short = f(&r)
			}
		}) {
			return false
		}
		if !short {
			return true
		}
		sees = true // with the screen, a decision is never short
	}
}

// agentFreshInfo is pane id's agent (nil: it runs none) as agentLocked
// describes it, decided from what was read of its emulator before its
// agent lock was taken (agentFreshRead); ok is false once the pane has
// left the table.
func (s *Server) agentFreshInfo(id int, e *paneEntry) (info *proto.AgentInfo, next time.Duration, ok bool) {
	ok = s.agentFreshRead(e, func(pre *agentRead) (short bool) {
		info, next, short = s.agentFromLocked(id, e, pre)
		return short
	})
	return info, next, ok
}

// agentDecided runs f under pane e's agent lock with the pane's agent
// decided (d nil: it runs none) from what was read of its emulator before
// the lock was taken (agentFreshRead); it reports false, without running
// f, once the pane has left the table.
func (s *Server) agentDecided(id int, e *paneEntry, f func(d *agentstate.Decision, kind string)) bool {
	return s.agentFreshRead(e, func(pre *agentRead) bool {
		d, kind, short := s.decideFromLocked(id, e, false, pre)
		if !short {
			f(d, kind)
		}
		return short
	})
}

// agentSeesLocked says a decision of the pane's agent would read its
// screen: the pane runs an agent as far as is known, and its last
// decision no longer holds. Caller holds the pane's agent lock.
func (s *Server) agentSeesLocked(e *paneEntry) bool {
	_, known := e.agentKindKnownLocked()
	mel, gen := s.melShownLocked(e)
	return (known != "" || mel) && !e.decisionCurrentLocked(gen)
}

// decideAgentLocked decides from what r read of the pane's emulator; short
// says r lacks what the decision needs (the pane was found running an
// agent only now), and nothing was decided.
func (s *Server) decideAgentLocked(id int, e *paneEntry, r *agentRead) (ch, ach <-chan struct{}, next time.Duration, short bool) {
	info, next, short := s.agentFromLocked(id, e, r)
	if short {
		return nil, nil, 0, true
	}
	ch, ach = r.ch, s.agentChanges(e)
	if ch == nil {
		ch = e.p.Changed()
	}
	if since := time.Since(e.kindAt); info == nil && e.p.LastOutput().After(e.kindAt) && since < agentKindTTL {
		// No agent at the last lookup, output since: an agent may have
		// started; look again once the lookup is due.
		next = agentKindTTL - since
	}
	return ch, ach, next, false
}

// watchEvery bounds how often a pane's watcher decides: output comes in
// bursts of many writes.
const watchEvery = 50 * time.Millisecond
