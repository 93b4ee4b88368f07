// Command melmux-agent holds melmux's verbs agent, tool, tools and mcp: the
// Mel agent, one tool call as an agent makes it, the tool definitions, and
// the MCP server on stdio. They link the tool executor, the orchestrator
// and the MCP SDK, which every melmux process would otherwise load;
// `melmux VERB ...` replaces itself with this binary for those four verbs,
// finding it beside melmux or on $PATH. Its command line, messages and exit
// statuses are melmux's.
package main
