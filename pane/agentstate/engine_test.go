package agentstate

import (
	"strings"
	"testing"
	"time"
)

// A clock and the screens of a made-up session with a known kind, so that
// each test says what happens when.
var t0 = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

var (
	promptScreen = screen(9, "● Done.", "", "────", "❯ ", "────", "  ? for shortcuts")
	busyScreen   = screen(9, "● Reading files", "✻ Thinking… (3s)", "────", "❯ ", "────", "  esc to interrupt")
	// askScreen is Claude Code's question, its tool's bullet on row 1.
	askScreen = func(bullet string) Screen {
		return screen(8, bullet+" Running rm -rf build", " Bash command", "   rm -rf build", " Do you want to proceed?",
			" ❯ 1. Yes", "   2. No", "", " Esc to cancel")
	}
)

func screen(cursor int, rows ...string) Screen {
	return Screen{Lines: append(rows, "", ""), CursorY: cursor}
}

// quietSignals are the signals of a running claude whose output stopped at
// ms and was typed into at never.
func quietSignals(now time.Time, s Screen, lastOutput time.Time) Signals {
	return Signals{Now: now, Running: true, Kind: "claude", Screen: s, LastOutput: lastOutput}
}

func decided(d Decision) string { return decidedBy(d) }

// A change to idle ends a turn when the agent said it worked (a report, a
// rule) or asked, not when it only printed: a program drawing its first
// screen has no turn to finish.
func TestEndsTurn(t *testing.T) {
	e := NewEngine(Default())
	drawing := quietSignals(at(100), promptScreen, at(100))
	drawing.Outputs = []time.Time{at(100), at(50)}
	if d := e.Decide(drawing); d.State != Working {
		t.Fatalf("drawing: %s", d.State)
	}
	if d := e.Decide(quietSignals(at(5000), promptScreen, at(100))); d.State != Idle || d.EndsTurn {
		t.Fatalf("drawn: %s, ends a turn %v", d.State, d.EndsTurn)
	}
	e.Decide(quietSignals(at(6000), busyScreen, at(6000)))
	if d := e.Decide(quietSignals(at(9000), promptScreen, at(6000))); d.State != Idle || !d.EndsTurn {
		t.Fatalf("after a busy marker: %s, ends a turn %v", d.State, d.EndsTurn)
	}
}

// A question counts as waiting only once the rows from it down have been
// still for Settle: output elsewhere (the bullet blinking above it) does
// not delay it, a change in the question does.
func TestQuestionSettlesBeforeWaiting(t *testing.T) {
	e := NewEngine(Default())
	if d := e.Decide(quietSignals(at(0), busyScreen, at(0))); d.State != Working {
		t.Fatalf("busy screen: %s", d.State)
	}
	d := e.Decide(quietSignals(at(100), askScreen("●"), at(100)))
	if d.State != Working || d.Next != Settle || decided(d) != "settle" {
		t.Fatalf("the question just drawn: %s next %s by %s, want working until it settles in %s", d.State, d.Next, decided(d), Settle)
	}
	// The bullet blinks: output, but not in the question.
	d = e.Decide(quietSignals(at(300), askScreen(" "), at(300)))
	if d.State != Working || d.Next != 100*time.Millisecond {
		t.Fatalf("200ms in, the bullet blinking: %s next %s, want working for 100ms more", d.State, d.Next)
	}
	d = e.Decide(quietSignals(at(400), askScreen(" "), at(300)))
	if d.State != Waiting || !d.Changed || d.From != Working || decided(d) != "rule claude.permission" {
		t.Fatalf("settled: %s (changed %v from %s) by %s", d.State, d.Changed, d.From, decided(d))
	}
	want := `rule claude.permission matched "Do you want to proceed?" on row 4; still for 300ms`
	if d.Evidence != want || d.Message != "Do you want to proceed?" {
		t.Errorf("evidence %q message %q, want %q", d.Evidence, d.Message, want)
	}
	// Redrawn in place (the choice moved): still waiting, not settling again.
	moved := askScreen("●")
	moved.Lines[4], moved.Lines[5] = "   1. Yes", " ❯ 2. No"
	if d := e.Decide(quietSignals(at(450), moved, at(450))); d.State != Waiting || d.Changed {
		t.Errorf("the choice moved: %s (changed %v), want still waiting", d.State, d.Changed)
	}
	// Answered: the question goes, the agent works again.
	if d := e.Decide(quietSignals(at(900), busyScreen, at(900))); d.State != Working || d.From != Waiting {
		t.Errorf("answered: %s from %s, want working", d.State, d.From)
	}
	h := e.History()
	var seq []string
	for _, tr := range h {
		seq = append(seq, string(tr.To))
	}
	if got := strings.Join(seq, " "); got != "working waiting working" {
		t.Errorf("history %q", got)
	}
}

