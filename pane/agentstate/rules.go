package agentstate

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
)

// Spec is the text form of the kinds and rules, as rules.toml and the
// [agents] table of config.toml write them.
type Spec struct {
	Launchers []string            `toml:"launchers"`
	Kinds     map[string]KindSpec `toml:"kinds"`
	Rules     []RuleSpec          `toml:"rules"`
}

// KindSpec says how a kind of agent is recognised.
type KindSpec struct {
	Programs []string `toml:"programs"` // program names (argv[0] or the executable, without the directory)
	Scripts  []string `toml:"scripts"`  // parts of a path or package a launcher runs
	Apps     []string `toml:"apps"`     // app= of its program status reports (OSC 7501)
	Banner   string   `toml:"banner"`   // a pattern of a screen row that only it draws
}

// RuleSpec is one screen rule.
type RuleSpec struct {
	Name     string `toml:"name"`
	Kind     string `toml:"kind"`   // a kind, or "*" for all
	State    string `toml:"state"`  // waiting | working | idle
	Region   string `toml:"region"` // see Regions
	Match    string `toml:"match"`  // an RE2 pattern
	Lines    int    `toml:"lines"`  // rows of the region: bottom and top 12, under a question 10 by default
	Disabled bool   `toml:"disabled"`
}

// Regions are the parts of the screen a rule can look at; see rules.toml.
var Regions = []string{"question", "prompt_line", "bottom", "top", "screen", "title"}

// ruleStates are the states a rule can say.
var ruleStates = []State{Waiting, Working, Idle}

// defaultLines is the size of the bottom and top regions when a rule gives
// none.
const defaultLines = 12

// SpecError is one thing wrong in a Spec: Path names it (["rules", "3",
// "match"], ["kinds", "claude", "banner"]), Msg says what is wrong and what
// is allowed.
type SpecError struct {
	Path []string
	Msg  string
}

func (e *SpecError) Error() string { return strings.Join(e.Path, ".") + ": " + e.Msg }

// Rules are the compiled kinds and rules. They are read-only once made, so
// every pane shares them.
type Rules struct {
	launchers []string
	kinds     []*kind // in name order, so that a lookup is stable
	rules     []*rule
}

type kind struct {
	name     string
	programs []string
	scripts  []string
	apps     []string
	banner   *pattern
}

type rule struct {
	name   string
	kind   string
	state  State
	region string
	re     *pattern
	lines  int
}

// pattern is an RE2 pattern compiled when first matched: a server whose
// panes run no agent matches none, and compiling the built-in ones would
// be part of every server's start.
type pattern struct {
	re func() *regexp.Regexp
}

// checkedPattern checks src as regexp.Compile does (most of its cost:
// compiling fails only where the parse fails), with its error.
func checkedPattern(src string) (*pattern, error) {
	if _, err := syntax.Parse(src, syntax.Perl); err != nil {
		return nil, err
	}
	return trustedPattern(src)
}

// trustedPattern does not check src: for the built-in rules, which
// TestBuiltinRules compiles with checkedPattern.
func trustedPattern(src string) (*pattern, error) {
	return &pattern{re: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(src) })}, nil
}

func (p *pattern) MatchString(s string) bool { return p.re().MatchString(s) }

// defaultRules compiles the built-in rules when first asked, not at package
// init, which every melmux process (each short CLI call as much as the
// server) would pay before main; their patterns are compiled when first
// matched.
var defaultRules = sync.OnceValue(func() *Rules {
	spec, err := BuiltinSpec()
	if err != nil {
		panic("agentstate: built-in rules.toml: " + err.Error())
	}
	r, err := compile(spec, trustedPattern)
	if err != nil {
		panic("agentstate: built-in rules.toml: " + err.Error())
	}
	return r
})

// Default returns the built-in rules.
func Default() *Rules { return defaultRules() }

// BuiltinSpec is rules.toml decoded: builtinSpec, which
// TestBuiltinSpecIsRulesTOML makes from rules.toml, so that no server's
// start decodes it. The error is always nil.
func BuiltinSpec() (Spec, error) {
	spec := Spec{Launchers: slices.Clone(builtinSpec.Launchers), Kinds: map[string]KindSpec{}, Rules: slices.Clone(builtinSpec.Rules)}
	for n, k := range builtinSpec.Kinds {
		spec.Kinds[n] = KindSpec{Programs: slices.Clone(k.Programs), Scripts: slices.Clone(k.Scripts), Apps: slices.Clone(k.Apps), Banner: k.Banner}
	}
	return spec, nil
}

// Merge lays over on base: a kind of the same name replaces the base's, a
// rule of the same name replaces the base's in its place (or removes it
// when disabled), other rules are added after base's; launchers are added.
func Merge(base, over Spec) Spec {
	out := Spec{Launchers: slices.Clone(base.Launchers), Kinds: map[string]KindSpec{}}
	for _, l := range over.Launchers {
		if !slices.Contains(out.Launchers, l) {
			out.Launchers = append(out.Launchers, l)
		}
	}
	for n, k := range base.Kinds {
		out.Kinds[n] = k
	}
	for n, k := range over.Kinds {
		out.Kinds[n] = k
	}
	byName := map[string]RuleSpec{}
	for _, r := range over.Rules {
		byName[r.Name] = r
	}
	for _, r := range base.Rules {
		if o, ok := byName[r.Name]; ok {
			r = o
			delete(byName, r.Name)
		}
		if !r.Disabled {
			out.Rules = append(out.Rules, r)
		}
	}
	for _, r := range over.Rules {
		if _, left := byName[r.Name]; left && !r.Disabled {
			out.Rules = append(out.Rules, r)
		}
	}
	return out
}

