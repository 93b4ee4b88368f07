package agentstate

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// fixture is a captured screen with the state a person reads on it and the
// rule that should say so ("" when no rule does: quiet or output decides).
type fixture struct {
	file, kind string
	busy       bool // output still coming (two writes within QuietAfter)
	want       State
	rule       string
}

var fixtures = []fixture{
	{"claude_idle.txt", "claude", false, Idle, "claude.prompt"},
	{"claude_working.txt", "claude", false, Working, "claude.busy"},
	{"claude_waiting.txt", "claude", false, Waiting, "claude.permission"},
	{"claude_waiting.txt", "claude", true, Waiting, "claude.permission"}, // its tool bullet blinks above the question
	{"claude_answered.txt", "claude", true, Working, "claude.busy"},
	{"claude_done.txt", "claude", false, Idle, "claude.prompt"},
	{"codex_idle.txt", "codex", false, Idle, "codex.prompt"},
	{"codex_working.txt", "codex", false, Working, "codex.busy"},
	{"codex_waiting.txt", "codex", false, Waiting, "codex.approval"},
	{"codex_answered.txt", "codex", false, Working, "codex.busy"},
	{"codex_done.txt", "codex", false, Idle, "codex.prompt"},
	{"gemini_idle.txt", "gemini", false, Idle, "gemini.prompt"},
	{"gemini_working.txt", "gemini", false, Working, "gemini.busy"}, // its spinner line says "esc to cancel"
	{"gemini_working.txt", "gemini", true, Working, "gemini.busy"},
	{"gemini_waiting.txt", "gemini", false, Waiting, "gemini.allow"},
	{"gemini_done.txt", "gemini", false, Idle, "gemini.prompt"},
	{"gemini_trust.txt", "gemini", false, Waiting, "gemini.choice"},
	{"aider_waiting.txt", "aider", false, Waiting, "aider.confirm"},
	{"aider_answered.txt", "aider", true, Working, ""},
	{"aider_answered.txt", "aider", false, Idle, ""},
}

// decideFixture runs an engine on a fixture as the server does: a first
// look when the screen appears, and one more when the decision said it
// could change (a question settling).
func decideFixture(t *testing.T, f fixture) Decision {
	t.Helper()
	now := time.Now()
	sig := Signals{Now: now, Running: true, Kind: f.kind, Screen: readScreen(t, f.file), LastOutput: now.Add(-5 * time.Second)}
	if f.busy {
		sig.Outputs = []time.Time{now.Add(-10 * time.Millisecond), now.Add(-200 * time.Millisecond)}
		sig.LastOutput = sig.Outputs[0]
	}
	e := NewEngine(Default())
	d := e.Decide(sig)
	for i := 0; settling(d) && i < 3; i++ {
		sig.Now = sig.Now.Add(d.Next)
		d = e.Decide(sig)
	}
	return d
}

// TestFixturesRegression: every fixture of every kind reads as a person
// reads it, and the evidence names the rule that decided, as explain shows
// it. The rules were written from these very screens, so this is a
// regression check (a change to the rules or the engine that loses one of
// them fails), not a measure of how well the rules read screens they have
// not seen: the counts it logs are agreement with the fixtures, not
// precision and recall.
func TestFixturesRegression(t *testing.T) {
	states := []State{Working, Waiting, Idle}
	count := map[[2]State]int{}
	for _, f := range fixtures {
		d := decideFixture(t, f)
		count[[2]State{f.want, d.State}]++
		name := fmt.Sprintf("%s (%s, busy %v)", f.file, f.kind, f.busy)
		if d.State != f.want {
			t.Errorf("%s: %s (%s), want %s", name, d.State, d.Evidence, f.want)
			continue
		}
		var decided []string
		for _, v := range d.Verdicts {
			if v.Decided {
				decided = append(decided, v.Signal)
			}
		}
		if len(decided) != 1 {
			t.Errorf("%s: decided by %q, want exactly one verdict", name, decided)
			continue
		}
		if f.rule != "" && (decided[0] != "rule "+f.rule || !strings.Contains(d.Evidence, "rule "+f.rule+" matched")) {
			t.Errorf("%s: decided by %s (%q), want rule %s", name, decided[0], d.Evidence, f.rule)
		}
		if f.rule == "" && strings.HasPrefix(decided[0], "rule ") {
			t.Errorf("%s: decided by %s, want quiet or output", name, decided[0])
		}
	}
	for _, s := range states {
		tp, fp, fn := count[[2]State{s, s}], 0, 0
		for _, o := range states {
			if o != s {
				fp += count[[2]State{o, s}]
				fn += count[[2]State{s, o}]
			}
		}
		t.Logf("%-7s %d/%d of its fixtures read so, %d fixtures of another state read so", s, tp, tp+fn, fp)
	}
}

// settling reports a decision that waits for a question to settle.
func settling(d Decision) bool {
	for _, v := range d.Verdicts {
		if v.Decided && v.Signal == "settle" {
			return true
		}
	}
	return false
}
