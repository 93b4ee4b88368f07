package main

import (
	"fmt"
	"os"
	"strings"
	"syscall"

	"github.com/melmux/melmux/internal/cli"
)

// The verbs agent, tool, tools and mcp are melmux-agent's: their
// dependencies (the tool executor, the orchestrator, the MCP server) would
// cost every melmux process their package inits, and an idle server their
// pages. melmux keeps stand-ins that replace this process with melmux-agent,
// as git runs git-foo for `git foo`: same process, environment and stdio, so
// an MCP client on stdin/stdout or the agent's REPL in a pane sees no
// difference, and signals reach the verb.
func init() {
	for _, name := range cli.AgentVerbNames() {
		cli.Register(cli.AgentVerb(name, func(g *cli.Globals, args []string) error {
			return handOver(g, cli.AgentBinary, agentHolds, name, args)
		}, true))
	}
}

// agentHolds says what melmux-agent is for, in the error when it is
// missing.
var agentHolds = "the verbs " + strings.Join(cli.AgentVerbNames(), ", ")

// handOver execs the melmux program binary with the verb and its arguments;
// it returns only when that cannot be done.
func handOver(g *cli.Globals, binary, holds, verb string, args []string) error {
	bin, err := cli.FindBinary(binary, holds)
	if err != nil {
		return fmt.Errorf("%s: %w", verb, err)
	}
	// The verb stays argv[1], where restore and wait look for `agent`; a
	// -s given before it follows it, where every verb's flags take it.
	argv := []string{binary, verb}
	if g.Session != "" {
		argv = append(argv, "-s", g.Session)
	}
	argv = append(argv, args...)
	err = syscall.Exec(bin, argv, os.Environ())
	return fmt.Errorf("%s: running %s: %w", verb, bin, err)
}
