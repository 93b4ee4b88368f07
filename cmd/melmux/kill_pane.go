package main

import "github.com/melmux/melmux/internal/proto"

func init() {
	register(&verb{
		name:    "kill-pane",
		usage:   "-t PANE",
		summary: "end a pane's process and remove the pane",
		run: func(g *globals, args []string) error {
			fs := newFlags(g, "kill-pane")
			target := fs.String("t", "", "the pane")
			if err := parseFlags(fs, args); err != nil {
				return err
			}
			if fs.NArg() > 0 {
				return usagef("kill-pane takes no arguments besides -t, got %q", fs.Arg(0))
			}
			id, err := paneFlag("kill-pane", *target)
			if err != nil {
				return err
			}
			return call(g, "kill_pane", proto.PaneRef{Pane: id}, nil)
		},
	})
}
