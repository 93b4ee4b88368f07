package agentstate

import "time"

// State is an agent's state, named as list-panes, wait --state and the
// agents' tools show it.
type State string

const (
	Working State = "working"
	Waiting State = "waiting" // asking a person something
	Idle    State = "idle"    // done with its turn
	Exited  State = "exited"
)

// Timing of the engine's rules.
const (
	// QuietAfter is the window of recent output: output in it counts as
	// work (with at least activityWrites writes), and a screen without a
	// question, a busy marker or a report is idle only once the output has
	// been still for it. Agents pause between tool calls without being done.
	QuietAfter = 1500 * time.Millisecond
	// Settle is how long the screen around a question must be still before
	// the pane counts as waiting: Claude Code ignores a key that comes too
	// soon after its question appears, and a program reports a question
	// (OSC 7501 blocked) before it has drawn it.
	Settle = 300 * time.Millisecond
	// ReportGrace is how long after an idle or waiting report a screen may
	// still show the agent busy (a redraw on its way) before the busy
	// screen overrules the report.
	ReportGrace = 300 * time.Millisecond
	// TitleWindow is the window in which title changes count as an
	// animation (a working agent's spinner).
	TitleWindow = 2 * time.Second
	// Unconfirmed is how long a program's report of a question (OSC 7501
	// blocked) waits for a rule to see the question on screen before it
	// counts on its own.
	Unconfirmed = 3 * time.Second
	// EchoWindow is how long after input the output counts as its echo
	// (the program showing what was typed), not as work.
	EchoWindow = 150 * time.Millisecond
)

// activityWrites is how many writes within QuietAfter count as work: one
// write after a long quiet (a clock, a blink, an echo) does not.
const activityWrites = 2

// Detect returns the state of an agent whose process is running, from its
// screen alone and how long its output has been quiet, under the built-in
// rules of every kind: a question at the live bottom of the screen is
// waiting, a busy marker is working, recent output is working, else idle.
// The Engine weighs every signal; Detect is for callers that only have a
// screen.
func Detect(s Screen, quiet time.Duration) State { return defaultRules().Detect("", s, quiet) }

// Detect is the package's Detect under r, for a kind ("" for every kind's
// rules).
func (r *Rules) Detect(kindName string, s Screen, quiet time.Duration) State {
	_, first := r.Apply(kindName, s)
	if _, ok := first[Waiting]; ok {
		return Waiting
	}
	if _, ok := first[Working]; ok {
		return Working
	}
	if quiet < QuietAfter {
		return Working
	}
	return Idle
}
