package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/melmux/melmux/internal/cli"
	"github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
)

func init() {
	cli.Register(&cli.Verb{
		Name:    "read-agent",
		Usage:   "-t PANE [--wait DUR] [--json]",
		Summary: "print an agent's state and latest reply, once its queued turns finished (bounded)",
		Run: func(g *cli.Globals, args []string) error {
			fs := cli.NewFlags(g, "read-agent")
			target := fs.String("t", "", "the agent's pane")
			wait := durationFlag(fs, "wait", 0, "wait at most DUR for a melmux agent's queued turns (0: do not wait; default: the session's [agent] read_wait)")
			asJSON := fs.Bool("json", false, "print the result as JSON")
			if err := cli.ParseFlags(fs, args); err != nil {
				return err
			}
			if fs.NArg() > 0 {
				return cli.Usagef("read-agent takes no arguments besides flags, got %q", strings.Join(fs.Args(), " "))
			}
			id, err := paneFlag(g, "read-agent", *target)
			if err != nil {
				return err
			}
			p := proto.ReadAgentParams{Pane: id}
			if flagSet(fs, "wait") {
				switch {
				case *wait < 0:
					return cli.Usagef("read-agent: --wait %s: give a duration >= 0 (e.g. 30s, 5m; 0 does not wait)", *wait)
				case *wait == 0:
					p.WaitMS = -1
				default:
					p.WaitMS = max(wait.Milliseconds(), 1)
				}
			}
			var res proto.ReadAgentResult
			if err := call(g, "read_agent", p, &res); err != nil {
				return err
			}
			if *asJSON {
				return printJSON(g.Stdout, res)
			}
			fmt.Fprint(g.Stdout, client.ReadAgentText(res))
			return nil
		},
	})
}

// flagSet reports whether the command line gave the flag, even at its
// default value.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
