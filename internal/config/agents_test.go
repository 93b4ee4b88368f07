package config

import (
	"slices"
	"strings"
	"testing"

	"github.com/melmux/melmux/pane/agentstate"
)

func TestAgentsTable(t *testing.T) {
	src := `[agents]
bell = false
notify_command = "notify-send melmux \"$MELMUX_AGENT_KIND in pane $MELMUX_PANE is $MELMUX_AGENT_STATE\""
launchers = ["tsx"]

[agents.kinds.myagent]
programs = ["myagent"]
banner = '^MyAgent v\d'

[[agents.rules]]
name = "myagent.ask"
kind = "myagent"
state = "waiting"
region = "question"
match = '^Proceed\?'

[[agents.rules]]
name = "claude.title"
disabled = true
`
	cfg, err := Parse([]byte(src), "c.toml")
	if err != nil {
		t.Fatal(err)
	}
	a := cfg.Agents
	if a.Bell || !a.OSC9 || !strings.HasPrefix(a.NotifyCommand, "notify-send melmux") {
		t.Errorf("agents %+v", a)
	}
	if !slices.Contains(a.Rules.Kinds(), "myagent") || slices.Contains(a.Rules.RuleNames(), "claude.title") ||
		!slices.Contains(a.Rules.RuleNames(), "myagent.ask") || !slices.Contains(a.Rules.RuleNames(), "claude.permission") {
		t.Errorf("kinds %v, rules %v", a.Rules.Kinds(), a.Rules.RuleNames())
	}
	if k, _ := a.Rules.KindOfProcs([]agentstate.Proc{{Argv: []string{"tsx", "myagent"}}}); k != "myagent" {
		t.Errorf("tsx running myagent: %q", k)
	}
	if got := a.Rules.Detect("myagent", agentstate.Screen{Lines: []string{"Proceed? [y]", ""}, CursorY: 0}, agentstate.QuietAfter); got != agentstate.Waiting {
		t.Errorf("myagent asking: %s", got)
	}
	if d := Defaults().Agents; !d.Bell || !d.OSC9 || d.NotifyCommand != "" || d.Rules != nil {
		t.Errorf("defaults %+v", d)
	}
}

