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
	var misread map[int]bool // rules with a field that could not be read, by index in the table
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
			misread = map[int]bool{}
			for i, rm := range rules {
				r, ok := parseRule([]string{k, strconv.Itoa(i)}, rm, bad)
				user.Rules = append(user.Rules, r)
				if !ok {
					misread[i] = true
				}
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
	a.Rules = compileAgents(user, misread, bad)
	if policy != nil {
		failed := false
		a.Policy = parsePolicy(policy, a.Rules.Kinds(), func(key []string, format string, args ...any) {
			failed = true
			bad(key, format, args...)
		})
		if failed {
			// Unlike other entries, a policy rule is not left out alone:
			// without a deny rule that came before it, an allow rule
			// would answer questions it was never meant to.
			a.Policy = nil
			bad([]string{"policy"}, "left out whole, as one of its rules is wrong: every permission question is a person's until it is fixed")
		}
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
// and compiles them. Each rule's errors are reported at its own place in
// the table, and the kind or rule they are about is left out: the others
// apply. misread are the rules (by index in the table) with a field that
// could not be read, which are checked for the rest but left out too.
func compileAgents(user agentstate.Spec, misread map[int]bool, bad func(key []string, format string, args ...any)) *agentstate.Rules {
	base, err := agentstate.BuiltinSpec()
	if err != nil {
		bad(nil, "the built-in agent rules: %v", err)
		return agentstate.Default()
	}
	// at[j] is the index in the table of user.Rules[j], which shrinks as
	// rules are left out.
	at := make([]int, len(user.Rules))
	for i := range at {
		at[i] = i
	}
	drop := map[int]bool{} // indexes in the table
	for i, r := range user.Rules {
		if r.Disabled && !slices.ContainsFunc(base.Rules, func(b agentstate.RuleSpec) bool { return b.Name == r.Name }) {
			bad([]string{"rules", strconv.Itoa(i), "name"}, "%q is no built-in rule to turn off", r.Name)
			drop[i] = true
		}
	}
	// A kind left out can make a rule of it wrong in turn: each round
	// leaves out what the last found, until nothing is wrong. Every rule
	// and kind is left out at most once, so the rounds end.
	for first := true; ; first = false {
		merged := agentstate.Merge(base, user)
		// The table's own rules alone first, so that an error names its
		// place in the table rather than in the merged list. A rule that
		// turns a built-in one off is checked by its name only (above).
		own := agentstate.Spec{Launchers: merged.Launchers, Kinds: merged.Kinds}
		for _, r := range user.Rules {
			if r.Disabled {
				r = agentstate.RuleSpec{Name: r.Name, Kind: "*", State: "idle", Region: "screen", Match: "."}
			}
			own.Rules = append(own.Rules, r)
		}
		_, err := agentstate.Compile(own)
		kinds := len(user.Kinds)
		if err != nil {
			for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
				se, ok := e.(*agentstate.SpecError)
				if !ok {
					continue
				}
				path := se.Path
				switch {
				case len(path) >= 3 && path[0] == "rules":
					j, _ := strconv.Atoi(path[1])
					path = slices.Concat([]string{"rules", strconv.Itoa(at[j])}, path[2:])
					drop[at[j]] = true
				case len(path) >= 2 && path[0] == "kinds":
					delete(user.Kinds, path[1])
				}
				bad(path, "%s", se.Msg)
			}
		}
		if first {
			for i := range misread {
				drop[i] = true
			}
		}
		kept, keptAt := user.Rules[:0:0], at[:0:0]
		for j, r := range user.Rules {
			if !drop[at[j]] {
				kept, keptAt = append(kept, r), append(keptAt, at[j])
			}
		}
		if len(kept) == len(user.Rules) && len(user.Kinds) == kinds {
			if err != nil {
				// Wrong, and nothing of the table's to leave out.
				bad(nil, "the agent rules: %v; the built-in rules apply alone", err)
				return agentstate.Default()
			}
			break
		}
		user.Rules, at = kept, keptAt
	}
	r, err := agentstate.Compile(agentstate.Merge(base, user))
	if err != nil {
		bad(nil, "the agent rules with the table's over the built-in ones: %v; the built-in rules apply alone", err)
		return agentstate.Default()
	}
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

// parseRule reads one [[agents.rules]] table; ok is false when a field of
// it could not be read.
func parseRule(key []string, m map[string]any, bad func(key []string, format string, args ...any)) (r agentstate.RuleSpec, ok bool) {
	ok = true
	bad0 := bad
	bad = func(key []string, format string, args ...any) {
		ok = false
		bad0(key, format, args...)
	}
	text := map[string]*string{"name": &r.Name, "kind": &r.Kind, "state": &r.State, "region": &r.Region, "match": &r.Match}
	for k, v := range m {
		fkey := append(append([]string(nil), key...), k)
		switch k {
		case "lines":
			n, isInt := v.(int64)
			if !isInt {
				bad(fkey, "must be a whole number of rows, not %s", tomlType(v))
				continue
			}
			r.Lines = int(n)
		case "disabled":
			b, isBool := v.(bool)
			if !isBool {
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
			if s, isStr := v.(string); isStr {
				*field = s
			} else {
				bad(fkey, "must be a string, not %s", tomlType(v))
			}
		}
	}
	return r, ok
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
