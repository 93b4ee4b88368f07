// Package mcpserver is the MCP face of the command table: `melmux mcp` serves
// the session's pane tools (and, when asked, the base tools) to an MCP client
// such as Claude Code or Codex over stdio. It has no tool logic of its own:
// each MCP tool is a toolexec definition, and each call runs through a
// toolexec.Executor whose pane tools reach the session over its socket, so an
// MCP client, an agent and the CLI get the same validation, the same commands
// and the same result text. A failed tool is an MCP result marked as an
// error, never a protocol error.
package mcpserver
