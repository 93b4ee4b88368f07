package term

import (
	"strings"
	"time"
)

// Programs tell the terminal about themselves with a few OSC strings that
// draw nothing. They are kept here, as the last of each kind with when it
// came, for whoever wants to know what a program in a pane is doing (agent
// states):
//
//   - OSC 9 ; TEXT and OSC 777 ; notify ; TITLE ; BODY ask for a desktop
//     notification (iTerm2's and rxvt's forms);
//   - OSC 133 ; A|B|C|D ... are shell-integration prompt marks: A a prompt
//     starts, B the command line starts, C the command runs, D it finished;
//   - OSC 7501 ; key=value:key=value... is the program status protocol,
//     which Claude Code and Codex speak: state=working|blocked|done|idle,
//     app=NAME, kind=, msg= (base64). Claude Code asks first (OSC 7501 ; ?)
//     and reports only to a terminal that answers, so the answer is given.

// replyProgramStatus answers OSC 7501 ; ? : the terminal takes program status
// reports.
var replyProgramStatus = []byte("\x1b]7501;?\x1b\\")

// Signal is the last OSC string of one kind a program sent.
type Signal struct {
	Text  string    // what followed the OSC number and its ';'
	At    time.Time // when it came
	Count uint64    // how many of its kind came so far; 0 for none
}

// Signals are the last notification, prompt mark and program status a
// program sent to the terminal.
type Signals struct {
	Notify Signal // OSC 9 or OSC 777 ; notify (Text holds "9;..." or "777;...")
	Prompt Signal // OSC 133 (Text is the mark and its options: "A", "D;0")
	Status Signal // OSC 7501 (Text is the report: "state=working:app=codex")
}

// Signals returns the last OSC signals the program sent.
func (t *Terminal) Signals() Signals {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.signals
}

// oscSignalLocked keeps an OSC string that is a signal (see Signals); n is
// its number and payload what follows "n;". Anything else is ignored.
func (t *Terminal) oscSignalLocked(n int, payload []byte) {
	var sig *Signal
	text := strings.ToValidUTF8(string(payload), "\uFFFD")
	switch n {
	case 9:
		sig, text = &t.signals.Notify, "9;"+text
	case 777:
		if !strings.HasPrefix(text, "notify;") {
			return
		}
		sig, text = &t.signals.Notify, "777;"+text
	case 133:
		sig = &t.signals.Prompt
	case 7501:
		if strings.HasPrefix(text, "?") {
			t.replies = append(t.replies, replyProgramStatus...)
			return
		}
		sig = &t.signals.Status
	default:
		return
	}
	sig.Text, sig.At = text, time.Now()
	sig.Count++
}
