// Command melmux-agent holds melmux's verbs agent, tool, tools and mcp: the
// Mel agent, one tool call as an agent makes it, the tool definitions, and
// the MCP server on stdio. They link the tool executor, the orchestrator
// and the MCP SDK, which every melmux process would otherwise load;
// `melmux VERB ...` replaces itself with this binary for those four verbs,
// finding it beside melmux or on $PATH. Its command line, messages and exit
// statuses are melmux's.
package main

import (
	"os"

	_ "github.com/melmux/melmux/internal/agentverbs" // registers the verbs
	"github.com/melmux/melmux/internal/cli"
)

func main() {
	os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, nil))
}
