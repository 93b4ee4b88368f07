package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/melmux/melmux/toolexec"
)

// paneTools connects `melmux tool` to the session for the pane tools
// (open_pane, send_keys, ...). It is left nil here and wired to the socket
// client by the session code; nil makes those tools fail with a message
// saying a melmux session is needed.
var paneTools func(g *globals) toolexec.PaneTools

func init() {
	register(&verb{
		name:    "tool",
		usage:   "[--role base|worker|lead] [--command-timeout DUR] [--allow-outside] NAME [JSON|-]",
		summary: "run one tool exactly as an agent would and print its result",
		run:     runTool,
	})
}

func runTool(g *globals, args []string) error {
	fs := newFlags(g, "tool")
	roleName := fs.String("role", "lead", "tool role: base, worker, lead (or orchestrator)")
	timeout := fs.Duration("command-timeout", 0, "run_command time limit (default $"+toolexec.CommandTimeoutEnv+", else 10m)")
	outside := fs.Bool("allow-outside", false, "let paths resolve outside the current directory")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	role, err := toolexec.ParseRole(*roleName)
	if err != nil {
		return usagef("tool: %v", err)
	}
	if *timeout < 0 {
		return usagef("tool: --command-timeout must be positive, got %s", *timeout)
	}
	rest := fs.Args()
	if len(rest) == 0 || len(rest) > 2 {
		return usagef("tool: want NAME and optional JSON arguments, got %d arguments (usage: melmux tool %s; tools: %s)",
			len(rest), verbs["tool"].usage, strings.Join(toolNamesFor(role), ", "))
	}
	name, arguments := rest[0], ""
	if len(rest) == 2 {
		arguments = rest[1]
	}
	if arguments == "-" {
		data, err := io.ReadAll(g.stdin)
		if err != nil {
			return fmt.Errorf("tool: reading arguments from stdin: %w", err)
		}
		arguments = string(data)
	}
	wd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("tool: %w", err)
	}
	ex := &toolexec.Executor{Root: wd, Role: role, CommandTimeout: *timeout, AllowOutside: *outside}
	defer ex.Close()
	if paneTools != nil {
		ex.Panes = paneTools(g)
	}
	// Ctrl-C ends a long run_command's process group rather than orphaning it.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res := ex.Run(ctx, name, arguments)
	out := g.stdout
	if res.IsError {
		out = g.stderr
	}
	text := res.Text
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	io.WriteString(out, text)
	if res.IsError {
		return &exitError{code: 1}
	}
	return nil
}

func toolNamesFor(r toolexec.Role) []string {
	defs := toolexec.Definitions(r)
	names := make([]string, len(defs))
	for i, d := range defs {
		names[i] = d.Name
	}
	return names
}
