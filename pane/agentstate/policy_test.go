package agentstate

import (
	"errors"
	"strings"
	"testing"
)

func mustPolicy(t *testing.T, rules ...PolicyRule) *Policy {
	t.Helper()
	p, err := NewPolicy(rules)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// policySays is what Decide says, as "decision by name" ("ask by -" for no
// rule).
func policySays(p *Policy, kind, tool, input string) string {
	d, r := p.Decide(kind, tool, input)
	name := "-"
	if r != nil {
		name = r.Name
	}
	return string(d) + " by " + name
}

func TestPolicyFirstMatchWins(t *testing.T) {
	p := mustPolicy(t,
		PolicyRule{Name: "no rm", Kind: "*", Tool: "shell", Match: `^rm `, Decision: Deny},
		PolicyRule{Name: "ask git push", Kind: "*", Tool: "shell", Match: `^git push`, Decision: Ask},
		PolicyRule{Kind: "claude", Tool: "*", Decision: Allow},
	)
	for _, tc := range []struct{ kind, tool, input, want string }{
		{"claude", "Bash", "rm -rf build", "deny by no rm"},
		{"claude", "Bash", "git push origin main", "ask by ask git push"},
		{"claude", "Bash", "make", "allow by policy 3"},
		{"claude", "Edit", "main.go", "allow by policy 3"},
		{"codex", "exec_command", "rm -rf build", "deny by no rm"},
		{"codex", "exec_command", "make", "ask by -"}, // no rule: a person answers
	} {
		if got := policySays(p, tc.kind, tc.tool, tc.input); got != tc.want {
			t.Errorf("%s %s %q: %s, want %s", tc.kind, tc.tool, tc.input, got, tc.want)
		}
	}
}

func TestPolicyNoRulesAsks(t *testing.T) {
	var none *Policy
	for name, p := range map[string]*Policy{"nil": none, "empty": mustPolicy(t)} {
		if d, r := p.Decide("claude", "Bash", "ls"); d != Ask || r != nil {
			t.Errorf("%s policy: %s, %v", name, d, r)
		}
	}
}

func TestPolicyKindAndTool(t *testing.T) {
	p := mustPolicy(t,
		PolicyRule{Name: "claude bash", Kind: "claude", Tool: "bash", Decision: Allow},
		PolicyRule{Name: "any shell", Kind: "*", Tool: "Shell", Decision: Deny},
		PolicyRule{Name: "gemini anything", Kind: "gemini", Tool: "*", Decision: Allow},
	)
	for _, tc := range []struct{ kind, tool, want string }{
		{"claude", "Bash", "allow by claude bash"}, // case does not matter
		{"claude", "BASH", "allow by claude bash"},
		{"codex", "Bash", "deny by any shell"}, // another kind: the family rule
		{"codex", "exec_command", "deny by any shell"},
		{"codex", "shell", "deny by any shell"},
		{"gemini", "run_shell_command", "deny by any shell"},
		{"gemini", "Shell", "deny by any shell"},
		{"gemini", "replace", "allow by gemini anything"},
		{"codex", "apply_patch", "ask by -"}, // not a shell
		{"claude", "Edit", "ask by -"},
		{"aider", "", "ask by -"},
	} {
		if got := policySays(p, tc.kind, tc.tool, "x"); got != tc.want {
			t.Errorf("%s %s: %s, want %s", tc.kind, tc.tool, got, tc.want)
		}
	}
	// The family is the name "shell", not any shell tool's name: a rule
	// for Claude's Bash is not one for Codex's exec_command.
	bash := mustPolicy(t, PolicyRule{Kind: "*", Tool: "Bash", Decision: Allow})
	if got := policySays(bash, "codex", "exec_command", "ls"); got != "ask by -" {
		t.Errorf("Bash rule, codex exec_command: %s", got)
	}
	// Kinds are melmux's names, compared exactly.
	if got := policySays(p, "Claude", "Bash", "x"); got != "deny by any shell" {
		t.Errorf("kind Claude: %s", got)
	}
}

func TestPolicyMatch(t *testing.T) {
	p := mustPolicy(t,
		PolicyRule{Name: "touch", Kind: "*", Tool: "shell", Match: `^touch [\w./-]+$`, Decision: Allow},
		PolicyRule{Name: "tests", Kind: "*", Tool: "Edit", Match: `_test\.go`, Decision: Allow},
		PolicyRule{Name: "rest", Kind: "*", Tool: "*", Match: ``, Decision: Deny},
	)
	for _, tc := range []struct{ tool, input, want string }{
		{"Bash", "touch a/b.txt", "allow by touch"},
		{"Bash", "touch a; rm -rf ~", "deny by rest"},
		{"Bash", "touch a\nrm -rf ~", "deny by rest"}, // $ is the end of the input
		{"Bash", " touch a", "deny by rest"},
		{"Edit", "pane/agentstate/policy_test.go", "allow by tests"}, // not anchored
		{"Edit", "pane/agentstate/policy.go", "deny by rest"},
		{"Edit", "", "deny by rest"}, // "" matches anything, nothing too
	} {
		if got := policySays(p, "claude", tc.tool, tc.input); got != tc.want {
			t.Errorf("%s %q: %s, want %s", tc.tool, tc.input, got, tc.want)
		}
	}
}

func TestPolicyNames(t *testing.T) {
	given := []PolicyRule{
		{Kind: "*", Tool: "a", Decision: Allow},
		{Name: "named", Kind: "*", Tool: "b", Decision: Deny},
		{Kind: "*", Tool: "c", Decision: Ask},
	}
	p := mustPolicy(t, given...)
	var names []string
	for _, r := range p.Rules {
		names = append(names, r.Name)
	}
	if got := strings.Join(names, ","); got != "policy 1,named,policy 3" {
		t.Errorf("names %s", got)
	}
	if given[0].Name != "" {
		t.Errorf("NewPolicy named the caller's rule: %q", given[0].Name)
	}
	if _, r := p.Decide("x", "c", ""); r != &p.Rules[2] {
		t.Errorf("Decide's rule %p is not the policy's %p", r, &p.Rules[2])
	}
}

// A rule put in a Policy by hand has no compiled pattern and no checked
// decision: it must never answer.
func TestPolicyUncheckedRuleIsSkipped(t *testing.T) {
	p := &Policy{Rules: []PolicyRule{{Kind: "*", Tool: "*", Match: `^rm`, Decision: Allow}, {Kind: "*", Tool: "*", Decision: Allow}}}
	if got := policySays(p, "claude", "Bash", "ls"); got != "ask by -" {
		t.Errorf("unchecked rules: %s", got)
	}
}

func TestPolicyErrors(t *testing.T) {
	_, err := NewPolicy([]PolicyRule{
		{Name: "ok", Kind: "claude", Tool: "Bash", Decision: Allow},
		{Name: "bad one", Kind: "claude code", Tool: "Ba sh", Match: `(`, Decision: "maybe"},
		{},
		{Name: "ok", Kind: "*", Tool: "*", Decision: Deny},
		{Name: "policy 6", Kind: "*", Tool: "*", Decision: Deny},
		{Kind: "*", Tool: "*", Decision: Deny},
		{Name: "a\nb", Kind: "*", Tool: "*", Decision: Deny},
	})
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		`policy 2 "bad one": kind: "claude code" is not a kind name (letters, digits, '-' and '_'), nor "*" for every kind`,
		`policy 2 "bad one": tool: "Ba sh" is not a tool name`,
		`policy 2 "bad one": match: "(" is not a valid RE2 pattern: error parsing regexp: missing closing ): ` + "`(`",
		`policy 2 "bad one": decision: "maybe" is not allow, deny or ask`,
		`policy 3: kind: is missing: give the agent's kind (claude, codex, gemini, aider, ...) or "*" for every kind`,
		`policy 3: tool: is missing: give the tool as the agent names it (Bash, exec_command, run_shell_command...), "shell" for every agent's shell, or "*" for every tool`,
		`policy 3: decision: is missing: give allow, deny or ask`,
		`policy 4 "ok": name: "ok" is also policy 1's name`,
		`policy 6: name: "policy 6" is also policy 5's name`,
		`policy 7 "a\nb": name: "a\nb" is no name`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	var pe *PolicyError
	if !errors.As(err, &pe) || pe.Index != 1 || pe.Name != "bad one" || pe.Field != "kind" {
		t.Errorf("first PolicyError %+v", pe)
	}
	if n := len(err.(interface{ Unwrap() []error }).Unwrap()); n != 10 {
		t.Errorf("%d errors, want 10:\n%v", n, err)
	}
}
