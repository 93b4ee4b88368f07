package config

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/melmux/melmux/pane/agentstate"
)

// Agents is the [agents] table: how the coding agents in panes are
// recognised and read (kinds and rules over the built-in ones, see
// pane/agentstate/rules.toml), and how their changes of state are told.
type Agents struct {
	Bell          bool   // ring attached terminals when an agent waits on a person or finishes a turn
	OSC9          bool   // and send them an OSC 9 notification
	NotifyCommand string // run with /bin/sh -c on those changes; "" for none
	// Rules are the built-in kinds and rules with the table's over them;
	// nil when the table has none, meaning agentstate.Default(), so that a
	// process that only reads the config does not compile the built-in
	// rules.
	Rules *agentstate.Rules
	// Policy is the [[agents.policy]] rules, which answer the agents'
	// permission questions; nil when the table has none, so that no
	// question is answered for anyone unless a person wrote a rule for
	// it.
	Policy *agentstate.Policy
}

const agentsKeyList = "bell, osc9, notify_command, launchers, [agents.kinds.NAME], [[agents.rules]], [[agents.policy]]"

// defaultAgents are the [agents] defaults: bell and OSC 9 on, the built-in
// rules (nil Rules), no policy (nil Policy: every question is a person's).
func defaultAgents() Agents {
	return Agents{Bell: true, OSC9: true}
}

// parseAgents reads the [agents] table into a, reporting each bad key
// through bad (the key's path under agents, and the message).
func parseAgents(m map[string]any, a *Agents, bad func(key []string, format string, args ...any)) {
	var user agentstate.Spec
	var policy []map[string]any
	for k, v := range m {
		key := []string{k}
		switch k {
		case "bell", "osc9":
			b, ok := v.(bool)
			if !ok {
				bad(key, "must be true or false, not %s", tomlType(v))
				continue
			}
			if k == "bell" {
				a.Bell = b
			} else {
				a.OSC9 = b
			}
		case "notify_command":
			s, ok := v.(string)
			switch {
			case !ok:
				bad(key, "must be a string (a shell command line), not %s", tomlType(v))
			case strings.TrimSpace(s) == "":
				bad(key, "empty; leave it out to run nothing")
			default:
				a.NotifyCommand = s
			}
		case "launchers":
			user.Launchers, _ = stringList(key, v, bad)
		case "kinds":
			kinds, ok := v.(map[string]any)
			if !ok {
				bad(key, "must be a table of kinds ([agents.kinds.NAME]), not %s", tomlType(v))
				continue
			}
			user.Kinds = map[string]agentstate.KindSpec{}
			for name, kv := range kinds {
				if ks, ok := parseKind(append(key, name), kv, bad); ok {
					user.Kinds[name] = ks
				}
			}
		case "rules":
			rules, ok := v.([]map[string]any)
			if !ok {
				bad(key, "must be an array of tables ([[agents.rules]]), not %s", tomlType(v))
				continue
			}
			for i, rm := range rules {
				user.Rules = append(user.Rules, parseRule([]string{k, strconv.Itoa(i)}, rm, bad))
			}
		case "policy":
			var ok bool
			if policy, ok = v.([]map[string]any); !ok {
				bad(key, "must be an array of tables ([[agents.policy]]), not %s", tomlType(v))
			}
		default:
			bad(key, "unknown key (known: %s)", agentsKeyList)
		}
	}
	a.Rules = compileAgents(user, bad)
	if policy != nil {
		a.Policy = parsePolicy(policy, a.Rules.Kinds(), bad)
	}
}

// parsePolicy reads the [[agents.policy]] tables; kinds are the kinds a
// rule may name besides "*". A rule for a kind that does not exist would
// never match, and a deny rule that never matches lets a later allow rule
// answer, so a misspelt kind is an error rather than a rule that is
// silently idle.
func parsePolicy(tables []map[string]any, kinds []string, bad func(key []string, format string, args ...any)) *agentstate.Policy {
	rules := make([]agentstate.PolicyRule, len(tables))
	// Fields already reported (a wrong type), so that NewPolicy's "is
	// missing" does not report them twice.
	type field struct {
		rule int
		name string
	}
	reported := map[field]bool{}
	for i, m := range tables {
		r := &rules[i]
		var decision string
		text := map[string]*string{"name": &r.Name, "kind": &r.Kind, "tool": &r.Tool, "match": &r.Match, "decision": &decision}
		for k, v := range m {
			key := []string{"policy", strconv.Itoa(i), k}
			ptr, known := text[k]
			if !known {
				bad(key, "unknown key (known: name, kind, tool, match, decision)")
				continue
			}
			if s, ok := v.(string); ok {
				*ptr = s
			} else {
				bad(key, "must be a string, not %s", tomlType(v))
				reported[field{i, k}] = true
			}
		}
		r.Decision = agentstate.PolicyDecision(decision)
	}
	p, err := agentstate.NewPolicy(rules)
	if err != nil {
		for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
			var pe *agentstate.PolicyError
			if !errors.As(e, &pe) {
				bad([]string{"policy"}, "%v", e)
				continue
			}
			if f := (field{pe.Index, pe.Field}); !reported[f] {
				bad([]string{"policy", strconv.Itoa(pe.Index), pe.Field}, "%s", pe.Msg)
				reported[f] = true
			}
		}
	}
	for i, r := range rules {
		if r.Kind != "" && r.Kind != "*" && !slices.Contains(kinds, r.Kind) && !reported[field{i, "kind"}] {
			bad([]string{"policy", strconv.Itoa(i), "kind"}, "%q is not a kind (kinds: %s; or \"*\" for every kind)", r.Kind, strings.Join(kinds, ", "))
			p = nil
		}
	}
	return p
}

