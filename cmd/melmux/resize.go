package main

import (
	"fmt"
	"os"

	"github.com/melmux/melmux/internal/cli"
	"github.com/melmux/melmux/internal/proto"
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
			var res proto.ResizeResult
			if err := call(g, "resize", proto.ResizeParams{Cols: *cols, Rows: *rows}, &res); err != nil {
				return err
			}
			if res.Clients > 0 {
				fmt.Fprintf(os.Stderr, "melmux: resize: the session is %dx%d, set by hand; the %d attached client(s) show it so until one attaches or its terminal changes size, which makes it the smallest client's again\n", res.Cols, res.Rows, res.Clients)
			}
			return nil
		},
	})
}
