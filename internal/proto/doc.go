// Package proto defines what crosses the session socket: a one-line JSON hello
// with the protocol version, then either JSON-lines requests and responses
// (control mode: the CLI, agents, MCP) or binary frames (attach mode: a
// terminal client's bytes and resizes). It depends on the standard library
// only, so every side of the socket can share it.
package proto