// A program reports its question (OSC 7501 blocked) before drawing it: the
// rows at the bottom were still for long, but waiting still needs Settle
// from the report, and the question drawn after it starts the time again.
func TestReportedQuestionSettlesFromTheReport(t *testing.T) {
	e := NewEngine(Default())
	e.Decide(quietSignals(at(0), promptScreen, at(0)))
	blocked := &Report{Source: "program status", State: Waiting, Detail: "OSC 7501 blocked kind=permission", At: at(5000)}
	sig := quietSignals(at(5010), promptScreen, at(5000))
	sig.Status = blocked
	if d := e.Decide(sig); d.State == Waiting {
		t.Fatalf("waiting 10ms after the report, before the question is drawn: %s", d.Evidence)
	}
	sig = quietSignals(at(5100), askScreen("●"), at(5100))
	sig.Status = blocked
	d := e.Decide(sig)
	if d.State == Waiting || d.Next != Settle {
		t.Fatalf("the question drawn 100ms after the report: %s next %s, want %s more", d.State, d.Next, Settle)
	}
	sig.Now = at(5400)
	d = e.Decide(sig)
	if d.State != Waiting || !strings.HasPrefix(d.Evidence, "program status: OSC 7501 blocked kind=permission 400ms ago; rule claude.permission matched") {
		t.Fatalf("settled: %s %q", d.State, d.Evidence)
	}
	// Under load the question comes a second after the report, the rows
	// at the bottom still all the while: no waiting before it shows.
	e = NewEngine(Default())
	sig = quietSignals(at(6000), promptScreen, at(5000))
	sig.Status = blocked
	d = e.Decide(sig)
	if d.State == Waiting || d.Next != Unconfirmed-time.Second || !strings.Contains(d.Evidence, "waiting once the screen shows it") {
		t.Fatalf("reported a second ago, not shown: %s next %s (%s)", d.State, d.Next, d.Evidence)
	}
	// A question no rule knows counts once the report is Unconfirmed old.
	sig.Now = at(8000)
	if d := e.Decide(sig); d.State != Waiting || d.Evidence != "program status: OSC 7501 blocked kind=permission 3s ago; still for 3s" {
		t.Fatalf("reported 3s ago: %s %q", d.State, d.Evidence)
	}
}

// A hook's report decides while fresh: input typed after it makes it stale
// and the screen decides again; a report from before the foreground process
// changed counts for nothing.
func TestHookReportFreshness(t *testing.T) {
	e := NewEngine(Default())
	custom := screen(2, "my-agent> what now?", "")
	hook := &Report{Source: "hook", State: Waiting, Detail: "Notification (permission_prompt)", Message: "Claude needs your permission", At: at(1000)}
	sig := quietSignals(at(1500), custom, at(900))
	sig.Hook = hook
	d := e.Decide(sig)
	want := `hook: Notification (permission_prompt) "Claude needs your permission" 500ms ago; still for 500ms`
	if d.State != Waiting || d.Evidence != want || d.Message != "Claude needs your permission" {
		t.Fatalf("fresh waiting hook: %s %q, want waiting %q", d.State, d.Evidence, want)
	}
	sig.LastInput, sig.Now = at(2000), at(2100)
	if d := e.Decide(sig); d.State != Idle || !strings.Contains(verdict(d, "hook").Detail, "stale: input was typed 1s after it") {
		t.Fatalf("answered: %s, hook verdict %+v", d.State, verdict(d, "hook"))
	}
	sig = quietSignals(at(3000), custom, at(900))
	sig.Hook = &Report{Source: "hook", State: Working, At: at(1000)}
	sig.ProcSince = at(2500)
	if d := e.Decide(sig); d.State != Idle || !strings.Contains(verdict(d, "hook").Detail, "foreground process changed") {
		t.Fatalf("a report from the process before: %s, %+v", d.State, verdict(d, "hook"))
	}
}

