package main

import (
	"context"

	"github.com/melmux/melmux/internal/cli"
	"github.com/melmux/melmux/internal/proto"
)

func init() {
	cli.Register(&cli.Verb{
		Name:    "kill-pane",
		Usage:   "-t PANE",
		Summary: "end a pane's process and remove the pane (the last one ends the session)",
		Run: func(g *cli.Globals, args []string) error {
			fs := cli.NewFlags(g, "kill-pane")
			target := fs.String("t", "", "the pane")
			if err := cli.ParseFlags(fs, args); err != nil {
				return err
			}
			if fs.NArg() > 0 {
				return cli.Usagef("kill-pane takes no arguments besides -t, got %q", fs.Arg(0))
			}
			id, err := paneFlag(g, "kill-pane", *target)
			if err != nil {
				return err
			}
			c, err := dial(g)
			if err != nil {
				return err
			}
			defer c.Close()
			var res proto.KillPaneResult
			if err := c.Call(context.Background(), "kill_pane", proto.PaneRef{Pane: id}, &res); err != nil {
				return err
			}
			if res.SessionEnded {
				return waitGone(c.Done())
			}
			return nil
		},
	})
}
