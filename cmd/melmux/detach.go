package main

import (
	"fmt"

	"github.com/melmux/melmux/internal/cli"
	"github.com/melmux/melmux/internal/proto"
)

func init() {
	cli.Register(&cli.Verb{
		Name:    "detach",
		Usage:   "",
		Summary: "detach every client attached to the session",
		Run: func(g *cli.Globals, args []string) error {
			fs := cli.NewFlags(g, "detach")
			if err := cli.ParseFlags(fs, args); err != nil {
				return err
			}
			if fs.NArg() > 0 {
				return cli.Usagef("detach takes no arguments, got %q", fs.Arg(0))
			}
			var res proto.DetachResult
			if err := call(g, "detach", nil, &res); err != nil {
				return err
			}
			if res.Detached == 0 {
				return fmt.Errorf("no client is attached to session %q", sessionLabel(g))
			}
			return nil
		},
	})
}
