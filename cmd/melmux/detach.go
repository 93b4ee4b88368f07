package main

import (
	"fmt"

	"github.com/melmux/melmux/internal/proto"
)

func init() {
	register(&verb{
		name:    "detach",
		usage:   "",
		summary: "detach every client attached to the session",
		run: func(g *globals, args []string) error {
			fs := newFlags(g, "detach")
			if err := parseFlags(fs, args); err != nil {
				return err
			}
			if fs.NArg() > 0 {
				return usagef("detach takes no arguments, got %q", fs.Arg(0))
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
