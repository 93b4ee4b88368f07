package cli

import (
	"os"
	"strconv"
	"strings"
)

// EnvPane is the pane this command runs in, if it runs inside melmux and
// addresses that pane's own session.
func EnvPane(g *Globals) int {
	if g.Session != "" && g.Session != os.Getenv("MELMUX_SESSION") {
		return 0
	}
	n, err := strconv.Atoi(os.Getenv("MELMUX_PANE"))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// providerPrefixes are the variables a worker's provider may read: they go
// with spawn-agent, so the worker talks to the model its caller would, even
// when the session's daemon was started elsewhere.
var providerPrefixes = []string{"MELMUX_RELAY_URL=", "MELMUX_RELAY_TOKEN=", "OPENAI_", "ANTHROPIC_", "OLLAMA_HOST=", "MELMUX_AGENT_"}

// ProviderEnv picks the provider variables out of environ, and the one named
// by keyEnv.
func ProviderEnv(environ []string, keyEnv string) []string {
	var out []string
	for _, kv := range environ {
		keep := keyEnv != "" && strings.HasPrefix(kv, keyEnv+"=")
		for _, p := range providerPrefixes {
			keep = keep || strings.HasPrefix(kv, p)
		}
		if keep {
			out = append(out, kv)
		}
	}
	return out
}
