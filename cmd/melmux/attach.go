package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/melmux/melmux/internal/cli"
	"github.com/melmux/melmux/internal/client"
)

func init() {
	cli.Register(&cli.Verb{
		Name:    "attach",
		Usage:   "",
		Summary: "attach this terminal to the session (`melmux` alone also creates it)",
		Run: func(g *cli.Globals, args []string) error {
			fs := cli.NewFlags(g, "attach")
			if err := cli.ParseFlags(fs, args); err != nil {
				return err
			}
			if fs.NArg() > 0 {
				return cli.Usagef("attach takes no arguments, got %q", strings.Join(fs.Args(), " "))
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
	sock, err := sessionSocket(g)
	if err != nil {
		return err
	}
	reason, err := client.Attach(sock, os.Stdin, os.Stdout)
	if reason != "" {
		fmt.Fprintf(g.Stdout, "[%s]\n", reason)
	}
	return err
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
