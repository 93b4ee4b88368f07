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
	waitingRules = []*regexp.Regexp{
		regexp.MustCompile(`(?i)do you want to (proceed|make this edit|create|run|allow)`),
		regexp.MustCompile(`(?i)\besc to cancel\b`),
		regexp.MustCompile(`(?i)yes, allow (once|always)`),
		regexp.MustCompile(`(?i)no, and tell \w+ what to do differently`),
		regexp.MustCompile(`\(Y\)es/\(N\)o`),
		regexp.MustCompile(`(?i)allow (command|edit|this)\?`),
		regexp.MustCompile(`(?i)\bapprove\b.*\?\s*$`),
		regexp.MustCompile(`(?i)\[y/n\]\s*$`),
		regexp.MustCompile(`(?i)use arrow keys to navigate`),
		regexp.MustCompile(`(?i)press enter to (continue|confirm)`),
	}
	workingRules = []*regexp.Regexp{
		regexp.MustCompile(`(?i)\b(esc|ctrl\+c) to interrupt\b`),
		regexp.MustCompile(`^\s*[✳✽✶✻✢·✺*]\s*\S.*…`),
		regexp.MustCompile(`(?i)…\s*\(.*tokens`),
		regexp.MustCompile(`^\s*[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]\s`),
	}
)

// Detect returns the state of an agent whose process is running, from its
// screen lines and how long its output has been quiet.
func Detect(lines []string, quiet time.Duration) State {
	last := lastLines(lines, tail)
	for _, l := range last {
		for _, r := range waitingRules {
			if r.MatchString(l) {
				return Waiting
			}
		}
	}
	for _, l := range last {
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
