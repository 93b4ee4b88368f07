package cli

import "fmt"

// AgentBinary is the binary that holds the agent verbs.
const AgentBinary = "melmux-agent"

// agentVerbs describe the verbs of melmux-agent once, for the real verbs
// (internal/agentverbs) and for melmux's stand-ins that hand them over.
var agentVerbs = []Verb{
	{Name: "agent",
		Usage:   "[--role lead|worker] [--provider P] [--model M] [--base-url URL] [--key-env VAR] [--task TEXT] [--once] [--max-legs N] [--resume ID]",
		Summary: "the Mel agent: a REPL in this pane (or, with --once, one task run to its end)"},
	{Name: "mcp",
		Usage:   "[--base-tools]",
		Summary: "serve the session's orchestration tools to an MCP client on stdio"},
	{Name: "tool",
		Usage:   "[--role base|worker|lead] [--command-timeout DUR] [--allow-outside] NAME [JSON|-]",
		Summary: "run one tool exactly as an agent would and print its result"},
	{Name: "tools",
		Usage:   "[--role base|worker|lead|orchestrator]",
		Summary: "print the tool definitions sent to the model for a role, as JSON"},
}

// AgentVerbNames are the names of the verbs melmux-agent holds.
func AgentVerbNames() []string {
	out := make([]string, len(agentVerbs))
	for i, v := range agentVerbs {
		out[i] = v.Name
	}
	return out
}

// AgentVerb is the verb name of melmux-agent, run by run; standIn says it is
// melmux's stand-in rather than the real verb.
func AgentVerb(name string, run func(g *Globals, args []string) error, standIn bool) *Verb {
	for _, v := range agentVerbs {
		if v.Name == name {
			v.Run, v.StandIn = run, standIn
			return &v
		}
	}
	panic(fmt.Sprintf("melmux: %q is not a verb of %s", name, AgentBinary))
}