// compileAgents lays the table's kinds and rules over the built-in ones
// and compiles them; each rule's errors are reported at its own place in
// the table.
func compileAgents(user agentstate.Spec, bad func(key []string, format string, args ...any)) *agentstate.Rules {
	base, err := agentstate.BuiltinSpec()
	if err != nil {
		bad(nil, "the built-in agent rules: %v", err)
		return agentstate.Default()
	}
	merged := agentstate.Merge(base, user)
	// The table's own rules first, so that an error names its place in
	// the table rather than in the merged list.
	own := agentstate.Spec{Launchers: merged.Launchers, Kinds: merged.Kinds}
	builtin := base.Rules
	for i, r := range user.Rules {
		if r.Disabled {
			if !slices.ContainsFunc(builtin, func(b agentstate.RuleSpec) bool { return b.Name == r.Name }) {
				bad([]string{"rules", strconv.Itoa(i), "name"}, "%q is no built-in rule to turn off", r.Name)
			}
			r = agentstate.RuleSpec{Name: r.Name, Kind: "*", State: "idle", Region: "screen", Match: "."} // checked: its name
		}
		own.Rules = append(own.Rules, r)
	}
	failed := false
	for _, s := range [...]agentstate.Spec{own, merged} {
		if _, err := agentstate.Compile(s); err != nil {
			for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
				if se, ok := e.(*agentstate.SpecError); ok {
					bad(se.Path, "%s", se.Msg)
				}
			}
			failed = true
			break
		}
	}
	if failed {
		return agentstate.Default()
	}
	r, _ := agentstate.Compile(merged)
	return r
}

// parseKind reads one [agents.kinds.NAME] table.
func parseKind(key []string, v any, bad func(key []string, format string, args ...any)) (agentstate.KindSpec, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		bad(key, "must be a table ([agents.kinds.%s]), not %s", key[len(key)-1], tomlType(v))
		return agentstate.KindSpec{}, false
	}
	var ks agentstate.KindSpec
	for k, fv := range m {
		fkey := append(append([]string(nil), key...), k)
		switch k {
		case "programs":
			ks.Programs, _ = stringList(fkey, fv, bad)
		case "scripts":
			ks.Scripts, _ = stringList(fkey, fv, bad)
		case "apps":
			ks.Apps, _ = stringList(fkey, fv, bad)
		case "banner":
			if s, ok := fv.(string); ok {
				ks.Banner = s
			} else {
				bad(fkey, "must be a string (an RE2 pattern), not %s", tomlType(fv))
			}
		default:
			bad(fkey, "unknown key (known: programs, scripts, apps, banner)")
		}
	}
	return ks, true
}

// parseRule reads one [[agents.rules]] table.
func parseRule(key []string, m map[string]any, bad func(key []string, format string, args ...any)) agentstate.RuleSpec {
	var r agentstate.RuleSpec
	text := map[string]*string{"name": &r.Name, "kind": &r.Kind, "state": &r.State, "region": &r.Region, "match": &r.Match}
	for k, v := range m {
		fkey := append(append([]string(nil), key...), k)
		switch k {
		case "lines":
			n, ok := v.(int64)
			if !ok {
				bad(fkey, "must be a whole number of rows, not %s", tomlType(v))
				continue
			}
			r.Lines = int(n)
		case "disabled":
			b, ok := v.(bool)
			if !ok {
				bad(fkey, "must be true or false, not %s", tomlType(v))
				continue
			}
			r.Disabled = b
		default:
			field, known := text[k]
			if !known {
				bad(fkey, "unknown key (known: name, kind, state, region, match, lines, disabled)")
				continue
			}
			if s, ok := v.(string); ok {
				*field = s
			} else {
				bad(fkey, "must be a string, not %s", tomlType(v))
			}
		}
	}
	return r
}

// stringList reads an array of strings.
func stringList(key []string, v any, bad func(key []string, format string, args ...any)) ([]string, bool) {
	arr, ok := v.([]any)
	if !ok {
		bad(key, "must be an array of strings, not %s", tomlType(v))
		return nil, false
	}
	out := make([]string, 0, len(arr))
	for _, e := range arr {
		s, ok := e.(string)
		if !ok {
			bad(key, "must be an array of strings; %v is %s", e, tomlType(e))
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}
