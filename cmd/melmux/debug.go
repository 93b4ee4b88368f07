package main

import (
	"fmt"

	"github.com/melmux/melmux/internal/cli"
	"github.com/melmux/melmux/internal/proto"
)

func init() {
	cli.Register(&cli.Verb{
		Name:    "debug",
		Usage:   "[--json]",
		Summary: "for diagnosis: the server's open fds, goroutines, memory and connections",
		Run: func(g *cli.Globals, args []string) error {
			fs := cli.NewFlags(g, "debug")
			asJSON := fs.Bool("json", false, "print the JSON object")
			if err := cli.ParseFlags(fs, args); err != nil {
				return err
			}
			if fs.NArg() > 0 {
				return cli.Usagef("debug takes no arguments, got %q", fs.Arg(0))
			}
			var st proto.DebugStats
			if err := call(g, "debug_stats", nil, &st); err != nil {
				return err
			}
			if *asJSON {
				return printJSON(g.Stdout, st)
			}
			fmt.Fprintf(g.Stdout, "pid %d  fds %d (limit %d)  goroutines %d  rss %s  heap %s  panes %d  clients %d  connections %d\n",
				st.PID, st.FDs, st.FDLimit, st.Goroutines, mib(st.RSSBytes), mib(int64(st.HeapBytes)), st.Panes, st.Clients, st.Conns)
			return nil
		},
	})
}

func mib(b int64) string {
	if b < 0 {
		return "?"
	}
	return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
}
