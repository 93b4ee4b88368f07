package proto

import "time"

// AgentsParams asks the agents command for every agent pane; it takes no
// parameters yet, so that one can be added without breaking callers.
type AgentsParams struct{}

// AgentRow is one agent pane of the agents command (`melmux agents`, the
// attached agents view): the pane, its agent, since when it is in its
// state, and what its worktree changed.
type AgentRow struct {
	Pane    int    `json:"pane"`
	Tab     int    `json:"tab"`
	Name    string `json:"name"` // what the pane's border names it: "claude", "mel worker"
	Title   string `json:"title"`
	Focused bool   `json:"focused"`
	// Agent is as list_panes gives it: kind, role, state, question,
	// counters and cost.
	Agent AgentInfo `json:"agent"`
	// Since is when the agent's state began; SinceMS how long ago.
	Since   time.Time `json:"since"`
	SinceMS int64     `json:"since_ms"`
	// NeedsYou is the pane's place (1 first) in the order "next agent that
	// needs me" visits: agents asking a question nobody answers for them,
	// longest asking first, then the other waiting agents, longest waiting
	// first; 0 for an agent that needs nobody.
	NeedsYou int `json:"needs_you,omitempty"`
	// Worktree and Branch are the pane's git worktree, nil without one;
	// Diff its lines added and deleted as its border shows them, nil
	// without a worktree or while none could be counted.
	Worktree *string     `json:"worktree"`
	Branch   *string     `json:"branch"`
	Diff     *DiffTotals `json:"diff"`
}

// DiffTotals is what a worktree holds that its base branch does not, in lines.
type DiffTotals struct {
	Added   int `json:"added"`
	Deleted int `json:"deleted"`
}
