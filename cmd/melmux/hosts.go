package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/melmux/melmux/internal/cli"
	"github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/remote"
)

// checkTimeout bounds a whole `hosts --check`: ssh's own connect timeout
// is 15 s a connection, and a session answers within seconds.
const checkTimeout = 3 * time.Minute

func init() {
	cli.Register(&cli.Verb{
		Name:    "hosts",
		Usage:   "[--json] | --check DEST [--json]",
		Summary: "list the hosts the session's panes run on (open-pane --host) and those the config names for placement: each link's state, round trip (LATENCY), panes and agents; --check DEST tests a host",
		Run: func(g *cli.Globals, args []string) error {
			fs := cli.NewFlags(g, "hosts")
			asJSON := fs.Bool("json", false, "print the result as JSON (the hosts; with --check, the steps)")
			check := fs.String("check", "", "test the host `DEST` (an ssh alias, user@host or host:port) as a first pane there would use it, "+
				"without opening one, copying anything or needing a session here: ssh, the platform, this build there (or what would be copied), "+
				"the data directory, a melmux session answering, the round trip; a line each, ok or failed with what to do; exit status 1 when a step failed. "+
				"LATENCY in the list is the median of the link's last pings over its live ssh channel, - while not connected; "+
				"AGENTS counts the agents running there as a lead's placement does, /N with the host's max_agents")
			if err := cli.ParseFlags(fs, args); err != nil {
				return err
			}
			if fs.NArg() > 0 {
				return cli.Usagef("hosts takes no arguments, got %q (to test a host: hosts --check DEST)", fs.Arg(0))
			}
			if *check != "" || flagGiven(fs, "check") {
				return checkHost(g, *check, *asJSON)
			}
			var res proto.HostsResult
			if err := call(g, "hosts", nil, &res); err != nil {
				return err
			}
			if *asJSON {
				return printJSON(g.Stdout, res.Hosts)
			}
			if len(res.Hosts) == 0 {
				fmt.Fprintln(g.Stderr, "melmux: no pane of this session runs on another host (open-pane --host DEST), and the config names none for placement ([agent] spawn_hosts)")
				return nil
			}
			return printHosts(g.Stdout, res.Hosts)
		},
	})
}

// printHosts writes the hosts as a table.
func printHosts(w io.Writer, hosts []proto.HostInfo) error {
	v := client.VisibleLine
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "HOST\tSTATE\tSINCE\tLATENCY\tPANES\tAGENTS\tWHY")
	for _, h := range hosts {
		panes := "0"
		if len(h.Panes) > 0 {
			ids := make([]string, len(h.Panes))
			for i, id := range h.Panes {
				ids[i] = strconv.Itoa(id)
			}
			panes = fmt.Sprintf("%d (%s)", len(h.Panes), strings.Join(ids, ","))
		}
		since := "-"
		if h.Since != 0 {
			since = time.UnixMilli(h.Since).Local().Format("2006-01-02 15:04:05")
		}
		agents := strconv.Itoa(h.Agents)
		if h.MaxAgents > 0 {
			agents += "/" + strconv.Itoa(h.MaxAgents)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", v(h.Host), h.State, since, latency(h.LatencyMS), panes, agents, v(h.Error))
	}
	return tw.Flush()
}

// latency shows a round trip in milliseconds, - when there is none.
func latency(ms *float64) string {
	switch {
	case ms == nil:
		return "-"
	case *ms < 10:
		return fmt.Sprintf("%.1f ms", *ms)
	}
	return fmt.Sprintf("%.0f ms", *ms)
}

// flagGiven says the flag was on the command line, even empty.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// checkHost is hosts --check DEST: run here, by this melmux with this
// environment's ssh ($MELMUX_SSH), as a pane's __remote would run.
func checkHost(g *cli.Globals, dest string, asJSON bool) error {
	if strings.TrimSpace(dest) == "" || strings.HasPrefix(dest, "-") {
		return cli.Usagef("hosts --check: give the host as ssh takes it (an alias, user@host or host:port), got %q", dest)
	}
	bins, err := localBinaries()
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	v := client.VisibleLine
	each := func(st remote.CheckStep) {
		if asJSON {
			return
		}
		fmt.Fprintf(g.Stdout, "%-10s  %-7s  %s\n", st.Name, st.Status, v(st.Detail))
		if st.Fix != "" {
			fmt.Fprintf(g.Stdout, "%-10s  %-7s  to do: %s\n", "", "", v(st.Fix))
		}
	}
	res := remote.Check(ctx, sshCommand(), dest, bins, each)
	if asJSON {
		if err := printJSON(g.Stdout, res); err != nil {
			return err
		}
	}
	if !res.OK {
		return &cli.ExitError{Code: 1, Msg: fmt.Sprintf("%s failed the check", dest)}
	}
	return nil
}
