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

	// The bounds of one leg, against an endpoint that is broken or hostile;
	// 0 takes the default below.
	MaxCalls      int           // tool calls run per leg; the rest are answered "not run"
	MaxLegTime    time.Duration // one leg, from its request to the end of its answer, retries included
	MaxReplyBytes int           // the text of one leg
	MaxArgsBytes  int           // the arguments of all of one leg's tool calls together
}

// Defaults of the leg bounds. Each is far beyond what a working endpoint
// sends: a model's longest answer is tens of thousands of tokens (Anthropic
// legs ask for at most 8192, about 32 KiB, written in minutes even by a
// slow local model), and a lead's busiest leg a few dozen calls.
const (
	DefaultMaxCalls      = 64
	DefaultMaxLegTime    = time.Hour
	DefaultMaxReplyBytes = 4 << 20
	DefaultMaxArgsBytes  = 8 << 20
)

// Ranges the [agent] table accepts for the leg bounds.
const (
	MaxCallsLimit   = 10000
	MinLegTime      = time.Second
	MaxLegTimeLimit = 24 * time.Hour
	MinBytes        = 1 << 10
	MaxBytesLimit   = 1 << 30
)

// String shows the settings in one line, for messages.
func (a Agent) String() string {
	return fmt.Sprintf("provider=%q model=%q base_url=%q api_key_env=%q", a.Provider, a.Model, a.BaseURL, a.KeyEnv)
}
