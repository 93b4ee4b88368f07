package main

import (
	"fmt"
	"strings"

	"github.com/melmux/melmux/internal/cli"
	"github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
)

func init() {
	cli.Register(&cli.Verb{
		Name:    "send-keys",
		Usage:   "-t PANE [-l] [--screen] TEXT...",
		Summary: "type TEXT into a pane (\\n is Enter; <Up>, <C-c> ... are keys; -l types TEXT as it is)",
		Run: func(g *cli.Globals, args []string) error {
			fs := cli.NewFlags(g, "send-keys")
			target := fs.String("t", "", "the pane")
			literal := fs.Bool("l", false, "type TEXT literally: no <key> names, no \\n escapes")
			screen := fs.Bool("screen", false, "wait for the output to settle and print the screen")
			asJSON := fs.Bool("json", false, "with --screen, print the result as JSON")
			if err := cli.ParseFlags(fs, args); err != nil {
				return err
			}
			id, err := paneFlag(g, "send-keys", *target)
			if err != nil {
				return err
			}
			if fs.NArg() == 0 {
				return cli.Usagef("send-keys: TEXT is missing (usage: melmux send-keys -t PANE TEXT)")
			}
			text := strings.Join(fs.Args(), " ")
			if !*literal {
				if text, err = unescape(text); err != nil {
					return cli.Usagef("send-keys: %v", err)
				}
			}
			p := proto.SendKeysParams{Pane: id, Text: text, NoWait: !*screen, Literal: *literal}
			var res proto.SendKeysResult
			if err := call(g, "send_keys", p, &res); err != nil {
				return err
			}
			switch {
			case *screen && *asJSON:
				return printJSON(g.Stdout, res)
			case *screen:
				for _, l := range res.Lines {
					fmt.Fprintln(g.Stdout, client.VisibleLine(l))
				}
			}
			return nil
		},
	})
}
