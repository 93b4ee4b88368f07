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
		Name:    "hosts",
		Usage:   "[--json]",
		Summary: "list the hosts the session's panes run on (open-pane --host), with the state of their links",
		Run: func(g *cli.Globals, args []string) error {
			fs := cli.NewFlags(g, "hosts")
			asJSON := fs.Bool("json", false, "print the result as JSON")
			if err := cli.ParseFlags(fs, args); err != nil {
				return err
			}
			if fs.NArg() > 0 {
				return cli.Usagef("hosts takes no arguments, got %q", fs.Arg(0))
			}
			var res proto.HostsResult
			if err := call(g, "hosts", nil, &res); err != nil {
				return err
			}
			if *asJSON {
				return printJSON(g.Stdout, res.Hosts)
			}
			if len(res.Hosts) == 0 {
				fmt.Fprintln(g.Stderr, "melmux: no pane of this session runs on another host (open-pane --host DEST)")
				return nil
			}
			v := client.VisibleLine
			tw := tabwriter.NewWriter(g.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "HOST\tSTATE\tSINCE\tPANES\tWHY")
			for _, h := range res.Hosts {
				panes := make([]string, len(h.Panes))
				for i, id := range h.Panes {
					panes[i] = strconv.Itoa(id)
				}
				since := time.UnixMilli(h.Since).Local().Format("2006-01-02 15:04:05")
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", v(h.Host), h.State, since, strings.Join(panes, ","), v(h.Error))
			}
			return tw.Flush()
		},
	})
}
