package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/melmux/melmux/internal/proto"
)

func init() {
	register(&verb{
		name:    "send-agent",
		usage:   "-t PANE [--json] TEXT... | -",
		summary: "give the agent in a pane its next message (- reads it from stdin); prints the turn id",
		run: func(g *globals, args []string) error {
			fs := newFlags(g, "send-agent")
			target := fs.String("t", "", "the agent's pane")
			asJSON := fs.Bool("json", false, "print the result as JSON")
			if err := parseFlags(fs, args); err != nil {
				return err
			}
			id, err := paneFlag(g, "send-agent", *target)
			if err != nil {
				return err
			}
			text := strings.Join(fs.Args(), " ")
			if fs.NArg() == 1 && fs.Arg(0) == "-" {
				b, err := io.ReadAll(g.stdin)
				if err != nil {
					return fmt.Errorf("send-agent: reading the message from stdin: %w", err)
				}
				text = string(b)
			}
			if strings.TrimSpace(text) == "" {
				return usagef("send-agent: TEXT is missing (usage: melmux send-agent -t PANE TEXT, or - to read it from stdin)")
			}
			var res proto.SendAgentResult
			if err := call(g, "send_agent", proto.SendAgentParams{Pane: id, Text: text}, &res); err != nil {
				return err
			}
			if *asJSON {
				if err := printJSON(g.stdout, res); err != nil {
					return err
				}
			}
			switch {
			case !res.Delivered:
				msg := ""
				if !*asJSON {
					msg = "unsubmitted: " + res.Note
				}
				return &exitError{code: 1, msg: msg}
			case *asJSON:
			case res.Kind == "melmux":
				fmt.Fprintln(g.stdout, res.Turn)
			default:
				fmt.Fprintln(g.stdout, "delivered")
			}
			return nil
		},
	})
}
