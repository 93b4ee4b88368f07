package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
			return handOver(g, name, args)
		}, true))
	}
}

// handOver execs melmux-agent with the verb and its arguments; it returns
// only when that cannot be done.
func handOver(g *cli.Globals, verb string, args []string) error {
	bin, err := findAgentBinary()
	if err != nil {
		return fmt.Errorf("%s: %w", verb, err)
	}
	// The verb stays argv[1], where restore and wait look for `agent`; a
	// -s given before it follows it, where every verb's flags take it.
	argv := []string{cli.AgentBinary, verb}
	if g.Session != "" {
		argv = append(argv, "-s", g.Session)
	}
	argv = append(argv, args...)
	err = syscall.Exec(bin, argv, os.Environ())
	return fmt.Errorf("%s: running %s: %w", verb, bin, err)
}

// findAgentBinary finds melmux-agent beside this executable (symlinks
// resolved, so a melmux linked into ~/bin finds the melmux-agent built with
// it), else on $PATH.
func findAgentBinary() (string, error) {
	var looked []string
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		p := filepath.Join(filepath.Dir(exe), cli.AgentBinary)
		if isExecutableFile(p) {
			return p, nil
		}
		looked = append(looked, p)
	}
	// exec.LookPath refuses a match in a relative $PATH entry (exec.ErrDot):
	// that is not where an installed melmux-agent lives.
	if p, err := exec.LookPath(cli.AgentBinary); err == nil {
		return p, nil
	}
	looked = append(looked, "$PATH")
	return "", fmt.Errorf("%s not found (looked at %s): it holds the verbs %s; build it into melmux's directory with `CGO_ENABLED=0 go build -o %s ./cmd/...` in the melmux source tree, or put it on $PATH",
		cli.AgentBinary, strings.Join(looked, " and "), strings.Join(cli.AgentVerbNames(), ", "), buildDir(looked))
}

// buildDir is the directory to name in the build command: melmux's own
// when it is known.
func buildDir(looked []string) string {
	if len(looked) > 1 {
		return filepath.Dir(looked[0])
	}
	return "DIR"
}

func isExecutableFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
}
