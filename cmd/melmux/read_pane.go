package main

import (
	"fmt"

	"github.com/melmux/melmux/internal/cli"
	"github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
)

func init() {
	cli.Register(&cli.Verb{
		Name:    "read-pane",
		Usage:   "-t PANE [--scrollback N | --all] [--json]",
		Summary: "print a pane's screen as text, history first when asked",
		Run: func(g *cli.Globals, args []string) error {
			fs := cli.NewFlags(g, "read-pane")
			target := fs.String("t", "", "the pane")
			scroll := fs.Int("scrollback", 0, "also print this many history lines")
			all := fs.Bool("all", false, "also print the whole history")
			asJSON := fs.Bool("json", false, "print JSON")
			if err := cli.ParseFlags(fs, args); err != nil {
				return err
			}
			if fs.NArg() > 0 {
				return cli.Usagef("read-pane takes no arguments besides flags, got %q", fs.Arg(0))
			}
			id, err := paneFlag(g, "read-pane", *target)
			if err != nil {
				return err
			}
			if *scroll < 0 {
				return cli.Usagef("read-pane: --scrollback %d: give a number of lines >= 0", *scroll)
			}
			if *all && *scroll > 0 {
				return cli.Usagef("read-pane: give --scrollback N or --all, not both")
			}
			var res proto.ReadPaneResult
			if err := call(g, "read_pane", proto.ReadPaneParams{Pane: id, Scrollback: *scroll, All: *all}, &res); err != nil {
				return err
			}
			if *asJSON {
				return printJSON(g.Stdout, res)
			}
			// The emulator acts on control characters or drops them, so a
			// row holds none, but it keeps the bidi ones as any other
			// character: those are shown.
			for _, l := range res.History {
				fmt.Fprintln(g.Stdout, client.VisibleLine(l))
			}
			for _, l := range res.Lines {
				fmt.Fprintln(g.Stdout, client.VisibleLine(l))
			}
			return nil
		},
	})
}
