package agentstate

import (
	"fmt"
	"hash/fnv"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Report is a state an agent said itself: a melmux agent over the socket, a
// hook running `melmux notify`, or a program status report on its terminal
// (OSC 7501).
type Report struct {
	Source  string // "melmux agent", "hook", "program status"
	State   State
	Detail  string // the event or report: "Notification (permission_prompt)", "blocked kind=permission"
	Message string // what the agent said, if anything
	At      time.Time
}

// Mark is a terminal signal that says no state by itself: the last
// notification (OSC 9, OSC 777) or prompt mark (OSC 133).
type Mark struct {
	Text  string
	At    time.Time
	Count uint64
}

// Signals is everything known about a pane at one instant, gathered by its
// owner for Decide.
type Signals struct {
	Now     time.Time
	Running bool
	Exit    string // how the process ended, when it did
	Kind    string
	KindWhy string
	Screen  Screen

	Mel    *Report // a registered melmux agent's last report
	Hook   *Report // the last `melmux notify`
	Status *Report // the last program status report (OSC 7501)

	Bells  uint64 // BEL characters so far
	Notify Mark   // the last OSC 9 / OSC 777 notification
	Prompt Mark   // the last OSC 133 prompt mark

	Outputs    []time.Time // the times of the last output writes, newest first
	LastOutput time.Time
	LastInput  time.Time // zero before any
	ProcSince  time.Time // when the foreground process group last changed
}

// Verdict is what one signal or rule says now.
type Verdict struct {
	Signal  string // "hook", "program status", "rule claude.permission", "activity", ...
	Says    State  // "" when it says nothing now
	Detail  string
	Decided bool // this verdict made the decision
}

// Decision is the pane's state with its evidence.
type Decision struct {
	State    State
	Evidence string // the deciding signal in words
	Message  string // what the agent said or asks, for a notification
	Since    time.Time
	Verdicts []Verdict
	// Next is when the decision could change with no new signal (a
	// question settling, output going quiet); 0 for never.
	Next time.Duration
	// Changed is set on the decision that changed the state; From is the
	// state before ("" on the first decision).
	Changed bool
	From    State
	// EndsTurn is set on a change to idle that ends a turn: the agent said
	// it worked or asked (a report, a rule, its title), not only printed
	// (a program drawing its first screen is no turn).
	EndsTurn bool
}

// Transition is one change of state.
type Transition struct {
	At       time.Time
	From, To State
	Evidence string
}

// maxHistory bounds the transitions an engine keeps.
const maxHistory = 32

// Engine is one pane's state: it merges the signals Decide is given with
// what it remembers from earlier looks (since when a question shows, how
// long the screen around it has been still, bells and title changes). It
// is not safe for concurrent use: its owner serialises the calls.
type Engine struct {
	rules *Rules

	looked   bool // Decide has run
	state    State
	since    time.Time
	turn     bool // since the last idle, a decision other than output said it worked or asked
	history  []Transition
	qSince   time.Time // when the current question was first seen; zero for none
	hash     uint64    // of the rows around the question (or the bottom rows)
	hashAt   time.Time // since when they are unchanged
	bells    uint64
	bellAt   time.Time
	title    string
	titleAts []time.Time // when the title changed, newest last
}

// NewEngine returns an engine using rules.
func NewEngine(r *Rules) *Engine { return &Engine{rules: r} }

// History returns the transitions so far, oldest first (the last
// maxHistory).
func (e *Engine) History() []Transition { return append([]Transition(nil), e.history...) }

// State returns the state last decided and since when.
func (e *Engine) State() (State, time.Time) { return e.state, e.since }

// Decide weighs the signals. In order, the first that holds decides:
//
//  1. the process has exited;
//  2. a registered melmux agent's report;
//  3. a question — a waiting report that is fresh, or a waiting rule
//     matching the screen (unless a working report came after the
//     question showed, or a report and input typed after it: an answer)
//     — once the screen
//     around it has been still for Settle;
//  4. a fresh working or idle report (the newest of hook and program
//     status), an idle one once the screen no longer shows work (or
//     ReportGrace passed);
//  5. a working rule (busy marker, spinner, title);
//  6. a fresh notification or bell (idle, or waiting when it asks for the
//     person), a title animating (working), a prompt mark;
//  7. output: activityWrites writes within QuietAfter is working;
//  8. idle, with an idle rule's match when one matches.
//
// A hook's report goes stale when input is typed after it (the program's
// own program status reports follow its input themselves); any report goes
// stale when the foreground process changes, and a waiting or idle report
// when the screen shows the agent busy after ReportGrace.
func (e *Engine) Decide(s Signals) Decision {
	d := e.decide(s)
	e.looked = true
	if by := decidedBy(d); d.State == Waiting || d.State == Working && by != "activity" && by != "settle" {
		e.turn = true
	}
	if d.State != e.state {
		if d.State == Idle {
			d.EndsTurn, e.turn = e.turn, false
		}
		d.Changed, d.From = true, e.state
		e.state, e.since = d.State, s.Now
		e.history = append(e.history, Transition{At: s.Now, From: d.From, To: d.State, Evidence: d.Evidence})
		if len(e.history) > maxHistory {
			e.history = e.history[len(e.history)-maxHistory:]
		}
	}
	d.Since = e.since
	return d
}

// verdicts collects the verdicts and the decision.
type verdicts struct {
	list    []Verdict
	decided bool
	d       Decision
}

func (v *verdicts) add(signal string, says State, detail string) int {
	v.list = append(v.list, Verdict{Signal: signal, Says: says, Detail: detail})
	return len(v.list) - 1
}

// decide makes verdict i the decision, unless one was made already.
func (v *verdicts) decide(i int, st State, evidence string) {
	if v.decided {
		return
	}
	v.decided = true
	v.list[i].Decided = true
	v.d.State, v.d.Evidence = st, evidence
}

func (e *Engine) decide(s Signals) Decision {
	now := s.Now
	v := &verdicts{}
	if !s.Running {
		i := v.add("process", Exited, "ended ("+s.Exit+")")
		v.decide(i, Exited, "the process ended ("+s.Exit+")")
		v.d.Verdicts = v.list
		return v.d
	}
	kindNote := "no kind"
	if s.Kind != "" {
		kindNote = s.Kind
		if s.KindWhy != "" {
			kindNote += ": " + s.KindWhy
		}
	}
	v.add("kind", "", kindNote)
	if s.Mel != nil {
		i := v.add(s.Mel.Source, s.Mel.State, describeReport(s.Mel, now))
		v.decide(i, s.Mel.State, s.Mel.Source+" reported "+describeReport(s.Mel, now))
	}

	// The screen rules, and what is remembered about the question.
	var results []RuleResult
	first := map[State]Match{}
	if s.Kind != "" && s.Kind != KindMelmux {
		results, first = e.rules.Apply(s.Kind, s.Screen)
	}
	wm, asks := first[Waiting]
	bm, busy := first[Working]
	im, idleShown := first[Idle]
	if asks {
		if e.qSince.IsZero() {
			e.qSince = now
		}
	} else {
		e.qSince = time.Time{}
	}
	still := e.stillFor(s, wm, asks)
	bellAt := e.noteBells(s)
	animating := e.noteTitle(s)

	rep, repNotes := e.freshReport(s, busy, bm)
	for _, n := range repNotes {
		v.add(n.Signal, n.Says, n.Detail)
	}
	repIdx := -1
	if rep != nil {
		for i, n := range v.list {
			if n.Signal == rep.Source && n.Says == rep.State {
				repIdx = i
			}
		}
	}
	ruleIdx := map[string]int{}
	for _, r := range results {
		detail := "no match in the " + r.Region
		var says State
		if r.Match != nil {
			says, detail = r.State, strings.TrimPrefix(r.Match.Evidence(), "rule "+r.Rule+" ")
		}
		ruleIdx[r.Rule] = v.add("rule "+r.Rule, says, detail)
	}

	// 3. A question, once settled: still for Settle since it showed or
	// was reported (a program reports its question before drawing it).
	repAsks := rep != nil && rep.State == Waiting
	// An idle report after the question showed overrules it only once
	// something was typed since (an answer): an idle report that came with
	// or after a question nobody answered is about something else (Codex
	// runs its notify program for a turn's end after drawing the
	// approval). A working report after it does: the agent went on, so
	// something answered the question — a permission hook's decision
	// types nothing, and the question may still be drawn for a moment, in
	// which a policy must not type its key again.
	answered := s.LastInput.After(e.qSince) || rep != nil && rep.State == Working
	screenAsks := asks && (rep == nil || rep.State == Waiting || rep.At.Before(e.qSince) || !answered)
	if repAsks || screenAsks {
		var why []string
		idx := -1
		var began time.Time
		if repAsks {
			why = append(why, rep.Source+": "+describeReport(rep, now))
			idx = repIdx
			v.d.Message = rep.Message
			began = rep.At
		}
		if screenAsks {
			why = append(why, wm.Evidence())
			if idx < 0 {
				idx = ruleIdx[wm.Rule]
			}
			if v.d.Message == "" {
				v.d.Message = strings.TrimSpace(wm.Text)
			}
			if e.qSince.After(began) {
				began = e.qSince
			}
		}
		still = min(still, now.Sub(began))
		// A program reports its question (OSC 7501 blocked) before it
		// draws it, up to a second before under load: a key sent then is
		// lost. So the report waits for the screen to show a question,
		// unless none shows for Unconfirmed (a question no rule knows).
		unseen := repAsks && rep.Source == "program status" && !asks && now.Sub(rep.At) < Unconfirmed
		// Until then the agent is at work on what it will ask.
		prev := Working
		switch {
		case e.state == Waiting && !unseen:
			// A question redrawn in place (a choice moved) stays waiting:
			// only a new wait has to settle.
			v.decide(idx, Waiting, strings.Join(why, "; ")+fmt.Sprintf("; still for %s", round(still)))
		case unseen:
			i := v.add("settle", prev, fmt.Sprintf("a question is reported (%s); waiting once the screen shows it (or after %s)", strings.Join(why, "; "), Unconfirmed))
			v.decide(i, prev, v.list[i].Detail)
			v.d.Next = Unconfirmed - now.Sub(rep.At)
		case still >= Settle:
			v.decide(idx, Waiting, strings.Join(why, "; ")+fmt.Sprintf("; still for %s", round(still)))
		default:
			i := v.add("settle", prev, fmt.Sprintf("a question is on its way (%s); waiting once the screen around it has been still for %s", strings.Join(why, "; "), Settle))
			v.decide(i, prev, v.list[i].Detail)
			v.d.Next = Settle - still
		}
	}
	// 4. A fresh report. An agent reports the end of its turn before its
	// last redraw: while the screen still shows it busy, for up to
	// ReportGrace, the turn is not over yet (a lead reading the screen then
	// would miss the answer). Unless the turn's end was decided already: a
	// second report of it (Claude Code's program status after its Stop
	// hook) finds the agent idle, and the redraw it comes before is no new
	// work.
	switch {
	case rep == nil || rep.State == Waiting:
	case rep.State == Idle && busy && now.Sub(rep.At) < ReportGrace && e.state != Idle:
		i := v.add("settle", Working, fmt.Sprintf("%s: %s, the screen still shows work (%s); idle once it is redrawn (or after %s)",
			rep.Source, describeReport(rep, now), bm.Evidence(), ReportGrace))
		v.decide(i, Working, v.list[i].Detail)
		v.d.Next = ReportGrace - now.Sub(rep.At)
	default:
		v.decide(repIdx, rep.State, rep.Source+": "+describeReport(rep, now))
		if rep.State == Idle {
			v.d.Message = rep.Message
		}
	}
	// 5. A busy marker.
	if busy {
		v.decide(ruleIdx[bm.Rule], Working, bm.Evidence())
	}
	// 6. Terminal signals.
	e.terminalSignals(v, s, bellAt, animating)
	// 7. Output, but not the echo of what was typed: output up to
	// EchoWindow after the last input is the program showing the keys.
	n := 0
	var counted []time.Time
	for _, t := range s.Outputs {
		if now.Sub(t) < QuietAfter && (s.LastInput.IsZero() || t.After(s.LastInput.Add(EchoWindow))) {
			n++
			counted = append(counted, t)
		}
	}
	quiet := now.Sub(s.LastOutput)
	if n >= activityWrites {
		i := v.add("activity", Working, fmt.Sprintf("%d writes in the last %s, the last %s ago", n, QuietAfter, round(quiet)))
		if !v.decided {
			v.decide(i, Working, "output: "+v.list[i].Detail)
			v.d.Next = counted[activityWrites-1].Add(QuietAfter).Sub(now)
		}
	} else {
		v.add("activity", "", fmt.Sprintf("%d writes in the last %s, the last %s ago", n, QuietAfter, round(quiet)))
	}
	// 8. Idle.
	if idleShown {
		v.decide(ruleIdx[im.Rule], Idle, fmt.Sprintf("%s; quiet for %s", im.Evidence(), round(quiet)))
	}
	i := v.add("quiet", Idle, fmt.Sprintf("no question, busy marker or report; quiet for %s", round(quiet)))
	v.decide(i, Idle, v.list[i].Detail)

	if s.LastInput.IsZero() {
		v.add("input", "", "none yet")
	} else {
		v.add("input", "", fmt.Sprintf("the last %s ago", round(now.Sub(s.LastInput))))
	}
	v.d.Verdicts = v.list
	return v.d
}

// stillFor is how long the rows around the question (from its row down;
// the bottom six rows when no rule matched) have been unchanged. Output
// elsewhere (Claude Code blinks a dot above its question) does not count.
func (e *Engine) stillFor(s Signals, wm Match, asks bool) time.Duration {
	rows := s.Screen.Lines
	last := s.Screen.lastRow()
	top := max(last-5, 0)
	if asks && wm.Row >= 0 {
		top = wm.Row
	}
	h := fnv.New64a()
	for i := top; i >= 0 && i < len(rows); i++ {
		h.Write([]byte(rows[i]))
		h.Write([]byte{'\n'})
	}
	sum := h.Sum64()
	if sum != e.hash || e.hashAt.IsZero() {
		e.hash, e.hashAt = sum, s.Now
	}
	// Nothing changed after the last output: the rows are as old as it.
	since := e.hashAt
	if s.LastOutput.Before(since) {
		since = s.LastOutput
	}
	return s.Now.Sub(since)
}

// noteBells remembers when the bell count last grew; zero before any bell
// seen ring.
func (e *Engine) noteBells(s Signals) time.Time {
	if s.Bells != e.bells {
		if e.looked {
			e.bellAt = s.Now
		}
		e.bells = s.Bells
	}
	return e.bellAt
}

// noteTitle remembers title changes and reports whether it animates: at
// least two changes within TitleWindow.
func (e *Engine) noteTitle(s Signals) bool {
	if s.Screen.Title != e.title {
		if e.looked {
			e.titleAts = append(e.titleAts, s.Now)
			if len(e.titleAts) > 4 {
				e.titleAts = e.titleAts[1:]
			}
		}
		e.title = s.Screen.Title
	}
	n := 0
	for _, t := range e.titleAts {
		if s.Now.Sub(t) < TitleWindow {
			n++
		}
	}
	return n >= 2
}

// freshReport picks the report in force: the newest of the hook's and the
// program status that is still fresh. It returns a verdict for each.
func (e *Engine) freshReport(s Signals, busy bool, bm Match) (*Report, []Verdict) {
	var out []Verdict
	var best *Report
	for _, src := range []struct {
		name string
		r    *Report
	}{{"hook", s.Hook}, {"program status", s.Status}} {
		r := src.r
		if r == nil {
			out = append(out, Verdict{Signal: src.name, Detail: "no report"})
			continue
		}
		desc := describeReport(r, s.Now)
		stale := ""
		switch {
		case r.At.Before(s.ProcSince):
			stale = "stale: the foreground process changed since"
		case r.Source == "hook" && s.LastInput.After(r.At):
			stale = fmt.Sprintf("stale: input was typed %s after it", round(s.LastInput.Sub(r.At)))
		case r.State != Working && busy && s.LastOutput.After(r.At.Add(ReportGrace)):
			stale = "stale: the screen shows it busy since (" + bm.Evidence() + ")"
		}
		if stale != "" {
			out = append(out, Verdict{Signal: src.name, Detail: desc + "; " + stale})
			continue
		}
		out = append(out, Verdict{Signal: src.name, Says: r.State, Detail: desc})
		if best == nil || !r.At.Before(best.At) {
			best = r
		}
	}
	for i := range out {
		if best != nil && out[i].Says != "" && out[i].Signal != best.Source {
			out[i].Detail += "; the " + best.Source + " is newer"
			out[i].Says = ""
		}
	}
	return best, out
}

// asksPerson finds a notification that asks for the person rather than
// saying the work is done. Compiled when first needed, not at package init
// (see defaultRules).
var asksPerson = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)permission|approv|confirm|allow|needs? (your )?(input|attention|you)`)
})

// terminalSignals weighs the signals that say no state by themselves. A
// notification or bell counts when it came after the last input and the
// output stopped with it; a title that animates is work; a prompt mark
// says where a shell-like program is.
func (e *Engine) terminalSignals(v *verdicts, s Signals, bellAt time.Time, animating bool) {
	now := s.Now
	fresh := func(at time.Time) bool {
		return !at.IsZero() && at.After(s.LastInput) && !at.Before(s.ProcSince) && !s.LastOutput.After(at.Add(ReportGrace))
	}
	switch {
	case s.Notify.Count == 0:
		v.add("notification", "", "none (OSC 9, OSC 777)")
	case fresh(s.Notify.At):
		st := Idle
		if asksPerson().MatchString(s.Notify.Text) {
			st = Waiting
		}
		detail := fmt.Sprintf("OSC %q %s ago", clip(s.Notify.Text, 60), round(now.Sub(s.Notify.At)))
		i := v.add("notification", st, detail)
		v.decide(i, st, "notification: "+detail)
		if v.list[i].Decided {
			v.d.Message = s.Notify.Text
		}
	default:
		v.add("notification", "", fmt.Sprintf("OSC %q %s ago; not since the last input and output", clip(s.Notify.Text, 60), round(now.Sub(s.Notify.At))))
	}
	switch {
	case bellAt.IsZero():
		v.add("bell", "", fmt.Sprintf("%d rung before melmux looked, none since", s.Bells))
	case fresh(bellAt):
		i := v.add("bell", Idle, fmt.Sprintf("rang %s ago with no output since; no question on screen", round(now.Sub(bellAt))))
		v.decide(i, Idle, "bell: "+v.list[i].Detail)
	default:
		v.add("bell", "", fmt.Sprintf("rang %s ago; not since the last input and output", round(now.Sub(bellAt))))
	}
	if animating {
		i := v.add("title", Working, fmt.Sprintf("%q changing (%d changes within %s)", clip(s.Screen.Title, 40), len(e.titleAts), TitleWindow))
		v.decide(i, Working, "title animating: "+v.list[i].Detail)
		if v.list[i].Decided {
			// It stops animating when its second newest change leaves the
			// window, output or not: the next look is due then.
			v.d.Next = e.titleAts[len(e.titleAts)-2].Add(TitleWindow).Sub(now)
		}
	} else {
		v.add("title", "", fmt.Sprintf("%q, not animating", clip(s.Screen.Title, 40)))
	}
	switch {
	case s.Prompt.Count == 0:
		v.add("prompt mark", "", "none (OSC 133)")
	case s.Prompt.At.Before(s.ProcSince):
		v.add("prompt mark", "", fmt.Sprintf("OSC 133;%s from an earlier process", s.Prompt.Text))
	case strings.HasPrefix(s.Prompt.Text, "C"):
		i := v.add("prompt mark", Working, fmt.Sprintf("OSC 133;%s (a command runs) %s ago", s.Prompt.Text, round(now.Sub(s.Prompt.At))))
		v.decide(i, Working, "prompt mark: "+v.list[i].Detail)
	case !s.LastOutput.After(s.Prompt.At.Add(ReportGrace)):
		i := v.add("prompt mark", Idle, fmt.Sprintf("OSC 133;%s (at its prompt) %s ago", s.Prompt.Text, round(now.Sub(s.Prompt.At))))
		v.decide(i, Idle, "prompt mark: "+v.list[i].Detail)
	default:
		v.add("prompt mark", "", fmt.Sprintf("OSC 133;%s %s ago, output since", s.Prompt.Text, round(now.Sub(s.Prompt.At))))
	}
}

// describeReport says a report in words: `Notification (permission_prompt)
// "Claude needs your permission" 12s ago`.
func describeReport(r *Report, now time.Time) string {
	s := r.Detail
	if s == "" {
		s = string(r.State)
	}
	if r.Message != "" && !strings.Contains(s, r.Message) {
		s += fmt.Sprintf(" %q", clip(r.Message, 60))
	}
	return s + " " + round(now.Sub(r.At)) + " ago"
}

// round makes a duration short to read: 120ms, 1.2s, 12s, 3m4s.
func round(d time.Duration) string {
	switch {
	case d < 0:
		d = 0
	case d < time.Second:
		return d.Round(10 * time.Millisecond).String()
	case d < 10*time.Second:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// decidedBy names the signal that decided.
func decidedBy(d Decision) string {
	for _, v := range d.Verdicts {
		if v.Decided {
			return v.Signal
		}
	}
	return ""
}
