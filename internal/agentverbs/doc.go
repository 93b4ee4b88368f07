// Package agentverbs holds the CLI verbs of melmux-agent, registered in
// init into internal/cli's table: agent (the Mel agent's REPL or one task),
// tool (one tool call as an agent makes it), tools (the definitions a role
// is sent) and mcp (the session's tools for an MCP client on stdio). They
// are apart from cmd/melmux because they link the tool executor, the
// orchestrator, the MCP SDK, SQLite and the PDF and Markdown code, whose
// package inits and pages every melmux process would otherwise pay for.
// cmd/melmux-agent is this package and a main; cmd/melmux's tests import it
// so their test binary, run as `melmux`, has the real verbs.
package agentverbs
