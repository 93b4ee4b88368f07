package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/melmux/melmux/internal/cli"
	"github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/sessionstate"
)

// lsTimeout bounds how long ls waits for each server: a stopped or stuck one
// is listed as not responding rather than holding the listing up.
var lsTimeout = 3 * time.Second

func init() {
	cli.Register(&cli.Verb{
		Name:    "ls",
		Usage:   "[--json]",
		Summary: "list sessions: name, panes, attached clients, created",
		Run: func(g *cli.Globals, args []string) error {
			fs := cli.NewFlags(g, "ls")
			asJSON := fs.Bool("json", false, "print a JSON array")
			if err := cli.ParseFlags(fs, args); err != nil {
				return err
			}
			if err := proto.CheckSocketDir(proto.SocketDir()); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
			sessions := askSessions(sessionSockets())
			sessions = append(sessions, savedSessions(sessions)...)
			sort.Slice(sessions, func(i, j int) bool { return sessions[i].Name < sessions[j].Name })
			if *asJSON {
				return printJSON(g.Stdout, sessions)
			}
			if len(sessions) == 0 {
				return fmt.Errorf("no sessions in %s and none saved (start one with `melmux new -d`)", proto.SocketDir())
			}
			// Names come from the socket and state files' names, errors
			// from what a server answered.
			v := client.VisibleLine
			tw := tabwriter.NewWriter(g.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tPANES\tCLIENTS\tSIZE\tCREATED")
			for _, s := range sessions {
				if s.Saved != "" {
					when := s.Saved
					if t, err := time.Parse(time.RFC3339, s.Saved); err == nil {
						when = t.Local().Format("2006-01-02 15:04:05")
					}
					fmt.Fprintf(tw, "%s\t%d\t-\t%dx%d\tnot running; saved %s: `melmux restore %s`\n", v(s.Name), s.Panes, s.Cols, s.Rows, when, v(s.Name))
					continue
				}
				if s.Error != "" {
					fmt.Fprintf(tw, "%s\t-\t-\t-\t%s\n", v(s.Name), v(s.Error))
					continue
				}
				created := s.Created
				if t, err := time.Parse(time.RFC3339, s.Created); err == nil {
					created = t.Local().Format("2006-01-02 15:04:05")
				}
				fmt.Fprintf(tw, "%s\t%d\t%d\t%dx%d\t%s\n", v(s.Name), s.Panes, s.Clients, s.Cols, s.Rows, v(created))
			}
			return tw.Flush()
		},
	})
}

// savedSessions are the sessions with a saved state and no server among
// running: a server that was killed, or a machine that went down, leaves
// one, and `melmux restore NAME` rebuilds it. A state that cannot be read
// is listed with why.
func savedSessions(running []proto.SessionInfo) []proto.SessionInfo {
	dir, err := sessionstate.Dir()
	if err != nil {
		return nil
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	var saved []proto.SessionInfo
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		if slices.ContainsFunc(running, func(s proto.SessionInfo) bool { return s.Name == name }) {
			continue
		}
		st, err := sessionstate.Read(f)
		if errors.Is(err, sessionstate.ErrNoState) {
			continue // gone meanwhile
		}
		if err != nil {
			saved = append(saved, proto.SessionInfo{Name: name, Error: "not running; " + err.Error()})
			continue
		}
		saved = append(saved, proto.SessionInfo{Name: name, Panes: len(st.Panes), Cols: st.Cols, Rows: st.Rows,
			Saved: st.Saved.Format(time.RFC3339)})
	}
	return saved
}

// sessionSockets are the sockets sessions may listen on: those in the
// socket directory, and $MELMUX_SOCKET.
func sessionSockets() []string {
	socks, _ := filepath.Glob(filepath.Join(proto.SocketDir(), "*.sock"))
	if env := os.Getenv("MELMUX_SOCKET"); env != "" && !contains(socks, env) {
		socks = append(socks, env)
	}
	return socks
}

// askSessions asks every socket's server about its session, all at once.
// A stale socket (nobody listens) is left out; a server that holds its
// socket but does not answer is listed with why.
func askSessions(socks []string) []proto.SessionInfo {
	var mu sync.Mutex // guards sessions
	sessions := []proto.SessionInfo{}
	var wg sync.WaitGroup
	for _, sock := range socks {
		wg.Go(func() {
			info, err := askSession(sock)
			if errors.Is(err, client.ErrNoServer) {
				return
			}
			if err != nil {
				name := strings.TrimSuffix(filepath.Base(sock), ".sock")
				msg := "not responding: " + err.Error()
				if errors.Is(err, proto.ErrUnsafeSocket) {
					msg = err.Error() // another user's server: it may well answer
				}
				info = proto.SessionInfo{Name: name, Socket: sock, Error: msg}
			}
			mu.Lock()
			defer mu.Unlock()
			sessions = append(sessions, info)
		})
	}
	wg.Wait()
	return sessions
}

func askSession(sock string) (proto.SessionInfo, error) {
	var info proto.SessionInfo
	if fi, err := os.Lstat(sock); err == nil && fi.Mode()&fs.ModeSocket == 0 {
		return info, fmt.Errorf("%w: %s is not a socket", client.ErrNoServer, sock)
	}
	c, err := client.DialTimeout(sock, lsTimeout)
	if err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return info, fmt.Errorf("no answer within %s", lsTimeout)
		}
		return info, err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), lsTimeout)
	defer cancel()
	if err := c.Call(ctx, "ls", nil, &info); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return info, fmt.Errorf("no answer within %s", lsTimeout)
		}
		return info, err
	}
	return info, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
