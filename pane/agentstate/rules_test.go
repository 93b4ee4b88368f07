package agentstate

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestBuiltinRules(t *testing.T) {
	spec, err := BuiltinSpec()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Compile(spec); err != nil {
		t.Fatalf("the built-in rules do not compile (Default does not check their patterns): %v", err)
	}
	r := Default()
	if got := strings.Join(r.Kinds(), " "); got != "aider claude codex gemini" {
		t.Errorf("kinds %q", got)
	}
	names := r.RuleNames()
	for _, want := range []string{"claude.permission", "claude.busy", "claude.prompt", "codex.approval", "codex.busy", "aider.confirm", "any.question"} {
		if !slices.Contains(names, want) {
			t.Errorf("no rule %s among %v", want, names)
		}
	}
}

// config.toml's rules replace built-in ones by name (in their place), turn
// them off, or come after them; its kinds replace built-in ones by name.
func TestMerge(t *testing.T) {
	base, err := BuiltinSpec()
	if err != nil {
		t.Fatal(err)
	}
	over := Spec{
		Launchers: []string{"node", "tsx"},
		Kinds:     map[string]KindSpec{"myagent": {Programs: []string{"myagent"}}, "aider": {Programs: []string{"aider2"}}},
		Rules: []RuleSpec{
			{Name: "claude.busy", Kind: "claude", State: "working", Region: "bottom", Match: `thinking hard`},
			{Name: "claude.title", Disabled: true},
			{Name: "myagent.ask", Kind: "myagent", State: "waiting", Region: "question", Match: `^Proceed\?`},
		},
	}
	r, err := Compile(Merge(base, over))
	if err != nil {
		t.Fatal(err)
	}
	names := r.RuleNames()
	if slices.Contains(names, "claude.title") || names[len(names)-1] != "myagent.ask" || slices.Index(names, "claude.busy") != slices.Index(Default().RuleNames(), "claude.busy") {
		t.Errorf("merged rules %v", names)
	}
	if got := r.Detect("claude", screen(1, "✻ thinking hard", ""), 0); got != Working {
		t.Errorf("the replaced claude.busy: %s", got)
	}
	if got := r.Detect("claude", screen(1, "esc to interrupt", ""), QuietAfter); got != Working {
		t.Errorf("any.interrupt still applies to claude: %s", got)
	}
	if k, _ := r.KindOfProcs([]Proc{{Argv: []string{"aider"}}}); k != "" {
		t.Errorf("aider's replaced kind still knows the program aider")
	}
	if k, _ := r.KindOfProcs([]Proc{{Argv: []string{"tsx", "myagent"}}}); k != "myagent" {
		t.Errorf("an added launcher running an added kind: %q", k)
	}
}

// Every mistake in a spec is reported with where it is and what is allowed.
func TestCompileErrors(t *testing.T) {
	spec := Spec{
		Kinds: map[string]KindSpec{"ok": {Programs: []string{"ok"}}, "bad name": {Programs: []string{"x"}}, "empty": {}, "re": {Banner: "("}, "melmux": {Programs: []string{"m"}}},
		Rules: []RuleSpec{
			{Name: "", Kind: "ok", State: "idle", Region: "bottom", Match: "x"},
			{Name: "a", Kind: "nope", State: "busy", Region: "middle", Match: "(", Lines: -1},
			{Name: "a", Kind: "ok", State: "idle", Region: "bottom", Match: "x"},
			{Name: "b", Kind: "*", State: "idle", Region: "title"},
		},
	}
	_, err := Compile(spec)
	var got []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var se *SpecError
		if !errors.As(e, &se) {
			t.Fatalf("%v is no *SpecError", e)
		}
		got = append(got, se.Error())
	}
	want := []string{
		`kinds.bad name: "bad name" is not a usable kind name (letters, digits, '-' and '_'; not "melmux")`,
		`kinds.empty: says nothing to recognise the kind by: give programs, scripts, apps or banner`,
		`kinds.melmux: "melmux" is not a usable kind name (letters, digits, '-' and '_'; not "melmux")`,
		"kinds.re.banner: \"(\" is not a valid RE2 pattern: error parsing regexp: missing closing ): `(`",
		`rules.0.name: "" is not a rule name: give one such as "claude.permission" (letters, digits, '.', '-', '_')`,
		`rules.1.kind: "nope" is not a kind (kinds: bad name, empty, melmux, ok, re; or "*" for every kind)`,
		`rules.1.state: "busy" is not waiting, working or idle`,
		`rules.1.region: "middle" is not a region (regions: question, prompt_line, bottom, top, screen, title)`,
		`rules.1.lines: -1 is out of range (1 to 500; 0 for the region's default)`,
		"rules.1.match: \"(\" is not a valid RE2 pattern: error parsing regexp: missing closing ): `(`",
		`rules.2.name: rule "a" is given twice`,
		`rules.3.match: is empty: give the RE2 pattern a row must match`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Names are ASCII letters, digits, '-' and '_' (rules also '.'): a letter
// outside ASCII, a space, a newline or nothing at all is refused.
func TestNames(t *testing.T) {
	for _, c := range []struct {
		s          string
		kind, rule bool
	}{
		{"claude", true, true}, {"my_agent-2", true, true}, {"claude.permission", false, true},
		{"", false, false}, {"café", false, false}, {"a b", false, false}, {"a\n", false, false}, {"a/b", false, false},
	} {
		if got := validName(c.s); got != c.kind {
			t.Errorf("validName(%q) = %v, want %v", c.s, got, c.kind)
		}
		if got := validRuleName(c.s); got != c.rule {
			t.Errorf("validRuleName(%q) = %v, want %v", c.s, got, c.rule)
		}
	}
}
