package main

import (
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/melmux/melmux/internal/cli"
	"github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
)

func init() {
	cli.Register(&cli.Verb{
		Name:  "agents",
		Usage: "[--json]",
		Summary: "every agent pane (Claude Code, Codex, Gemini CLI, Mel agents...): state and for how long, its question, " +
			"branch and changes (+A −D), cost; those waiting on you first (! after the pane), the longest waiting first " +
			"(attached: C-b a shows them live, C-b A goes to the one waiting longest)",
		Run: func(g *cli.Globals, args []string) error {
			fs := cli.NewFlags(g, "agents")
			asJSON := fs.Bool("json", false, "print a JSON array")
			if err := cli.ParseFlags(fs, args); err != nil {
				return err
			}
			if fs.NArg() > 0 {
				return cli.Usagef("agents takes no arguments, got %q", strings.Join(fs.Args(), " "))
			}
			var rows []proto.AgentRow
			if err := call(g, "agents", proto.AgentsParams{}, &rows); err != nil {
				return err
			}
			if *asJSON {
				return printJSON(g.Stdout, rows)
			}
			if len(rows) == 0 {
				_, err := fmt.Fprintf(g.Stdout, "no agents in session %s\n", sessionLabel(g))
				return err
			}
			tw := tabwriter.NewWriter(g.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "PANE\tTAB\tAGENT\tSTATE\tFOR\tBRANCH\tDIFF\tCOST\tQUESTION")
			for _, r := range rows {
				pane := strconv.Itoa(r.Pane)
				if r.Focused {
					pane += "*"
				}
				if r.NeedsYou > 0 {
					pane += "!"
				}
				since, branch, diff, cost, question := "-", "-", "-", "-", ""
				if !r.Since.IsZero() {
					since = ageText(time.Duration(r.SinceMS) * time.Millisecond)
				}
				if r.Branch != nil {
					branch = shorten(client.VisibleLine(*r.Branch), 30)
				}
				if r.Diff != nil {
					diff = fmt.Sprintf("+%d −%d", r.Diff.Added, r.Diff.Deleted)
				}
				if c := agentCost(r.Agent); c != "" {
					cost = c
				}
				if q := r.Agent.Question; q != nil {
					question = shorten(client.VisibleLine(q.Text), 60)
				}
				fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", pane, r.Tab, client.VisibleLine(r.Name), r.Agent.State, since, branch, diff, cost, question)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			// Each question whole, with the keys that answer it.
			for _, r := range rows {
				if q := r.Agent.Question; q != nil {
					fmt.Fprintf(g.Stdout, "\npane %d asks (melmux answer -t %d CHOICE)\n%s", r.Pane, r.Pane, questionText(q))
				}
			}
			return nil
		},
	})
}

// ageText says how long, as the agents view does: 42s, 3m05s, 2h07m.
func ageText(d time.Duration) string {
	d = max(d, 0)
	switch {
	case d < time.Minute:
		return strconv.Itoa(int(d/time.Second)) + "s"
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d/time.Minute), int(d%time.Minute/time.Second))
	}
	return fmt.Sprintf("%dh%02dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
}

// agentCost is what an agent cost: its tokens at its model's price in
// [prices], else its tokens, else "" (agents other than Mel's report none).
func agentCost(a proto.AgentInfo) string {
	switch {
	case a.Cost != nil:
		return costText(*a.Cost)
	case a.InputTokens+a.OutputTokens > 0:
		return countText(a.InputTokens+a.OutputTokens) + " tok"
	}
	return ""
}
