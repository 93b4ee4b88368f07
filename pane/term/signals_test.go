package term

import (
	"strings"
	"testing"
)

// Notifications, prompt marks and program status reports are kept, each
// the last of its kind with a count, in either string terminator, split
// across writes or not; they draw nothing.
func TestSignals(t *testing.T) {
	tm, replies := newTerm(40, 5, "a\x1b]9;build done\x07b\x1b]133;A\x1b\\c")
	tm.Write([]byte("\x1b]7501;state=work"))
	tm.Write([]byte("ing:app=codex\x1b\\\x1b]777;notify;Claude;needs you\x07\x1b]133;D;0\x07"))
	if got := tm.Lines()[0]; got != "abc" {
		t.Errorf("screen %q, want abc: signals draw nothing", got)
	}
	sig := tm.Signals()
	for _, c := range []struct {
		name  string
		got   Signal
		text  string
		count uint64
	}{
		{"notify", sig.Notify, "777;notify;Claude;needs you", 2},
		{"prompt", sig.Prompt, "D;0", 2},
		{"status", sig.Status, "state=working:app=codex", 1},
	} {
		if c.got.Text != c.text || c.got.Count != c.count || c.got.At.IsZero() {
			t.Errorf("%s: %+v, want text %q, count %d and a time", c.name, c.got, c.text, c.count)
		}
	}
	if len(*replies) != 0 {
		t.Errorf("replies %q to reports, want none", *replies)
	}
	// Other OSC strings (colours, hyperlinks, an OSC 777 that is no
	// notification) are not signals.
	tm.Write([]byte("\x1b]8;;http://x\x07\x1b]777;preexec\x07\x1b]11;?\x07"))
	if tm.Signals() != sig {
		t.Errorf("signals changed by OSC 8/777 preexec/11: %+v", tm.Signals())
	}
}

// A program asking whether the terminal takes program status reports (OSC
// 7501 ; ?, as Claude Code does) is told yes, in order with the other
// replies; the question is no report.
func TestProgramStatusQueryAnswered(t *testing.T) {
	tm, replies := newTerm(40, 5, "\x1b]7501;?\x07\x1b[c")
	got := strings.Join(*replies, "")
	if !strings.HasPrefix(got, "\x1b]7501;?\x1b\\\x1b[?") {
		t.Errorf("replies %q, want the OSC 7501 answer before the DA1 answer", got)
	}
	if tm.Signals().Status.Count != 0 {
		t.Errorf("the query counted as a report: %+v", tm.Signals().Status)
	}
}
