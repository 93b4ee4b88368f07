package main

import (
	"errors"
	"fmt"

	"github.com/melmux/melmux/internal/cli"
	"github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
)

func init() {
	cli.Register(&cli.Verb{
		Name:    "wait",
		Usage:   "-t PANE (--exit | --idle DUR | --match REGEX [--screen] | --state S [--for-agent]) [--timeout DUR] [--json]",
		Summary: "block until the condition holds; exit 0, or 1 on timeout (default " + proto.DefaultWaitTimeout.String() + "; --timeout 0 waits without limit)",
		Run: func(g *cli.Globals, args []string) error {
			fs := cli.NewFlags(g, "wait")
			target := fs.String("t", "", "the pane")
			exit := fs.Bool("exit", false, "until the pane's process exits")
			idle := durationFlag(fs, "idle", 0, "until no output for DUR")
			match := fs.String("match", "", "until a line of output that arrives after the wait starts matches the RE2 pattern")
			screen := fs.Bool("screen", false, "with --match, lines already on the screen count too")
			state := fs.String("state", "", "until the pane is in state S (running, exited, busy, idle; for coding agents working, waiting, idle, exited)")
			forAgent := fs.Bool("for-agent", false, "with --state working|waiting, wait for a coding agent to start in the pane too")
			timeout := durationFlag(fs, "timeout", 0, "give up after DUR (exit 1); 0 waits without limit; default "+proto.DefaultWaitTimeout.String())
			asJSON := fs.Bool("json", false, "print the result as JSON: what held, the line, the evidence, and for --state waiting the question")
			if err := cli.ParseFlags(fs, args); err != nil {
				return err
			}
			id, err := paneFlag(g, "wait", *target)
			if err != nil {
				return err
			}
			n := 0
			for _, set := range []bool{*exit, *idle != 0, *match != "", *state != ""} {
				if set {
					n++
				}
			}
			if n != 1 {
				return cli.Usagef("wait: give exactly one of --exit, --idle DUR, --match REGEX, --state S")
			}
			if *idle < 0 || *timeout < 0 {
				return cli.Usagef("wait: durations must be positive (e.g. 500ms, 10s, 2m)")
			}
			if *screen && *match == "" {
				return cli.Usagef("wait: --screen goes with --match REGEX")
			}
			if *forAgent && *state != "working" && *state != "waiting" {
				return cli.Usagef("wait: --for-agent goes with --state working or --state waiting")
			}
			p := proto.WaitParams{Pane: id, Exit: *exit, IdleMS: idle.Milliseconds(), Match: *match, Screen: *screen,
				State: *state, ForAgent: *forAgent, TimeoutMS: timeout.Milliseconds()}
			if *idle > 0 && p.IdleMS == 0 {
				p.IdleMS = 1
			}
			if *timeout > 0 && p.TimeoutMS == 0 {
				p.TimeoutMS = 1
			}
			p.NoTimeout = flagSet(fs, "timeout") && *timeout == 0
			var res proto.WaitResult
			err = call(g, "wait", p, &res)
			var pe *proto.Error
			if errors.As(err, &pe) && pe.Code == proto.CodeTimeout {
				return &cli.ExitError{Code: 1, Msg: pe.Message}
			}
			if err != nil {
				return err
			}
			if *asJSON {
				return printJSON(g.Stdout, res)
			}
			if res.Line != "" {
				fmt.Fprintln(g.Stdout, client.VisibleLine(res.Line))
			}
			if res.Question != nil {
				fmt.Fprint(g.Stdout, client.Visible(questionText(res.Question)))
			}
			return nil
		},
	})
}
