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
		`c.toml:4: agents.colour: unknown key (known: bell, osc9, notify_command, launchers, [agents.kinds.NAME], [[agents.rules]])`,
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