func TestAgentsTableErrors(t *testing.T) {
	src := `[agents]
bell = "yes"
notify_command = " "
colour = 1

[agents.kinds.x]
programs = "x"
shell = true

[[agents.rules]]
name = "x.ask"
kind = "nobody"
state = "asking"
region = "question"
match = '('

[[agents.rules]]
name = "claude.nope"
disabled = true

[[agents.rules]]
name = "y"
kind = "*"
state = "idle"
region = "bottom"
lines = "many"
`
	_, err := Parse([]byte(src), "c.toml")
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		`c.toml:2: agents.bell: must be true or false, not a string`,
		`c.toml:3: agents.notify_command: empty; leave it out to run nothing`,
		`c.toml:4: agents.colour: unknown key (known: bell, osc9, notify_command, launchers, [agents.kinds.NAME], [[agents.rules]], [[agents.policy]])`,
		`c.toml:7: agents.kinds.x.programs: must be an array of strings, not a string`,
		`c.toml:8: agents.kinds.x.shell: unknown key (known: programs, scripts, apps, banner)`,
		`c.toml:12: agents.rules.0.kind: "nobody" is not a kind (kinds: aider, claude, codex, gemini, x; or "*" for every kind)`,
		`c.toml:13: agents.rules.0.state: "asking" is not waiting, working or idle`,
		"c.toml:15: agents.rules.0.match: \"(\" is not a valid RE2 pattern",
		`c.toml:18: agents.rules.1.name: "claude.nope" is no built-in rule to turn off`,
		`c.toml:26: agents.rules.2.lines: must be a whole number of rows, not a string`,
		`c.toml:21: agents.rules.2.match: is empty: give the RE2 pattern a row must match`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

func TestAgentsPolicy(t *testing.T) {
	src := `[agents.kinds.myagent]
programs = ["myagent"]

[[agents.policy]]
name = "no rm"
kind = "*"
tool = "shell"
match = '^rm '
decision = "deny"

[[agents.policy]]
name = "touch is fine"
kind = "claude"
tool = "Bash"
match = '^touch [\w./-]+$'
decision = "allow"

[[agents.policy]]
kind = "myagent"
tool = "*"
decision = "ask"
`
	cfg, err := Parse([]byte(src), "c.toml")
	if err != nil {
		t.Fatal(err)
	}
	p := cfg.Agents.Policy
	for _, tc := range []struct {
		kind, tool, input string
		want              agentstate.PolicyDecision
		rule              string
	}{
		{"claude", "Bash", "touch a.txt", agentstate.Allow, "touch is fine"},
		{"claude", "Bash", "touch a; rm b", agentstate.Ask, ""},
		{"codex", "exec_command", "rm -rf build", agentstate.Deny, "no rm"},
		{"myagent", "Edit", "a.go", agentstate.Ask, "policy 3"},
	} {
		d, r := p.Decide(tc.kind, tc.tool, tc.input)
		name := ""
		if r != nil {
			name = r.Name
		}
		if d != tc.want || name != tc.rule {
			t.Errorf("%s %s %q: %s by %q, want %s by %q", tc.kind, tc.tool, tc.input, d, name, tc.want, tc.rule)
		}
	}
	// No table, or an [agents] table without policy: nothing is answered.
	for _, src := range []string{"", "[agents]\nbell = false\n"} {
		cfg, err := Parse([]byte(src), "c.toml")
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Agents.Policy != nil {
			t.Errorf("%q: policy %+v", src, cfg.Agents.Policy)
		}
		if d, r := cfg.Agents.Policy.Decide("claude", "Bash", "ls"); d != agentstate.Ask || r != nil {
			t.Errorf("%q: the default policy says %s by %v", src, d, r)
		}
	}
}

func TestAgentsPolicyErrors(t *testing.T) {
	src := `[[agents.policy]]
name = "first"
kind = "claude"
tool = "Bash"
decision = "yes"

[[agents.policy]]
kind = "cluade"
tool = "Bash"
match = '^touch ('
decision = "allow"
when = "always"

[[agents.policy]]
kind = 1
decision = "deny"

[[agents.policy]]
name = "first"
kind = "*"
tool = "*"
decision = "ask"

[[agents.policy]]
kind = "Claude Code"
tool = "*"
decision = "deny"
`
	cfg, err := Parse([]byte(src), "c.toml")
	if err == nil {
		t.Fatal("no error")
	}
	if cfg.Agents.Policy != nil {
		t.Errorf("a bad file gave a policy: %+v", cfg.Agents.Policy)
	}
	want := []string{
		`c.toml:5: agents.policy.0.decision: "yes" is not allow, deny or ask`,
		`c.toml:8: agents.policy.1.kind: "cluade" is not a kind (kinds: aider, claude, codex, gemini; or "*" for every kind)`,
		"c.toml:10: agents.policy.1.match: \"^touch (\" is not a valid RE2 pattern: error parsing regexp: missing closing ): `^touch (`",
		`c.toml:12: agents.policy.1.when: unknown key (known: name, kind, tool, match, decision)`,
		`c.toml:14: agents.policy.2.tool: is missing: give the tool as the agent names it`,
		`c.toml:15: agents.policy.2.kind: must be a string, not an integer`,
		`c.toml:19: agents.policy.3.name: "first" is also policy 1's name`,
		`c.toml:25: agents.policy.4.kind: "Claude Code" is not a kind name`,
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error lacks %q:\n%v", w, err)
		}
	}
	// Each mistake once: a kind of the wrong type is not also missing, nor
	// one that is no kind name also no kind.
	// And the policy is left out whole, which is said once.
	if w := "c.toml:1: agents.policy: left out whole, as one of its rules is wrong: every permission question is a person's"; !strings.Contains(err.Error(), w) {
		t.Errorf("error lacks %q:\n%v", w, err)
	}
	if n := strings.Count(err.Error(), "\n") + 1; n != len(want)+1 {
		t.Errorf("%d problems, want %d:\n%v", n, len(want), err)
	}
	_, err = Parse([]byte("[agents]\npolicy = \"allow\"\n"), "c.toml")
	if err == nil || !strings.Contains(err.Error(), "c.toml:2: agents.policy: must be an array of tables ([[agents.policy]]), not a string") {
		t.Errorf("policy as a string: %v", err)
	}
}
