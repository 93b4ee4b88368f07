package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
)

func init() {
	register(&verb{
		name:    "ls",
		usage:   "[--json]",
		summary: "list sessions: name, panes, attached clients, created",
		run: func(g *globals, args []string) error {
			fs := newFlags(g, "ls")
			asJSON := fs.Bool("json", false, "print a JSON array")
			if err := parseFlags(fs, args); err != nil {
				return err
			}
			socks, _ := filepath.Glob(filepath.Join(proto.SocketDir(), "*.sock"))
			if env := os.Getenv("MELMUX_SOCKET"); env != "" && !contains(socks, env) {
				socks = append(socks, env)
			}
			sessions := []proto.SessionInfo{}
			for _, sock := range socks {
				c, err := client.Dial(sock)
				if err != nil {
					continue // a stale socket of a server that is gone
				}
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				var info proto.SessionInfo
				err = c.Call(ctx, "ls", nil, &info)
				cancel()
				c.Close()
				if err == nil {
					sessions = append(sessions, info)
				}
			}
			sort.Slice(sessions, func(i, j int) bool { return sessions[i].Name < sessions[j].Name })
			if *asJSON {
				return printJSON(g.stdout, sessions)
			}
			if len(sessions) == 0 {
				return fmt.Errorf("no sessions in %s (start one with `melmux new -d`)", proto.SocketDir())
			}
			tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tPANES\tCLIENTS\tSIZE\tCREATED")
			for _, s := range sessions {
				created := s.Created
				if t, err := time.Parse(time.RFC3339, s.Created); err == nil {
					created = t.Local().Format("2006-01-02 15:04:05")
				}
				fmt.Fprintf(tw, "%s\t%d\t%d\t%dx%d\t%s\n", s.Name, s.Panes, s.Clients, s.Cols, s.Rows, created)
			}
			return tw.Flush()
		},
	})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
