// Package server is the session: one daemon process owning its panes, their
// layout in tabs, the command table and the socket clients reach it through.
//
// Every pane operation is a Command in one table (one file per command, as
// tmux's cmd-*.c), reached the same way by the CLI, agents and MCP: a JSON
// request on a control connection. The Server's mutex guards the pane table,
// the layout and the session size; commands take it only to read or change that
// state and never while waiting (for output to settle, for a pane to exit), so
// one slow command never holds up another. Each request runs on its own
// goroutine under recover: a panic becomes an "internal" error value for that
// request and the server goes on. The server ends when its last pane is
// killed or on kill-server, ending its panes' processes.
package server
