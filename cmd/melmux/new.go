package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/melmux/melmux/internal/cli"
	"github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/config"
	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/server"
)

func init() {
	cli.Register(&cli.Verb{
		Name:    "new",
		Usage:   "[-d] [-x COLS -y ROWS] [-- CMD...]",
		Summary: "start a session (-d: stay detached, default size 200x50)",
		Run: func(g *cli.Globals, args []string) error {
			fs := cli.NewFlags(g, "new")
			detached := fs.Bool("d", false, "do not attach")
			cols := fs.Int("x", 0, "columns (default 200 detached, else the terminal's)")
			rows := fs.Int("y", 0, "rows (default 50 detached, else the terminal's)")
			if err := cli.ParseFlags(fs, args); err != nil {
				return err
			}
			if !inRange(*cols, server.MinSessionCols, server.MaxSessionCols) || !inRange(*rows, server.MinSessionRows, server.MaxSessionRows) {
				return cli.Usagef("new: -x must be %d-%d and -y %d-%d", server.MinSessionCols, server.MaxSessionCols, server.MinSessionRows, server.MaxSessionRows)
			}
			if !*detached && (*cols == 0 || *rows == 0) {
				if c, r, err := terminalSize(); err == nil {
					if *cols == 0 {
						*cols = c
					}
					if *rows == 0 {
						*rows = r
					}
				}
			}
			restored, err := offerRestore(g, *detached, *cols, *rows)
			if err != nil {
				return err
			}
			if !restored {
				if err := startSession(g, fs.Args(), *cols, *rows); err != nil {
					return err
				}
			}
			if *detached {
				return nil
			}
			return attach(g)
		},
	})
}

// inRange accepts 0 (not given) or lo..hi.
func inRange(v, lo, hi int) bool { return v == 0 || (v >= lo && v <= hi) }

// startSession starts a daemon for the session and creates its first pane.
func startSession(g *cli.Globals, argv []string, cols, rows int) error {
	name := proto.SessionName(g.Session)
	sock, err := sessionSocket(g)
	if err != nil {
		return err
	}
	if c, err := client.Dial(sock); err == nil {
		c.Close()
		return fmt.Errorf("session %q already exists (socket %s); attach with `melmux -s %s attach` or end it with `melmux -s %s kill-server`", name, sock, name, name)
	} else if errors.Is(err, proto.ErrUnsafeSocket) {
		return err
	}
	if _, err := config.Load(); err != nil {
		fmt.Fprintf(g.Stderr, "melmux: %v (starting with the defaults)\n", err)
	}
	if err := spawnDaemon(name, sock); err != nil {
		return err
	}
	c, err := client.Dial(sock)
	if err != nil {
		return fmt.Errorf("the new session did not answer: %w", err)
	}
	defer c.Close()
	cwd, _ := os.Getwd()
	err = c.Call(context.Background(), "new", proto.NewParams{Command: argv, Cwd: cwd, Cols: cols, Rows: rows, Env: os.Environ()}, nil)
	if err != nil {
		// Best effort: a session whose first pane failed is of no use.
		_ = c.Call(context.Background(), "kill_server", nil, nil)
		return err
	}
	return nil
}

// spawnDaemon runs `melmux __serve` in its own process session and waits for
// it to say it listens (or why it cannot).
func spawnDaemon(name, sock string) error {
	exe, err := selfPath()
	if err != nil {
		return err
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	defer pr.Close()
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		pw.Close()
		return err
	}
	defer devnull.Close()
	cmd := exec.Command(exe, "__serve", "-s", name, "--socket", sock, "--ready-fd", "3")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = devnull, devnull, devnull
	cmd.ExtraFiles = []*os.File{pw}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		pw.Close()
		return fmt.Errorf("start the session server: %w", err)
	}
	pw.Close()
	// The daemon is on its own; do not leave a zombie if it dies early.
	go func() { _ = cmd.Wait() }()
	type answer struct {
		line string
		err  error
	}
	ch := make(chan answer, 1)
	go func() {
		line, err := bufio.NewReader(pr).ReadString('\n')
		ch <- answer{line, err}
	}()
	select {
	case a := <-ch:
		line := strings.TrimSpace(a.line)
		if line == "ok" {
			return nil
		}
		if line == "" {
			return fmt.Errorf("the session server exited before it was ready (see %s)", logPath(name))
		}
		return fmt.Errorf("the session server could not start: %s", line)
	case <-time.After(10 * time.Second):
		return fmt.Errorf("the session server did not become ready within 10s (see %s)", logPath(name))
	}
}

// selfPath finds this program so the daemon runs the same binary. The name it
// was started by comes first: it is the binary a test harness put on PATH, and
// a symlinked install resolves to the same file anyway.
func selfPath() (string, error) {
	if p, err := exec.LookPath(os.Args[0]); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs, nil
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the melmux binary: %w", err)
	}
	return exe, nil
}
