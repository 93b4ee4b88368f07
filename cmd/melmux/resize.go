package main

import (
	"github.com/melmux/melmux/internal/proto"

	"github.com/melmux/melmux/internal/cli"
)

func init() {
	cli.Register(&cli.Verb{
		Name:    "resize",
		Usage:   "-x COLS -y ROWS",
		Summary: "set the session size (status line included) and re-lay every tab",
		Run: func(g *cli.Globals, args []string) error {
			fs := cli.NewFlags(g, "resize")
			cols := fs.Int("x", 0, "columns")
			rows := fs.Int("y", 0, "rows")
			if err := cli.ParseFlags(fs, args); err != nil {
				return err
			}
			if *cols <= 0 || *rows <= 0 || fs.NArg() > 0 {
				return cli.Usagef("resize: give -x COLS -y ROWS, both positive")
			}
			return call(g, "resize", proto.ResizeParams{Cols: *cols, Rows: *rows}, nil)
		},
	})
}
