package main

import (
	"context"

	"github.com/melmux/melmux/internal/proto"
)

func init() {
	register(&verb{
		name:    "kill-pane",
		usage:   "-t PANE",
		summary: "end a pane's process and remove the pane (the last one ends the session)",
		run: func(g *globals, args []string) error {
			fs := newFlags(g, "kill-pane")
			target := fs.String("t", "", "the pane")
			if err := parseFlags(fs, args); err != nil {
				return err
			}
			if fs.NArg() > 0 {
				return usagef("kill-pane takes no arguments besides -t, got %q", fs.Arg(0))
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
