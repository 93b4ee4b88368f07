package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/melmux/melmux/internal/cli"
	"github.com/melmux/melmux/internal/proto"
)

func init() {
	cli.Register(&cli.Verb{
		Name:    "send-agent",
		Usage:   "-t PANE [--json] TEXT... | -",
		Summary: "give the agent in a pane its next message (- reads it from stdin); prints the turn id",
		Run: func(g *cli.Globals, args []string) error {
			fs := cli.NewFlags(g, "send-agent")
			target := fs.String("t", "", "the agent's pane")
			asJSON := fs.Bool("json", false, "print the result as JSON")
			if err := cli.ParseFlags(fs, args); err != nil {
				return err
			}
			id, err := paneFlag(g, "send-agent", *target)
			if err != nil {
				return err
			}
			text := strings.Join(fs.Args(), " ")
			if fs.NArg() == 1 && fs.Arg(0) == "-" {
				b, err := io.ReadAll(g.Stdin)
				if err != nil {
					return fmt.Errorf("send-agent: reading the message from stdin: %w", err)
				}
				text = string(b)
			}
			if strings.TrimSpace(text) == "" {
				return cli.Usagef("send-agent: TEXT is missing (usage: melmux send-agent -t PANE TEXT, or - to read it from stdin)")
			}
			var res proto.SendAgentResult
			if err := call(g, "send_agent", proto.SendAgentParams{Pane: id, Text: text}, &res); err != nil {
				return err
			}
			if *asJSON {
				if err := printJSON(g.Stdout, res); err != nil {
					return err
				}
			}
			switch {
			case !res.Delivered:
				msg := ""
				if !*asJSON {
					msg = "unsubmitted: " + res.Note
				}
				return &cli.ExitError{Code: 1, Msg: msg}
			case *asJSON:
			case res.Kind == "melmux" || res.Turn > 0:
				fmt.Fprintln(g.Stdout, res.Turn)
			default:
				fmt.Fprintln(g.Stdout, "delivered")
			}
			return nil
		},
	})
}
