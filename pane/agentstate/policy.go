package agentstate

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// PolicyDecision is what a policy says to an agent's permission question.
// (Decision is the pane's state with its evidence, engine.go.)
type PolicyDecision string

// The decisions. Ask is also the answer when no rule matches, so that a
// policy only ever answers what a person wrote a rule for.
const (
	Allow PolicyDecision = "allow" // answer yes
	Deny  PolicyDecision = "deny"  // answer no
	Ask   PolicyDecision = "ask"   // leave the question to a person
)

// PolicyRule is one [[agents.policy]] rule: a decision for the questions
// of one kind of agent about one tool, whose input matches a pattern.
type PolicyRule struct {
	// Name names the rule in the audit log and in explanations. NewPolicy
	// gives an unnamed rule "policy N", N its place in the list counting
	// from 1, so that every decision can be traced to its rule.
	Name string
	// Kind is the agent's kind as melmux names it ("claude", "codex",
	// "gemini", "aider", ...), or "*" for every kind.
	Kind string
	// Tool is the tool as the agent names it ("Bash", "Edit",
	// "exec_command", "run_shell_command"), compared without case, or "*"
	// for every tool. "shell" also names every agent's shell tool —
	// Claude Code's Bash, Codex's exec_command and shell, Gemini CLI's
	// run_shell_command (shown as Shell) — so that one rule covers the
	// command lines of every agent without knowing how each CLI spells
	// its tool.
	Tool string
	// Match is an RE2 pattern the tool's input must match: the command
	// line for a shell tool, the file path for an edit. It is not
	// anchored, and "" matches anything. The input is the whole command
	// line, so `^touch ` also matches "touch a; rm -rf ~": an allow rule
	// should anchor both ends and leave out what the shell reads as more
	// commands, as `^touch [\w./-]+$` does ($ without the m flag is the
	// end of the input, and . does not match a newline).
	Match    string
	Decision PolicyDecision

	re      *regexp.Regexp // Match compiled
	checked bool           // made by NewPolicy
}

// Policy is an ordered list of rules; the first that matches a question
// decides it. It is read-only once made by NewPolicy, so every pane
// shares one; a nil *Policy has no rules.
type Policy struct {
	Rules []PolicyRule
}

// PolicyError is one thing wrong in a policy's rule: which rule (Index
// from 0, its Name as given), which field, and what is wrong and allowed.
type PolicyError struct {
	Index int
	Name  string
	Field string // "name", "kind", "tool", "match" or "decision"
	Msg   string
}

func (e *PolicyError) Error() string {
	rule := "policy " + strconv.Itoa(e.Index+1)
	if e.Name != "" {
		rule += " " + strconv.Quote(e.Name)
	}
	return rule + ": " + e.Field + ": " + e.Msg
}

// NewPolicy checks and compiles rules, in their order. The error joins a
// *PolicyError for everything wrong, so that a config file's every mistake
// is reported at once. The rules are copied: unnamed ones get their
// "policy N" names in the copy only.
func NewPolicy(rules []PolicyRule) (*Policy, error) {
	var errs []error
	p := &Policy{Rules: make([]PolicyRule, len(rules))}
	named := map[string]int{} // name → its rule's index
	for i, r := range rules {
		given := r.Name
		bad := func(field, format string, args ...any) {
			errs = append(errs, &PolicyError{Index: i, Name: given, Field: field, Msg: fmt.Sprintf(format, args...)})
		}
		if r.Name == "" {
			r.Name = "policy " + strconv.Itoa(i+1)
		}
		switch j, dup := named[r.Name]; {
		case strings.TrimSpace(r.Name) == "" || strings.IndexFunc(r.Name, unicode.IsControl) >= 0:
			bad("name", "%q is no name: give printable text, or leave it out for \"policy %d\"", r.Name, i+1)
		case dup:
			bad("name", "%q is also policy %d's name: the audit log tells rules apart by name", r.Name, j+1)
		default:
			named[r.Name] = i
		}
		switch {
		case r.Kind == "":
			bad("kind", "is missing: give the agent's kind (claude, codex, gemini, aider, ...) or \"*\" for every kind")
		case r.Kind != "*" && !validName(r.Kind):
			bad("kind", "%q is not a kind name (letters, digits, '-' and '_'), nor \"*\" for every kind", r.Kind)
		}
		switch {
		case r.Tool == "":
			bad("tool", "is missing: give the tool as the agent names it (Bash, exec_command, run_shell_command...), \"shell\" for every agent's shell, or \"*\" for every tool")
		case strings.IndexFunc(r.Tool, unicode.IsSpace) >= 0:
			bad("tool", "%q is not a tool name: tools' names hold no spaces", r.Tool)
		}
		if r.Match != "" {
			re, err := regexp.Compile(r.Match)
			if err != nil {
				bad("match", "%q is not a valid RE2 pattern: %v", r.Match, err)
			}
			r.re = re
		}
		switch r.Decision {
		case Allow, Deny, Ask:
		case "":
			bad("decision", "is missing: give allow, deny or ask")
		default:
			bad("decision", "%q is not allow, deny or ask", r.Decision)
		}
		r.checked = true
		p.Rules[i] = r
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return p, nil
}

// Decide answers a question from an agent of kind about tool with input:
// the decision of the first rule that matches, and that rule; Ask and nil
// when none does. A rule that did not come through NewPolicy is skipped,
// so that an unchecked rule (its pattern not compiled, its decision not
// checked) never answers for a person.
func (p *Policy) Decide(kind, tool, input string) (PolicyDecision, *PolicyRule) {
	if p == nil {
		return Ask, nil
	}
	for i := range p.Rules {
		r := &p.Rules[i]
		if r.checked && r.matches(kind, tool, input) {
			return r.Decision, r
		}
	}
	return Ask, nil
}

func (r *PolicyRule) matches(kind, tool, input string) bool {
	if r.Kind != "*" && r.Kind != kind {
		return false
	}
	if r.Tool != "*" && !strings.EqualFold(r.Tool, tool) && !(strings.EqualFold(r.Tool, "shell") && isShellTool(tool)) {
		return false
	}
	return r.re == nil || r.re.MatchString(input)
}

// isShellTool says tool is an agent's tool that runs a command line: the
// names the "shell" family stands for.
func isShellTool(tool string) bool {
	for _, name := range [...]string{"Bash", "exec_command", "shell", "run_shell_command"} {
		if strings.EqualFold(tool, name) {
			return true
		}
	}
	return false
}
