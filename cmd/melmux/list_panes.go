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
		Name:    "list-panes",
		Usage:   "[--json] [--resources]",
		Summary: "list every pane (--resources: with the CPU and memory of each pane's processes)",
		Run: func(g *cli.Globals, args []string) error {
			fs := cli.NewFlags(g, "list-panes")
			asJSON := fs.Bool("json", false, "print a JSON array")
			withRes := fs.Bool("resources", false, "add cpu and rss: what each pane's process tree uses")
			if err := cli.ParseFlags(fs, args); err != nil {
				return err
			}
			if fs.NArg() > 0 {
				return cli.Usagef("list-panes takes no arguments, got %q", strings.Join(fs.Args(), " "))
			}
			var panes []proto.PaneInfo
			if err := call(g, "list_panes", proto.ListPanesParams{Resources: *withRes}, &panes); err != nil {
				return err
			}
			if *asJSON {
				return printJSON(g.Stdout, panes)
			}
			tw := tabwriter.NewWriter(g.Stdout, 0, 4, 2, ' ', 0)
			res := ""
			if *withRes {
				res = "CPU%\tMEM\t"
			}
			fmt.Fprintln(tw, "ID\tTAB\tSIZE\tSTATUS\tACTIVITY\t"+res+"COMMAND\tTITLE")
			for _, p := range panes {
				status := p.Status
				switch {
				case p.Signal != nil:
					status += " " + *p.Signal
				case p.ExitCode != nil:
					status += fmt.Sprintf(" %d", *p.ExitCode)
				}
				mark := ""
				if p.Focused {
					mark = "*"
				}
				activity := p.Activity
				if p.Activity == "idle" {
					activity += " " + (time.Duration(p.IdleMS) * time.Millisecond).Round(time.Second).String()
				}
				if *withRes {
					activity += "\t" + cpuText(p.CPU) + "\t" + bytesText(p.RSS)
				}
				fmt.Fprintf(tw, "%d%s\t%d\t%dx%d\t%s\t%s\t%s\t%s\n", p.ID, mark, p.Tab, p.Cols, p.Rows, status, activity, shorten(client.VisibleLine(p.Command), 40), shorten(client.VisibleLine(p.Title), 30))
			}
			return tw.Flush()
		},
	})
}

// shorten cuts s to n runes with an ellipsis; --json has the whole text.
// Text from a pane is made client.VisibleLine first, so that what is cut is
// what shows.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
