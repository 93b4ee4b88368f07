package agentstate

import (
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// State is an agent's state as the contract names it.
type State string

const (
	Working State = "working"
	Waiting State = "waiting" // asking a person something
	Idle    State = "idle"    // done with its turn
	Exited  State = "exited"
)

// QuietAfter is how long an agent's output must be still before a screen
// without a question or an interrupt hint counts as idle: agents pause
// between tool calls without being done.
const QuietAfter = 1500 * time.Millisecond

// tail is how many of the screen's last non-empty lines the rules look at.
const tail = 12

// kinds maps a program name to the agent kind; anything else is no agent.
var kinds = map[string]string{
	"claude": "claude", "claude-code": "claude",
	"codex":  "codex",
	"aider":  "aider",
	"gemini": "gemini",
	"mel":    "mel",
}

// Kind returns the agent kind of a program (a path or a name, as in argv[0]
// or /proc/PID/comm), or "" when it is not a known coding agent.
func Kind(program string) string {
	base := strings.ToLower(filepath.Base(strings.TrimSpace(program)))
	return kinds[base]
}

// Rules for every kind: the agents share most of their prompts' wording.
var (
	// menuRules find a question asked with a menu of choices under it
	// (Claude Code, Codex, Gemini): it is the bottom of the screen while it
	// waits, and the program erases it once answered.
	menuRules = []*regexp.Regexp{
		regexp.MustCompile(`(?i)do you want to (proceed|make this edit|create|run|allow)`),
		regexp.MustCompile(`(?i)would you like to (run|make|proceed|apply|allow)`),
		regexp.MustCompile(`(?i)\besc to cancel\b`),
		regexp.MustCompile(`(?i)yes, allow (once|always)`),
		regexp.MustCompile(`(?i)no, and tell \w+ what to do differently`),
		regexp.MustCompile(`(?i)allow (command|edit|this|execution)\?`),
		regexp.MustCompile(`(?i)use arrow keys to navigate`),
		regexp.MustCompile(`(?i)press enter to (continue|confirm)`),
	}
	// lineRules find a question asked on one line with the answer typed
	// after it (aider's "(Y)es/(N)o ... [Yes]: "): it waits only while the
	// cursor is on that line; the answer and the work that follows move it
	// on, and the question stays in the scrollback.
	lineRules = []*regexp.Regexp{
		regexp.MustCompile(`\(Y\)es/\(N\)o`),
		regexp.MustCompile(`(?i)\bapprove\b.*\?\s*$`),
		regexp.MustCompile(`(?i)\[y/n\]\s*:?\s*$`),
	}
	workingRules = []*regexp.Regexp{
		regexp.MustCompile(`(?i)\b(esc|ctrl\+c) to interrupt\b`),
		regexp.MustCompile(`^\s*[✳✽✶✻✢·✺*]\s*\S.*…`),
		regexp.MustCompile(`(?i)…\s*\(.*tokens`),
		regexp.MustCompile(`^\s*[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]\s`),
	}
)

// maxMenu is how many rows a question's choices and hints may take under
// it: anything further down is output that came after the question.
const maxMenu = 10

// Screen is what Detect reads: the screen rows as text and the cursor's row.
type Screen struct {
	Lines        []string
	CursorY      int
	CursorHidden bool // a hidden cursor says nothing about where input goes
}

// Detect returns the state of an agent whose process is running, from its
// screen and how long its output has been quiet.
func Detect(s Screen, quiet time.Duration) State {
	if asking(s) {
		return Waiting
	}
	for _, l := range lastLines(s.Lines, tail) {
		for _, r := range workingRules {
			if r.MatchString(l) {
				return Working
			}
		}
	}
	if quiet < QuietAfter {
		return Working
	}
	return Idle
}

// asking reports whether a question is the live bottom of the screen: a
// menu question with at most maxMenu rows of choices under it and the
// cursor (unless hidden) in or next to that block, or a one-line question
// with the cursor on its line. A question with output after it was
// answered.
func asking(s Screen) bool {
	last := len(s.Lines) - 1
	for last >= 0 && strings.TrimSpace(s.Lines[last]) == "" {
		last--
	}
	for q := last; q >= 0 && q >= last-maxMenu; q-- {
		l := s.Lines[q]
		if s.CursorY == q && matchAny(lineRules, l) {
			return true
		}
		near := s.CursorHidden || s.CursorY >= q-1 && s.CursorY <= last+1
		if near && matchAny(menuRules, l) {
			return true
		}
	}
	return false
}

func matchAny(rules []*regexp.Regexp, l string) bool {
	for _, r := range rules {
		if r.MatchString(l) {
			return true
		}
	}
	return false
}

// lastLines returns up to n of the last non-empty lines.
func lastLines(lines []string, n int) []string {
	var out []string
	for i := len(lines) - 1; i >= 0 && len(out) < n; i-- {
		if strings.TrimSpace(lines[i]) != "" {
			out = append(out, lines[i])
		}
	}
	return out
}
