package config

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/melmux/melmux/internal/config/agentcfg"
)

const agentKeyList = "provider, model, base_url, api_key_env, max_legs, read_wait, worktrees, max_calls, max_leg_time, max_reply_bytes, max_args_bytes, spawn_hosts"

// parseAgent reads the [agent] table into a, reporting each bad key through
// bad (key, message).
func parseAgent(m map[string]any, a *Agent, bad func(key, format string, args ...any)) {
	for k, v := range m {
		s, isStr := v.(string)
		wantStr := func() bool {
			if !isStr {
				bad(k, "must be a string, not %s", tomlType(v))
			}
			return isStr
		}
		switch k {
		case "provider":
			if !wantStr() {
				continue
			}
			p := strings.ToLower(strings.TrimSpace(s))
			if !slices.Contains(AgentProviders, p) {
				bad(k, "%q is not a provider (providers: %s)", s, strings.Join(AgentProviders, ", "))
				continue
			}
			a.Provider = p
		case "model":
			if wantStr() {
				a.Model = strings.TrimSpace(s)
			}
		case "base_url":
			if !wantStr() {
				continue
			}
			u, err := url.Parse(strings.TrimSpace(s))
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				bad(k, "%q is not an http:// or https:// URL", s)
				continue
			}
			a.BaseURL = strings.TrimSpace(s)
		case "api_key_env":
			if !wantStr() {
				continue
			}
			name := strings.TrimSpace(s)
			if name == "" || strings.ContainsAny(name, "=$ \t") {
				bad(k, "%q must be the name of an environment variable, such as OPENAI_API_KEY (not the key itself)", s)
				continue
			}
			a.KeyEnv = name
		case "max_legs":
			n, ok := v.(int64)
			switch {
			case !ok:
				bad(k, "must be a whole number of legs, not %s", tomlType(v))
			case n < 1 || n > 10000:
				bad(k, "%d is out of range (1 to 10000)", n)
			default:
				a.MaxLegs = int(n)
			}
		case "read_wait":
			if !wantStr() {
				continue
			}
			d, err := time.ParseDuration(strings.TrimSpace(s))
			if err != nil || d < 0 || d > time.Hour {
				bad(k, "%q must be a duration from 0s to 1h, such as \"2m\" or \"30s\"", s)
				continue
			}
			a.ReadWait = d
		case "max_calls":
			n, ok := v.(int64)
			switch {
			case !ok:
				bad(k, "must be a whole number of calls, not %s", tomlType(v))
			case n < 1 || n > agentcfg.MaxCallsLimit:
				bad(k, "%d is out of range (1 to %d)", n, agentcfg.MaxCallsLimit)
			default:
				a.MaxCalls = int(n)
			}
		case "max_leg_time":
			if !wantStr() {
				continue
			}
			d, err := time.ParseDuration(strings.TrimSpace(s))
			if err != nil || d < agentcfg.MinLegTime || d > agentcfg.MaxLegTimeLimit {
				bad(k, "%q must be a duration from 1s to 24h, such as \"30m\" or \"1h\"", s)
				continue
			}
			a.MaxLegTime = d
		case "max_reply_bytes", "max_args_bytes":
			n, err := parseBytes(v)
			if err != nil {
				bad(k, "%v", err)
				continue
			}
			if k == "max_reply_bytes" {
				a.MaxReplyBytes = n
			} else {
				a.MaxArgsBytes = n
			}
		case "worktrees":
			b, ok := v.(bool)
			if !ok {
				bad(k, "must be true or false, not %s", tomlType(v))
				continue
			}
			a.Worktrees = b
		default:
			bad(k, "unknown key (known: %s)", agentKeyList)
		}
	}
}

// parseBytes reads a size: a whole number of bytes, or a string of a whole
// number and a unit (B, KiB, MiB, GiB), within the range agentcfg allows.
func parseBytes(v any) (int, error) {
	const want = "must be a size from 1KiB to 1GiB: a number of bytes, or a string such as \"512KiB\", \"4MiB\" or \"1GiB\""
	var n int64
	switch x := v.(type) {
	case int64:
		n = x
	case string:
		t := strings.TrimSpace(x)
		i := strings.IndexFunc(t, func(r rune) bool { return r < '0' || r > '9' })
		if i == 0 {
			return 0, fmt.Errorf("%q %s", x, want)
		}
		num, unit := t, ""
		if i > 0 {
			num, unit = t[:i], strings.TrimSpace(t[i:])
		}
		mult, ok := map[string]int64{"": 1, "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}[unit]
		m, err := strconv.ParseInt(num, 10, 64)
		if !ok || err != nil || m > agentcfg.MaxBytesLimit {
			return 0, fmt.Errorf("%q %s", x, want)
		}
		n = m * mult
	default:
		return 0, fmt.Errorf("%s, not %s", want, tomlType(v))
	}
	if n < agentcfg.MinBytes || n > agentcfg.MaxBytesLimit {
		return 0, fmt.Errorf("%v bytes is out of range: %s", v, want)
	}
	return int(n), nil
}
