package agentcfg

import (
	"fmt"
	"time"
)

// Agent is the [agent] table: the Mel agent's model settings (flags and
// environment variables override them) and its limits.
type Agent struct {
	Provider string        // relay | openai | anthropic; "" = from the environment
	Model    string        // "" = the provider's default
	BaseURL  string        // the endpoint; "" = the provider's variable or default
	KeyEnv   string        // the variable holding the API key; "" = the provider's usual one
	MaxLegs  int           // legs (paid calls) per turn; 0 = DefaultMaxLegs
	ReadWait time.Duration // how long read_agent waits for a turn; 0 = DefaultReadWait
	// Worktrees starts every worker a lead spawns in its own git worktree,
	// as spawn-agent --worktree does (the tool has no such argument).
	Worktrees bool
}

// String shows the settings in one line, for messages.
func (a Agent) String() string {
	return fmt.Sprintf("provider=%q model=%q base_url=%q api_key_env=%q", a.Provider, a.Model, a.BaseURL, a.KeyEnv)
}