// An idle report (a turn ended) with the screen still showing the agent
// busy waits for the redraw, for up to ReportGrace; if the screen goes on
// showing work after that, the report was not about this turn (Codex
// reports the side turn that names its thread).
func TestIdleReportOverruledByABusyScreen(t *testing.T) {
	e := NewEngine(Default())
	sig := quietSignals(at(1100), busyScreen, at(1100))
	sig.Hook = &Report{Source: "hook", State: Idle, Detail: "agent-turn-complete", At: at(1000)}
	if d := e.Decide(sig); d.State != Working || decided(d) != "settle" || d.Next != 200*time.Millisecond {
		t.Fatalf("within the grace, the screen still busy: %s by %s next %s, want working until the redraw", d.State, decided(d), d.Next)
	}
	sig.Now, sig.LastOutput = at(1400), at(1400)
	if d := e.Decide(sig); d.State != Working || decided(d) != "rule claude.busy" {
		t.Fatalf("busy after the grace: %s by %s", d.State, decided(d))
	}
	// Redrawn within the grace: idle, by the report.
	sig = quietSignals(at(1100), promptScreen, at(1100))
	sig.Hook = &Report{Source: "hook", State: Idle, Detail: "Stop", At: at(1000)}
	if d := NewEngine(Default()).Decide(sig); d.State != Idle || decided(d) != "hook" {
		t.Fatalf("redrawn: %s by %s", d.State, decided(d))
	}
	// Never redrawn: the report holds once the grace passed.
	sig = quietSignals(at(1400), busyScreen, at(1000))
	sig.Hook = &Report{Source: "hook", State: Idle, Detail: "Stop", At: at(1000)}
	if d := NewEngine(Default()).Decide(sig); d.State != Idle || decided(d) != "hook" {
		t.Fatalf("a busy screen that never changed: %s by %s", d.State, decided(d))
	}
}

// A second report of a turn's end that the engine decided already (Claude
// Code's program status "done" after its Stop hook, with its footer not yet
// redrawn) keeps the agent idle: before, the pane went idle, working, idle,
// and a lead waiting for the turn could see it end twice.
func TestASecondEndReportKeepsTheAgentIdle(t *testing.T) {
	e := NewEngine(Default())
	sig := quietSignals(at(1400), busyScreen, at(1000))
	sig.Hook = &Report{Source: "hook", State: Idle, Detail: "Stop", At: at(1000)}
	if d := e.Decide(sig); d.State != Idle || decided(d) != "hook" {
		t.Fatalf("the Stop hook: %s by %s", d.State, decided(d))
	}
	sig.Now, sig.LastOutput = at(1550), at(1500)
	sig.Status = &Report{Source: "program status", State: Idle, Detail: "done", At: at(1500)}
	if d := e.Decide(sig); d.State != Idle || d.Changed {
		t.Fatalf("the program status after it, the screen not yet redrawn: %s (changed %v) by %s, want idle still", d.State, d.Changed, decided(d))
	}
}

// The newest fresh report wins, whoever sent it.
func TestNewestReportWins(t *testing.T) {
	for _, tc := range []struct {
		hookAt, statusAt int
		want             State
		by               string
	}{
		{1000, 2000, Working, "program status"},
		{2000, 1000, Idle, "hook"},
	} {
		sig := quietSignals(at(3000), promptScreen, at(2000))
		sig.Hook = &Report{Source: "hook", State: Idle, Detail: "Stop", At: at(tc.hookAt)}
		sig.Status = &Report{Source: "program status", State: Working, Detail: "OSC 7501 working", At: at(tc.statusAt)}
		d := NewEngine(Default()).Decide(sig)
		if d.State != tc.want || decided(d) != tc.by {
			t.Errorf("hook at %d, status at %d: %s by %s, want %s by %s", tc.hookAt, tc.statusAt, d.State, decided(d), tc.want, tc.by)
		}
	}
}

