package agentverbs

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/melmux/melmux/internal/cli"
	"github.com/melmux/melmux/toolexec"
)

// paneTools connects `melmux tool` to the session for the pane tools
// (open_pane, send_keys, ...). It is left nil here and wired to the socket
// client by the session code; nil makes those tools fail with a message
// saying a melmux session is needed.
var paneTools func(g *cli.Globals) toolexec.PaneTools

func init() {
	cli.Register(cli.AgentVerb("tool", runTool, false))
}

func runTool(g *cli.Globals, args []string) error {
	fs := cli.NewFlags(g, "tool")
	roleName := fs.String("role", "lead", "tool role: base, worker, lead (or orchestrator)")
	timeout := fs.Duration("command-timeout", 0, "run_command time limit (default $"+toolexec.CommandTimeoutEnv+", else 10m)")
	outside := fs.Bool("allow-outside", false, "let paths resolve outside the current directory")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	role, err := toolexec.ParseRole(*roleName)
	if err != nil {
		return cli.Usagef("tool: %v", err)
	}
	if *timeout < 0 {
		return cli.Usagef("tool: --command-timeout must be positive, got %s", *timeout)
	}
	rest := fs.Args()
	if len(rest) == 0 || len(rest) > 2 {
		return cli.Usagef("tool: want NAME and optional JSON arguments, got %d arguments (usage: melmux tool %s; tools: %s)",
			len(rest), cli.Lookup("tool").Usage, strings.Join(toolNamesFor(role), ", "))
	}
	name, arguments := rest[0], ""
	if len(rest) == 2 {
		arguments = rest[1]
	}
	if arguments == "-" {
		// One byte over the limit is enough for the executor to refuse it.
		data, err := io.ReadAll(io.LimitReader(g.Stdin, toolexec.MaxArgumentsBytes+1))
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
	ctx, caught, stop := cancelOnSignal()
	defer stop()
	res := ex.Run(ctx, name, arguments)
	out := g.Stdout
	if res.IsError {
		out = g.Stderr
	}
	text := res.Text
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	io.WriteString(out, text)
	if sig := caught(); sig != 0 {
		return &cli.ExitError{Code: 128 + int(sig)}
	}
	if res.IsError {
		return &cli.ExitError{Code: 1}
	}
	return nil
}

// cancelOnSignal gives a context that SIGINT, SIGTERM or SIGHUP cancels, so
// the call stops and run_command kills what it started instead of
// orphaning it (a hang-up is a terminal closing, a cancelled agent). A
// second signal gets the default action: it ends melmux at once. caught
// reports the first signal, or 0.
func cancelOnSignal() (ctx context.Context, caught func() syscall.Signal, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 1)
	signals := []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}
	signal.Notify(ch, signals...)
	var got atomic.Int32
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			got.Store(int32(sig.(syscall.Signal)))
			signal.Reset(signals...)
			cancel()
		case <-done:
		}
	}()
	return ctx, func() syscall.Signal { return syscall.Signal(got.Load()) }, func() {
		signal.Stop(ch)
		close(done)
		cancel()
	}
}

func toolNamesFor(r toolexec.Role) []string {
	defs := toolexec.Definitions(r)
	names := make([]string, len(defs))
	for i, d := range defs {
		names[i] = d.Name
	}
	return names
}
