package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/melmux/melmux/internal/cli"
	"github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
)

func init() {
	cli.Register(&cli.Verb{
		Name:    "attach",
		Usage:   "[-t NAME]",
		Summary: "attach this terminal to session NAME (-t as tmux, or -s); with no name, to the session a client last attached to or left, else the one created last (`melmux` alone attaches to main, creating it)",
		Run: func(g *cli.Globals, args []string) error {
			fs := cli.NewFlags(g, "attach")
			fs.Func("t", "session name, as tmux's attach -t", func(name string) error { return cli.SetSession(g, name) })
			if err := cli.ParseFlags(fs, args); err != nil {
				return err
			}
			if fs.NArg() > 0 {
				return cli.Usagef("attach takes no arguments (a session is -t NAME), got %q", strings.Join(fs.Args(), " "))
			}
			if g.Session == "" && os.Getenv("MELMUX_SESSION") == "" && os.Getenv("MELMUX_SOCKET") == "" {
				name, err := lastUsedSession()
				if err != nil {
					return err
				}
				g.Session = name
			}
			return attach(g)
		},
	})
}

// attachOrCreate is `melmux` with no verb: attach, creating the session first
// when there is none.
func attachOrCreate(g *cli.Globals) error {
	if err := needTerminal(); err != nil {
		return err // before creating a session nobody could see
	}
	c, err := dial(g)
	if err == nil {
		c.Close()
		return attach(g)
	}
	if !errors.Is(err, client.ErrNoServer) {
		return err
	}
	cols, rows, _ := terminalSize()
	restored, err := offerRestore(g, false, cols, rows)
	if err != nil {
		return err
	}
	if !restored {
		if err := startSession(g, nil, cols, rows); err != nil {
			return err
		}
	}
	return attach(g)
}

func attach(g *cli.Globals) error {
	if id := cli.EnvPane(g); id > 0 {
		return fmt.Errorf("already inside pane %d of this session: attaching here would nest the session in itself (use -s NAME for another session)", id)
	}
	if err := needTerminal(); err != nil {
		return err
	}
	for {
		sock, err := sessionSocket(g)
		if err != nil {
			return err
		}
		reason, err := client.Attach(sock, os.Stdin, os.Stdout)
		if next, ok := proto.SwitchTarget(reason); ok && err == nil {
			// The person chose another session (C-b s): attach there.
			if err := proto.ValidateSessionName(next); err != nil {
				return fmt.Errorf("the server sent this client to a session whose name is not valid: %w", err)
			}
			g.Session = next
			continue
		}
		if reason != "" {
			fmt.Fprintf(g.Stdout, "[%s]\n", reason)
		}
		return err
	}
}

// lastUsedSession is the running session a client last attached to or left,
// else the one created last: what `attach` with no name attaches to, as
// tmux attaches to the session used most recently.
func lastUsedSession() (string, error) {
	if err := proto.CheckSocketDir(proto.SocketDir()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	best, bestAt := "", time.Time{}
	for _, s := range askSessions(sessionSockets()) {
		if s.Error != "" {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, s.Used)
		if err != nil { // a server from before `used`: when it was created
			at, _ = time.Parse(time.RFC3339, s.Created)
		}
		if best == "" || at.After(bestAt) {
			best, bestAt = s.Name, at
		}
	}
	if best == "" {
		return "", fmt.Errorf("no session runs in %s (start one with `melmux new`, or `melmux` alone; `melmux ls` lists saved ones)", proto.SocketDir())
	}
	return best, nil
}

func terminalSize() (int, int, error) {
	return term.GetSize(int(os.Stdout.Fd()))
}

func needTerminal() error {
	if !term.IsTerminal(int(os.Stdin.Fd())) || !term.IsTerminal(int(os.Stdout.Fd())) {
		return fmt.Errorf("attaching needs a terminal on stdin and stdout (for scripts: melmux new -d, then the verbs in docs/cli.md)")
	}
	return nil
}
