// Command melmux is the terminal multiplexer: with no verb it attaches to the
// session, creating it first; with a verb it runs that one operation and exits.
// Exit codes: 0 success, 1 the operation failed, 2 the command line was wrong.
//
// Each verb is one file registering itself in the verb table (internal/cli),
// as tmux's cmd-*.c; verbs that act on a session call the session's command
// of the same name (hyphens for underscores) over its control socket, so the
// CLI, agents and MCP share one implementation. The session daemon is
// melmux-server (cmd/melmux-server), which `melmux new` starts (new.go,
// serve.go); the verbs agent, tool, tools and mcp are in melmux-agent
// (cmd/melmux-agent), which melmux replaces itself with for them
// (agent_hop.go).
package main