// Output is work only with activityWrites writes within QuietAfter: one
// write after a quiet (a clock, a blink) is not. Work ends QuietAfter after
// the writes, which Next says.
func TestActivityIsDebounced(t *testing.T) {
	plain := screen(1, "$ make", "")
	sig := Signals{Now: at(5000), Running: true, Kind: "aider", Screen: plain, LastOutput: at(4900), Outputs: []time.Time{at(4900)}}
	if d := NewEngine(Default()).Decide(sig); d.State != Idle {
		t.Fatalf("one write: %s, want idle", d.State)
	}
	sig.Outputs = []time.Time{at(4900), at(4800)}
	d := NewEngine(Default()).Decide(sig)
	if d.State != Working || decided(d) != "activity" || d.Next != 1300*time.Millisecond {
		t.Fatalf("two writes: %s by %s next %s, want working for 1.3s", d.State, decided(d), d.Next)
	}
	// The echo of keys typed is no work.
	sig.LastInput = at(4790)
	if d := NewEngine(Default()).Decide(sig); d.State != Idle {
		t.Fatalf("two writes echoing input: %s, want idle", d.State)
	}
}

// Notifications and bells that come after the last input, with the output
// stopped, end the work: waiting when they ask for the person, else idle.
// The title animating is work; prompt marks say where a program is.
func TestTerminalSignals(t *testing.T) {
	plain := screen(1, "> ", "")
	base := func() Signals {
		return Signals{Now: at(3000), Running: true, Kind: "gemini", Screen: plain, LastOutput: at(2000),
			Outputs: []time.Time{at(2000), at(1990)}, LastInput: at(500)}
	}
	for _, tc := range []struct {
		name string
		set  func(*Signals, *Engine)
		want State
		by   string
	}{
		{"osc 9 asking", func(s *Signals, _ *Engine) {
			s.Notify = Mark{Text: "9;Gemini needs your permission", At: at(2000), Count: 1}
			s.Now = at(2100)
		}, Waiting, "notification"},
		{"osc 777 done", func(s *Signals, _ *Engine) {
			s.Notify = Mark{Text: "777;notify;Gemini;turn complete", At: at(2000), Count: 1}
			s.Now = at(2100)
		}, Idle, "notification"},
		{"a notification before the input", func(s *Signals, _ *Engine) {
			s.Notify = Mark{Text: "9;done", At: at(400), Count: 1}
			s.Now = at(2100)
		}, Working, "activity"},
		{"bell", func(s *Signals, e *Engine) {
			e.Decide(*s)
			s.Bells, s.Now = 1, at(2050)
		}, Idle, "bell"},
		{"title animating", func(s *Signals, e *Engine) {
			s.Now, s.Outputs = at(5000), nil
			for i, title := range []string{"⠋ gemini", "⠙ gemini", "⠹ gemini"} {
				s.Screen.Title, s.Now = title, at(5000+100*i)
				e.Decide(*s)
			}
		}, Working, "title"},
		{"prompt mark C", func(s *Signals, _ *Engine) {
			s.Prompt, s.Now, s.Outputs = Mark{Text: "C", At: at(2000), Count: 3}, at(5000), nil
		}, Working, "prompt mark"},
		{"prompt mark A", func(s *Signals, _ *Engine) {
			s.Prompt, s.Outputs = Mark{Text: "A", At: at(2000), Count: 4}, nil
		}, Idle, "prompt mark"},
	} {
		e := NewEngine(Default())
		sig := base()
		tc.set(&sig, e)
		if d := e.Decide(sig); d.State != tc.want || decided(d) != tc.by {
			t.Errorf("%s: %s by %s (%s), want %s by %s", tc.name, d.State, decided(d), d.Evidence, tc.want, tc.by)
		}
	}
}

// A melmux agent's report decides for it; an ended process is exited.
func TestMelmuxReportAndExit(t *testing.T) {
	sig := Signals{Now: at(1000), Running: true, Kind: KindMelmux, Screen: busyScreen, LastOutput: at(900),
		Mel: &Report{Source: "melmux agent", State: Idle, Detail: "idle (turn 2)", At: at(500)}}
	e := NewEngine(Default())
	if d := e.Decide(sig); d.State != Idle || d.Evidence != "melmux agent reported idle (turn 2) 500ms ago" {
		t.Fatalf("melmux agent: %s %q", d.State, d.Evidence)
	}
	sig.Running, sig.Exit = false, "exit code 0"
	if d := e.Decide(sig); d.State != Exited || d.Evidence != "the process ended (exit code 0)" || !d.Changed || d.From != Idle {
		t.Fatalf("exited: %+v", d)
	}
}

