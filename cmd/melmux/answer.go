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
		Name:  "answer",
		Usage: "-t PANE [--question TEXT] [--json] CHOICE",
		Summary: "answer the question the agent in a pane asks: CHOICE is an option's key (1, y) or a word of its label " +
			"(yes, no, always); refused when it asks nothing or something else than --question",
		Run: func(g *cli.Globals, args []string) error {
			fs := cli.NewFlags(g, "answer")
			target := fs.String("t", "", "the pane")
			question := fs.String("question", "", "the question's text as read: refuse if the pane now asks something else")
			asJSON := fs.Bool("json", false, "print the result as JSON")
			if err := cli.ParseFlags(fs, args); err != nil {
				return err
			}
			if fs.NArg() != 1 {
				return cli.Usagef("answer takes one CHOICE (an option's key such as 1 or y, or a word of its label such as yes, no, always), got %d arguments", fs.NArg())
			}
			id, err := paneFlag(g, "answer", *target)
			if err != nil {
				return err
			}
			var res proto.AnswerResult
			if err := call(g, "answer", proto.AnswerParams{Pane: id, Choice: fs.Arg(0), Question: *question}, &res); err != nil {
				return err
			}
			if *asJSON {
				if err := printJSON(g.Stdout, res); err != nil {
					return err
				}
			} else {
				fmt.Fprintf(g.Stdout, "answered %q with %s (%s)\n", res.Question.Text, client.VisibleLine(res.Option.Key), client.VisibleLine(res.Option.Label))
			}
			if !res.Gone {
				return fmt.Errorf("answer: the question in pane %d is still there after %s was typed; read-pane -t %d shows it", id, res.Option.Key, id)
			}
			return nil
		},
	})
}

// questionText is a question in a few lines for a person.
func questionText(q *proto.Question) string {
	v := client.VisibleLine
	var b strings.Builder
	fmt.Fprintf(&b, "question: %s\n", client.Visible(q.Text))
	if q.Tool != "" || q.Input != "" {
		fmt.Fprintf(&b, "  wants: %s %s\n", v(q.Tool), v(q.Input))
	}
	for _, o := range q.Options {
		fmt.Fprintf(&b, "  %s  %s\n", v(o.Key), v(o.Label))
	}
	return b.String()
}
