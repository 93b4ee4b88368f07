package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/melmux/melmux/internal/cli"
	"github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
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
			if !inRange(*cols, proto.MinSessionCols, proto.MaxSessionCols) || !inRange(*rows, proto.MinSessionRows, proto.MaxSessionRows) {
				return cli.Usagef("new: -x must be %d-%d and -y %d-%d", proto.MinSessionCols, proto.MaxSessionCols, proto.MinSessionRows, proto.MaxSessionRows)
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

// noSession checks that no server answers for the session `new` would
// start. Only a session with a saved state needs the look before the
// daemon's own (a running server keeps its state file, so a state is no
// proof that a session was not shut down): otherwise the daemon finds a
// server that runs, says so and starts nothing, and the look would cost
// every session start a dial.
func noSession(g *cli.Globals) error {
	name := proto.SessionName(g.Session)
	sock, err := sessionSocket(g)
	if err != nil {
		return err
	}
	if c, err := client.Dial(sock); err == nil {
		c.Close()
		return proto.SessionExists(name, sock)
	} else if errors.Is(err, proto.ErrUnsafeSocket) {
		return err
	}
	return nil
}

// startSession starts a daemon for the session, which starts the first pane
// itself before it says it is ready: it inherits this process's environment
// and directory, the pane's own. A first pane that cannot start ends the
// daemon with it, so no empty session is left behind. The caller found no
// server for the session (a daemon that finds one says so).
func startSession(g *cli.Globals, argv []string, cols, rows int) error {
	name := proto.SessionName(g.Session)
	sock, err := sessionSocket(g)
	if err != nil {
		return err
	}
	first := []string{"--new"}
	if cols > 0 {
		first = append(first, "-x", strconv.Itoa(cols))
	}
	if rows > 0 {
		first = append(first, "-y", strconv.Itoa(rows))
	}
	return spawnDaemon(g, name, sock, append(append(first, "--"), argv...)...)
}

// spawnDaemon runs `melmux-server __serve` (with extra arguments) in its own
// process session and waits for it to say it is ready (or why it cannot be),
// printing the warnings it gives before. The daemon is told this melmux's
// path: the ":" prompt and spawn_agent run it.
func spawnDaemon(g *cli.Globals, name, sock string, extra ...string) error {
	exe, err := selfPath()
	if err != nil {
		return err
	}
	bin, err := serverPath(exe)
	if err != nil {
		return fmt.Errorf("start the session server: %w", err)
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
	// syscall.ForkExec rather than os/exec: the daemon needs nothing os/exec
	// adds, and os/exec's first start in a process forks a throwaway child
	// to probe for pidfd support, on the way of every session start.
	argv := append([]string{bin, "__serve", "-s", name, "--socket", sock, "--ready-fd", "3", "--cli", exe}, extra...)
	pid, err := syscall.ForkExec(bin, argv, &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: []uintptr{devnull.Fd(), devnull.Fd(), devnull.Fd(), pw.Fd()},
		Sys:   &syscall.SysProcAttr{Setsid: true},
	})
	pw.Close()
	if err != nil {
		return fmt.Errorf("start the session server: %w", err)
	}
	// The daemon is on its own; do not leave a zombie if it dies early.
	go func() {
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(pid, &ws, 0, nil)
	}()
	ch := make(chan error, 1)
	go func() { ch <- readReady(g, pr, name) }()
	select {
	case err := <-ch:
		return err
	case <-time.After(10 * time.Second):
		return fmt.Errorf("the session server did not become ready within 10s (see %s)", proto.LogPath(name))
	}
}

// readReady reads the daemon's ready pipe (proto.ReadyOK says what it
// carries).
func readReady(g *cli.Globals, pipe *os.File, name string) error {
	r := bufio.NewReader(pipe)
	for {
		line, _ := r.ReadString('\n')
		line = strings.TrimSpace(line)
		switch {
		case line == proto.ReadyOK:
			return nil
		case strings.HasPrefix(line, proto.ReadyWarn):
			fmt.Fprintf(g.Stderr, "melmux: %s\n", strings.TrimPrefix(line, proto.ReadyWarn))
		case strings.HasPrefix(line, proto.ReadyErr):
			pe := &proto.Error{}
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, proto.ReadyErr)), pe); err != nil || pe.Message == "" {
				return fmt.Errorf("the session server could not start: %s", line)
			}
			return pe
		case line == "":
			return fmt.Errorf("the session server exited before it was ready (see %s)", proto.LogPath(name))
		default:
			return fmt.Errorf("the session server could not start: %s", line)
		}
	}
}

// serverPath is the daemon's binary: melmux-server, found as melmux finds
// melmux-agent, without a hop through `melmux __serve`, which would cost a
// whole process start; or exe itself when the real __serve is linked into it
// (cmd/melmux's tests link internal/serveverb).
func serverPath(exe string) (string, error) {
	if v := cli.Lookup("__serve"); v != nil && !v.StandIn {
		return exe, nil
	}
	return cli.FindBinary(cli.ServerBinary, serverHolds)
}

// selfPath finds this program, for the daemon to run as the CLI. The name it
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
