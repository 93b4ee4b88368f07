package main

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/melmux/melmux/internal/cli"
	"github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
)

func init() {
	cli.Register(&cli.Verb{
		Name:    "explain",
		Usage:   "-t PANE [--json]",
		Summary: "show how a pane's agent state is decided: its kind, every signal and rule with its verdict, and the last changes",
		Run: func(g *cli.Globals, args []string) error {
			fs := cli.NewFlags(g, "explain")
			target := fs.String("t", "", "the pane")
			asJSON := fs.Bool("json", false, "print the result as JSON")
			if err := cli.ParseFlags(fs, args); err != nil {
				return err
			}
			if fs.NArg() > 0 {
				return cli.Usagef("explain takes no arguments besides flags, got %q", strings.Join(fs.Args(), " "))
			}
			id, err := paneFlag(g, "explain", *target)
			if err != nil {
				return err
			}
			var res proto.ExplainResult
			if err := call(g, "explain", proto.PaneRef{Pane: id}, &res); err != nil {
				return err
			}
			if *asJSON {
				return printJSON(g.Stdout, res)
			}
			fmt.Fprint(g.Stdout, explainText(res))
			return nil
		},
	})
}

// explainText lays an explanation out for a person: the state and why,
// the signals in the order they are weighed (the deciding one marked *),
// then the last changes. Every field comes from a pane (its title, its
// program's reports, its screen) or says what a pane did, so each is made
// client.VisibleLine.
func explainText(r proto.ExplainResult) string {
	v := client.VisibleLine
	var b strings.Builder
	if r.Kind == "" {
		fmt.Fprintf(&b, "pane %d runs no coding agent (foreground: %s): %s\n", r.Pane, v(orNone(r.Foreground)), v(r.KindEvidence))
		return b.String()
	}
	fmt.Fprintf(&b, "pane %d: %s, %s for %s\n", r.Pane, v(r.Kind), v(r.State), ago(r.SinceMS))
	fmt.Fprintf(&b, "kind: %s\n", v(r.KindEvidence))
	fmt.Fprintf(&b, "foreground: %s\n", v(orNone(r.Foreground)))
	fmt.Fprintf(&b, "decided by: %s\n\n", v(r.Evidence))
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  SIGNAL\tSAYS\tDETAIL")
	for _, s := range r.Signals {
		mark, says := " ", s.Says
		if s.Decided {
			mark = "*"
		}
		if says == "" {
			says = "-"
		}
		fmt.Fprintf(tw, "%s %s\t%s\t%s\n", mark, v(s.Signal), v(says), v(s.Detail))
	}
	tw.Flush()
	if len(r.History) > 0 {
		b.WriteString("\nchanges:\n")
		for _, h := range r.History {
			from := h.From
			if from == "" {
				from = "(first look)"
			}
			fmt.Fprintf(&b, "  %s ago  %s -> %s  %s\n", ago(h.AgoMS), v(from), v(h.To), v(h.Evidence))
		}
	}
	if r.Question != nil {
		b.WriteString("\n" + questionText(r.Question))
	}
	if len(r.Answers) > 0 {
		b.WriteString("\nanswered:\n")
		for _, a := range r.Answers {
			by := a.By
			if a.Rule != "" {
				by += " (rule " + a.Rule + ")"
			}
			what := a.Question
			if a.Input != "" {
				what += " [" + strings.TrimSpace(a.Tool+" "+a.Input) + "]"
			}
			fmt.Fprintf(&b, "  %s ago  %s: %s by %s\n", ago(a.AgoMS), v(what), v(a.Decision), v(by))
		}
	}
	return b.String()
}

func ago(ms int64) string {
	d := time.Duration(ms) * time.Millisecond
	if d < 10*time.Second {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