// Compile checks a spec and compiles it. The error joins a *SpecError for
// everything wrong.
func Compile(spec Spec) (*Rules, error) { return compile(spec, checkedPattern) }

// compile is Compile with newPattern making the patterns.
func compile(spec Spec, newPattern func(string) (*pattern, error)) (*Rules, error) {
	var errs []error
	bad := func(msg string, path ...string) { errs = append(errs, &SpecError{Path: path, Msg: msg}) }
	r := &Rules{launchers: lowerAll(spec.Launchers)}
	names := make([]string, 0, len(spec.Kinds))
	for n := range spec.Kinds {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		ks := spec.Kinds[n]
		if !validName(n) || n == KindMelmux {
			bad(fmt.Sprintf("%q is not a usable kind name (letters, digits, '-' and '_'; not %q)", n, KindMelmux), "kinds", n)
			continue
		}
		k := &kind{name: n, programs: lowerAll(ks.Programs), scripts: ks.Scripts, apps: ks.Apps}
		if ks.Banner != "" {
			re, err := newPattern(ks.Banner)
			if err != nil {
				bad(fmt.Sprintf("%q is not a valid RE2 pattern: %v", ks.Banner, err), "kinds", n, "banner")
				continue
			}
			k.banner = re
		}
		if len(k.programs)+len(k.scripts)+len(k.apps) == 0 && k.banner == nil {
			bad("says nothing to recognise the kind by: give programs, scripts, apps or banner", "kinds", n)
			continue
		}
		r.kinds = append(r.kinds, k)
	}
	seen := map[string]bool{}
	for i, rs := range spec.Rules {
		at := func(field string) []string { return []string{"rules", fmt.Sprint(i), field} }
		switch {
		case !validRuleName(rs.Name):
			bad(fmt.Sprintf("%q is not a rule name: give one such as \"claude.permission\" (letters, digits, '.', '-', '_')", rs.Name), at("name")...)
			continue
		case seen[rs.Name]:
			bad(fmt.Sprintf("rule %q is given twice", rs.Name), at("name")...)
			continue
		}
		seen[rs.Name] = true
		ru := &rule{name: rs.Name, kind: rs.Kind, state: State(rs.State), region: rs.Region, lines: rs.Lines}
		if rs.Kind != "*" && spec.Kinds[rs.Kind].isZero() {
			bad(fmt.Sprintf("%q is not a kind (kinds: %s; or \"*\" for every kind)", rs.Kind, strings.Join(names, ", ")), at("kind")...)
		}
		if !slices.Contains(ruleStates, ru.state) {
			bad(fmt.Sprintf("%q is not waiting, working or idle", rs.State), at("state")...)
		}
		if !slices.Contains(Regions, rs.Region) {
			bad(fmt.Sprintf("%q is not a region (regions: %s)", rs.Region, strings.Join(Regions, ", ")), at("region")...)
		}
		if rs.Lines < 0 || rs.Lines > 500 {
			bad(fmt.Sprintf("%d is out of range (1 to 500; 0 for the region's default)", rs.Lines), at("lines")...)
		}
		re, err := newPattern(rs.Match)
		switch {
		case rs.Match == "":
			bad("is empty: give the RE2 pattern a row must match", at("match")...)
		case err != nil:
			bad(fmt.Sprintf("%q is not a valid RE2 pattern: %v", rs.Match, err), at("match")...)
		}
		ru.re = re
		r.rules = append(r.rules, ru)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return r, nil
}

func (k KindSpec) isZero() bool {
	return len(k.Programs)+len(k.Scripts)+len(k.Apps) == 0 && k.Banner == ""
}

// validName: a kind's name is one or more of A-Z a-z 0-9 _ -.
func validName(s string) bool { return s != "" && strings.IndexFunc(s, notNameRune("_-")) < 0 }

// validRuleName: a rule's name may also hold dots.
func validRuleName(s string) bool { return s != "" && strings.IndexFunc(s, notNameRune("_.-")) < 0 }

// notNameRune reports the runes outside ASCII letters, digits and extra.
func notNameRune(extra string) func(rune) bool {
	return func(c rune) bool {
		return !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.ContainsRune(extra, c))
	}
}

func lowerAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.ToLower(s)
	}
	return out
}

// Kinds lists the kinds' names.
func (r *Rules) Kinds() []string {
	out := make([]string, len(r.kinds))
	for i, k := range r.kinds {
		out[i] = k.name
	}
	return out
}

// RuleNames lists the rules' names in order.
func (r *Rules) RuleNames() []string {
	out := make([]string, len(r.rules))
	for i, ru := range r.rules {
		out[i] = ru.name
	}
	return out
}

// forKind lists the rules that apply to a kind, in order; "" gives every
// rule.
func (r *Rules) forKind(k string) []*rule {
	var out []*rule
	for _, ru := range r.rules {
		if ru.kind == "*" || ru.kind == k || k == "" {
			out = append(out, ru)
		}
	}
	return out
}
