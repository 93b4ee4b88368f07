// Package cli is the verb table and the command line of melmux's three
// binaries: melmux (cmd/melmux: the session verbs, the CLI a person and a
// script call), melmux-server (cmd/melmux-server: the session daemon, verb
// __serve, which links the server, the emulator and the UI) and
// melmux-agent (cmd/melmux-agent: the verbs agent, tool, tools and mcp,
// which need the tool executor, the orchestrator and the MCP server).
// Every melmux process runs the package inits of everything its binary
// links, so each binary links only what its verbs need (docs/benchmarks.md
// measures what that buys a process's start and an idle server); in melmux
// the other binaries' verbs are stand-ins that hand the command line over,
// as git hands `git foo` to git-foo (FindBinary finds the binary beside
// melmux, else on $PATH).
//
// Each verb is one file registering itself in init with Register; the
// helpers the binaries' verbs share (flags, errors, the pane a command runs
// in, the provider variables a worker inherits) are here.
package cli
