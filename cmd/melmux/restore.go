package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/term"

	"github.com/melmux/melmux/internal/cli"
	"github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/sessionstate"
)

func init() {
	cli.Register(&cli.Verb{
		Name:    "restore",
		Usage:   "[-d] [-x COLS -y ROWS] [--discard] [NAME]",
		Summary: "rebuild a session that is gone from its saved state (--discard: forget it)",
		Run: func(g *cli.Globals, args []string) error {
			fs := cli.NewFlags(g, "restore")
			detached := fs.Bool("d", false, "do not attach")
			discard := fs.Bool("discard", false, "forget the saved state instead")
			cols := fs.Int("x", 0, "columns (default: the terminal's, or as saved with -d)")
			rows := fs.Int("y", 0, "rows (default: the terminal's, or as saved with -d)")
			if err := cli.ParseFlags(fs, args); err != nil {
				return err
			}
			switch {
			case fs.NArg() > 1:
				return cli.Usagef("restore takes one session name, got %q", strings.Join(fs.Args(), " "))
			case fs.NArg() == 1:
				if g.Session != "" && g.Session != fs.Arg(0) {
					return cli.Usagef("restore: -s %s and NAME %s name two sessions; give one", g.Session, fs.Arg(0))
				}
				if err := cli.SetSession(g, fs.Arg(0)); err != nil {
					return err
				}
			}
			if !inRange(*cols, proto.MinSessionCols, proto.MaxSessionCols) || !inRange(*rows, proto.MinSessionRows, proto.MaxSessionRows) {
				return cli.Usagef("restore: -x must be %d-%d and -y %d-%d", proto.MinSessionCols, proto.MaxSessionCols, proto.MinSessionRows, proto.MaxSessionRows)
			}
			st, path, err := savedState(g)
			if err != nil {
				return err
			}
			if *discard {
				if err := sessionstate.Remove(path); err != nil {
					return err
				}
				fmt.Fprintf(g.Stdout, "forgot the saved state of session %q (%s)\n", sessionLabel(g), st.Summary(time.Now()))
				return nil
			}
			if !*detached {
				if err := needTerminal(); err != nil {
					return err
				}
				if *cols == 0 || *rows == 0 {
					if c, r, err := terminalSize(); err == nil {
						*cols, *rows = or(*cols, c), or(*rows, r)
					}
				}
			}
			res, err := restoreSession(g, *cols, *rows)
			if err != nil {
				return err
			}
			if *detached {
				return printRestored(g, res)
			}
			return attach(g)
		},
	})
}

func or(v, def int) int {
	if v != 0 {
		return v
	}
	return def
}

// savedState reads the state of the session named by -s that no server
// answers for. The errors say what to do: attach to a session that runs,
// start one that has no saved state.
func savedState(g *cli.Globals) (*sessionstate.State, string, error) {
	name := sessionLabel(g)
	sock, err := sessionSocket(g)
	if err != nil {
		return nil, "", err
	}
	if c, err := client.Dial(sock); err == nil {
		c.Close()
		return nil, "", fmt.Errorf("session %q is running; attach with `melmux -s %s attach`", name, name)
	} else if errors.Is(err, proto.ErrUnsafeSocket) {
		return nil, "", err
	}
	st, path, err := readState(g)
	if errors.Is(err, sessionstate.ErrNoState) {
		// The session named may not be the one that was lost: say which
		// ones can be restored.
		for _, s := range savedSessions(nil) {
			if s.Error == "" {
				err = fmt.Errorf("%w; session %q has one: `melmux restore %s`", err, s.Name, s.Name)
			}
		}
	}
	return st, path, err
}

// readState reads the session's saved state, for a caller that found no
// server answering for it.
func readState(g *cli.Globals) (*sessionstate.State, string, error) {
	name := sessionLabel(g)
	path, err := sessionstate.Path(name)
	if err != nil {
		return nil, "", err
	}
	st, err := sessionstate.Read(path)
	if errors.Is(err, sessionstate.ErrNoState) {
		return nil, "", fmt.Errorf("session %q has %w to restore (%s); start it with `melmux -s %s new`", name, sessionstate.ErrNoState, path, name)
	}
	return st, path, err
}

// restoreSession starts a server for the session and has it rebuild the
// saved panes. If that fails the server is ended; it wrote nothing, so the
// saved state stays for another try.
func restoreSession(g *cli.Globals, cols, rows int) (*proto.RestoreResult, error) {
	name := proto.SessionName(g.Session)
	sock, err := sessionSocket(g)
	if err != nil {
		return nil, err
	}
	if err := spawnDaemon(g, name, sock); err != nil {
		return nil, err
	}
	c, err := client.Dial(sock)
	if err != nil {
		return nil, fmt.Errorf("the new session did not answer: %w", err)
	}
	defer c.Close()
	var res proto.RestoreResult
	if err := c.Call(context.Background(), "restore", proto.RestoreParams{Cols: cols, Rows: rows, Env: os.Environ()}, &res); err != nil {
		// Best effort: a session that could not be rebuilt is of no use.
		_ = c.Call(context.Background(), "kill_server", nil, nil)
		return nil, err
	}
	return &res, nil
}

// printRestored lists what each pane became.
func printRestored(g *cli.Globals, res *proto.RestoreResult) error {
	fmt.Fprintf(g.Stdout, "restored session %q as saved at %s\n", res.Session, res.Saved)
	tw := tabwriter.NewWriter(g.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTAB\tCOMMAND\tHOW")
	for _, p := range res.Panes {
		how := p.How
		if p.Note != "" {
			how = strings.TrimPrefix(how+"; "+p.Note, "; ")
		}
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\n", p.ID, p.Tab, shorten(client.VisibleLine(p.Command), 80), client.VisibleLine(how))
	}
	return tw.Flush()
}

// offerRestore is asked by `new` and `melmux` alone before they start a
// session: when the session has saved state and no server runs for it
// (noSession), a person at a
// terminal is asked whether to restore it (restored reports yes: the
// session runs); otherwise the answer is an error saying how to restore or
// forget it, so a script never loses a session's state by starting afresh
// over it. A state file that cannot be restored is said and left to be
// replaced.
func offerRestore(g *cli.Globals, detached bool, cols, rows int) (restored bool, err error) {
	st, path, err := readState(g)
	if err != nil {
		if errors.Is(err, sessionstate.ErrInvalid) {
			fmt.Fprintf(g.Stderr, "melmux: the saved state cannot be restored (%v); starting afresh\n", err)
			return false, nil
		}
		return false, nil // no saved state
	}
	if err := noSession(g); err != nil {
		return false, err
	}
	name := sessionLabel(g)
	what := fmt.Sprintf("session %q was not shut down: it has a saved state (%s)", name, st.Summary(time.Now()))
	if detached || !isTerminal(os.Stdin) || !isTerminal(os.Stdout) {
		return false, fmt.Errorf("%s; `melmux restore %s` brings it back, `melmux restore --discard %s` forgets it so that a new one can start", what, name, name)
	}
	in := bufio.NewReader(g.Stdin)
	for {
		fmt.Fprintf(g.Stdout, "melmux: %s.\nRestore it? [Y/n] (n forgets it and starts a new session) ", what)
		line, err := in.ReadString('\n')
		if err != nil && line == "" {
			return false, fmt.Errorf("no answer: %w (nothing changed; `melmux restore %s` restores it)", err, name)
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "", "y", "yes":
			_, err := restoreSession(g, cols, rows)
			return err == nil, err
		case "n", "no":
			return false, sessionstate.Remove(path)
		}
		fmt.Fprintln(g.Stdout, "Answer y or n.")
	}
}

func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }
