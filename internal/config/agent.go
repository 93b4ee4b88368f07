package config

import (
	"net/url"
	"slices"
	"strings"
	"time"
)

const agentKeyList = "provider, model, base_url, api_key_env, max_legs, read_wait, worktrees"

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