func verdict(d Decision, signal string) Verdict {
	for _, v := range d.Verdicts {
		if v.Signal == signal {
			return v
		}
	}
	return Verdict{}
}

// A title that stopped changing stops counting as work once its changes
// are older than TitleWindow, with no output to make anyone look again:
// the decision says when (Gemini CLI sets its title once per state, and a
// quick turn — Working, then Ready — left the pane working for good).
func TestTitleAnimationEnds(t *testing.T) {
	e := NewEngine(Default())
	sig := Signals{Running: true, Kind: "gemini", Screen: screen(1, "> ", ""), LastOutput: at(1000)}
	var d Decision
	for i, title := range []string{"◇  Ready", "✦  Working…", "◇  Ready"} {
		sig.Screen.Title, sig.Now, sig.LastOutput = title, at(5000+100*i), at(5000+100*i)
		d = e.Decide(sig)
	}
	if d.State != Working || decided(d) != "title" {
		t.Fatalf("title changed twice: %s by %s (%s), want working by title", d.State, decided(d), d.Evidence)
	}
	if want := at(5100).Add(TitleWindow).Sub(sig.Now); d.Next != want {
		t.Fatalf("next look in %s, want %s (when the first change leaves the window)", d.Next, want)
	}
	sig.Now = sig.Now.Add(d.Next)
	if d = e.Decide(sig); d.State != Idle {
		t.Errorf("title still since %s: %s (%s), want idle", TitleWindow, d.State, d.Evidence)
	}
}

// A question on screen that nobody answered wins over a report that came
// with it or after it: Codex's approval stayed on screen for 30 s while its
// notify program's agent-turn-complete, run after the approval was drawn,
// said idle. Only input typed after the question showed (an answer) lets a
// newer report decide again.
func TestQuestionOnScreenOutranksAReportAfterIt(t *testing.T) {
	ask := readScreen(t, "codex_waiting.txt")
	for _, tc := range []struct {
		name string
		rep  *Report
	}{
		{"a hook's idle report", &Report{Source: "hook", State: Idle, Detail: "agent-turn-complete", At: at(1200)}},
		{"a program status idle report", &Report{Source: "program status", State: Idle, Detail: "OSC 7501 done", At: at(1200)}},
	} {
		e := NewEngine(Default())
		sig := Signals{Now: at(1000), Running: true, Kind: "codex", Screen: ask, LastOutput: at(1000)}
		e.Decide(sig) // the question is drawn
		sig.Hook, sig.Status = nil, nil
		if tc.rep.Source == "hook" {
			sig.Hook = tc.rep
		} else {
			sig.Status = tc.rep
		}
		for _, now := range []int{1250, 1400, 5000, 31000} {
			sig.Now = at(now)
			d := e.Decide(sig)
			if now >= 1400 && (d.State != Waiting || decided(d) != "rule codex.approval") {
				t.Errorf("%s %dms after the question showed: %s by %s (%s), want waiting by the question", tc.name, now-1000, d.State, decided(d), d.Evidence)
			}
		}
		// The person answers: the report after the answer decides.
		sig.LastInput = at(31100)
		tc.rep.At = at(31200)
		sig.Now = at(31300)
		if d := e.Decide(sig); d.State != tc.rep.State {
			t.Errorf("%s after an answer: %s by %s, want %s", tc.name, d.State, decided(d), tc.rep.State)
		}
	}
	// A working report after the question says the agent went on: a
	// permission hook answered it, typing nothing, and Claude Code may draw
	// the question a moment longer; waiting then would have a policy type
	// its key into whatever comes next.
	for _, src := range []string{"hook", "program status"} {
		e := NewEngine(Default())
		sig := Signals{Now: at(1000), Running: true, Kind: "codex", Screen: ask, LastOutput: at(1000)}
		e.Decide(sig)
		rep := &Report{Source: src, State: Working, Detail: "went on", At: at(1200)}
		if src == "hook" {
			sig.Hook = rep
		} else {
			sig.Status = rep
		}
		sig.Now = at(1600)
		if d := e.Decide(sig); d.State != Working {
			t.Errorf("a %s working report after an unanswered question: %s by %s (%s), want working", src, d.State, decided(d), d.Evidence)
		}
	}
}
