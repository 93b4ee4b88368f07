package main

import (
	"fmt"

	"github.com/melmux/melmux/internal/proto"
)

func init() {
	register(&verb{
		name:    "debug",
		usage:   "[--json]",
		summary: "for diagnosis: the server's open fds, goroutines, memory and connections",
		run: func(g *globals, args []string) error {
			fs := newFlags(g, "debug")
			asJSON := fs.Bool("json", false, "print the JSON object")
			if err := parseFlags(fs, args); err != nil {
				return err
			}
			if fs.NArg() > 0 {
				return usagef("debug takes no arguments, got %q", fs.Arg(0))
			}
			var st proto.DebugStats
			if err := call(g, "debug_stats", nil, &st); err != nil {
				return err
			}
			if *asJSON {
				return printJSON(g.stdout, st)
			}
			fmt.Fprintf(g.stdout, "pid %d  fds %d (limit %d)  goroutines %d  rss %s  heap %s  panes %d  clients %d  connections %d\n",
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
