package main

import "github.com/melmux/melmux/internal/proto"

func init() {
	register(&verb{
		name:    "resize",
		usage:   "-x COLS -y ROWS",
		summary: "set the session size (status line included) and re-lay every tab",
		run: func(g *globals, args []string) error {
			fs := newFlags(g, "resize")
			cols := fs.Int("x", 0, "columns")
			rows := fs.Int("y", 0, "rows")
			if err := parseFlags(fs, args); err != nil {
				return err
			}
			if *cols <= 0 || *rows <= 0 || fs.NArg() > 0 {
				return usagef("resize: give -x COLS -y ROWS, both positive")
			}
			return call(g, "resize", proto.ResizeParams{Cols: *cols, Rows: *rows}, nil)
		},
	})
}
