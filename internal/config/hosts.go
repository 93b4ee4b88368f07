package config

import (
	"strconv"
	"strings"
)

// Host is an entry of the [hosts] table: a machine panes may run on
// (docs/remote.md), named as ssh takes it, and its limits.
type Host struct {
	// MaxAgents bounds the agents a lead's placement puts on the host
	// (those running there counted); 0 is no bound.
	MaxAgents int
}

// Limits of a [hosts] entry.
const MaxHostAgents = 10000

// LocalHost names this machine in [agent] spawn_hosts and [hosts].
const LocalHost = "local"

const hostKeyList = "max_agents"

// parseHosts reads the [hosts] table: each key a host, each value a table
// of its limits. A bad entry is left out, and reported through bad.
func parseHosts(m map[string]any, out map[string]Host, bad func(key []string, format string, args ...any)) {
	for name, v := range m {
		if msg := hostNameProblem(name); msg != "" {
			bad([]string{"hosts", name}, "%s", msg)
			continue
		}
		t, ok := v.(map[string]any)
		if !ok {
			bad([]string{"hosts", name}, "must be a table of the host's limits, such as [hosts.%s] max_agents = 4, not %s", tomlKeyPart(name), tomlType(v))
			continue
		}
		h := Host{}
		good := true
		for k, kv := range t {
			switch k {
			case "max_agents":
				n, isInt := kv.(int64)
				switch {
				case !isInt:
					bad([]string{"hosts", name, k}, "must be a whole number of agents, not %s", tomlType(kv))
					good = false
				case n < 1 || n > MaxHostAgents:
					bad([]string{"hosts", name, k}, "%d is out of range (1 to %d; leave it out for no bound)", n, MaxHostAgents)
					good = false
				default:
					h.MaxAgents = int(n)
				}
			default:
				bad([]string{"hosts", name, k}, "unknown key (known: %s)", hostKeyList)
				good = false
			}
		}
		if good {
			out[name] = h
		}
	}
}

// parseSpawnHosts reads [agent] spawn_hosts: the hosts a lead's workers
// and agent CLIs are placed on, "local" for this machine.
func parseSpawnHosts(v any) ([]string, string) {
	list, ok := v.([]any)
	if !ok {
		return nil, "must be an array of hosts, such as [\"local\", \"build1\"] (\"local\" is this machine; the others as ssh takes them), not " + tomlType(v)
	}
	var out []string
	seen := map[string]bool{}
	for i, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, "entry " + strconv.Itoa(i+1) + " must be a string (a host as ssh takes it, or \"local\"), not " + tomlType(e)
		}
		s = strings.TrimSpace(s)
		if msg := hostNameProblem(s); msg != "" {
			return nil, "entry " + strconv.Itoa(i+1) + ": " + msg
		}
		if seen[s] {
			return nil, "entry " + strconv.Itoa(i+1) + ": " + quote(s) + " is listed twice"
		}
		seen[s] = true
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, "is empty: list the hosts, such as [\"local\", \"build1\"], or leave it out to run everything here"
	}
	return out, ""
}

// hostNameProblem says what is wrong with a host's name, "" when nothing.
func hostNameProblem(name string) string {
	switch {
	case name == "":
		return "a host's name is empty: give it as ssh takes it (an alias of ~/.ssh/config, user@host or host:port), or \"local\""
	case strings.HasPrefix(name, "-"):
		return quote(name) + " is not a host ssh takes: it starts with '-'"
	case strings.ContainsAny(name, " \t\r\n'\"\\"):
		return quote(name) + " is not a host ssh takes: it holds a space or a quote"
	}
	return ""
}

func quote(s string) string { return strconv.Quote(s) }

// tomlKeyPart writes a key as a TOML header takes it: quoted unless bare.
func tomlKeyPart(k string) string {
	for _, r := range k {
		if !(r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return quote(k)
		}
	}
	return k
}
