package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/tmuxtest"
)

// The attached client hands its terminal to the server, which reads and
// writes it itself. These tests check that the terminal comes back to the
// shell the client ran in, whichever way the client leaves: the server must
// stop writing to it, and its blocking mode (the server reads it without
// blocking, and the mode belongs to the file description the shell shares)
// must be as it was, or the shell's next read fails with EAGAIN.

// shellClient is a session with `melmux attach` run from a shell in tmux,
// which stands in for the person's terminal.
type shellClient struct {
	se    *sessionEnv
	outer *tmuxtest.Server
	keys  func(...string)
}

func (sc *shellClient) wait(t *testing.T, what string, cond func(string) bool) string {
	t.Helper()
	return sc.outer.WaitFor("%0", 15*time.Second, what, cond)
}

func has(s string) func(string) bool {
	return func(screen string) bool { return strings.Contains(screen, s) }
}

var stdinFlags = regexp.MustCompile(`FLAGS=([0-7]+)`)

// attachFromShell starts a session of one shell pane and attaches to it
// from a shell in tmux. When the client has left, that shell prints how its
// stdin is open (/proc's octal flags) before it reads the terminal again:
// dash, for one, turns O_NONBLOCK off itself when a read fails with EAGAIN.
// With a gate, it waits for that file to exist first.
func attachFromShell(t *testing.T, gate string) *shellClient {
	t.Helper()
	tmuxtest.Require(t)
	se := newSessionEnv(t)
	se.must("new", "-d", "-x", "100", "-y", "30", "--", "sh")
	outer := tmuxtest.Start(t, 100, 30, se.inShell("PS1='outer$ ' /bin/sh"))
	sc := &shellClient{se: se, outer: outer, keys: sendKeys(t, outer, "%0")}
	sc.wait(t, "the outer prompt", has("outer$"))
	line := se.bin + " attach; "
	if gate != "" {
		line += "while [ ! -e '" + gate + "' ]; do sleep 0.05; done; "
	}
	sc.keys(line+"echo FLAGS=$(grep flags /proc/$$/fdinfo/0 | tr -dc 0-7)", "Enter")
	sc.wait(t, "the status line", has("[main] 0:"))
	waitSession(t, se, func(s proto.SessionInfo) bool { return s.Clients == 1 })
	return sc
}

// shellBlocks waits for the flags the shell prints once the client has
// left, and reports whether its stdin blocks.
func (sc *shellClient) shellBlocks(t *testing.T) bool {
	t.Helper()
	screen := sc.wait(t, "the shell's stdin flags", stdinFlags.MatchString)
	flags, err := strconv.ParseUint(stdinFlags.FindStringSubmatch(screen)[1], 8, 64)
	if err != nil {
		t.Fatal(err)
	}
	return flags&syscall.O_NONBLOCK == 0
}

// Detached, the client says why and the shell has a blocking terminal.
func TestDetachGivesTheTerminalBackInsideTmux(t *testing.T) {
	t.Parallel()
	sc := attachFromShell(t, "")
	sc.keys("C-b", "d")
	sc.wait(t, "the detach message", has("[detached (from session main)]"))
	if !sc.shellBlocks(t) {
		t.Fatal("after detach the shell's terminal is left non-blocking")
	}
}

// A client killed with SIGKILL cannot clean up: the server sees its
// connection end and must let go of the terminal at once. Output in the
// session after that does not reach the terminal, the terminal blocks
// again, and the session lives on.
func TestKilledClientLetsGoOfTheTerminalInsideTmux(t *testing.T) {
	t.Parallel()
	gate := filepath.Join(t.TempDir(), "gate")
	sc := attachFromShell(t, gate)
	killClients(t, sc.outer, "%0", syscall.SIGKILL)
	waitSession(t, sc.se, func(s proto.SessionInfo) bool { return s.Clients == 0 && s.Panes == 1 })
	sc.se.must("send-keys", "-t", "1", `echo marker-$((6*7))\n`)
	if !paneShows(sc.se, "1", "marker-42", 10*time.Second) {
		t.Fatal("the session did not go on after its client was killed")
	}
	// The shell's own output, after the marker's: were the server still
	// drawing, the marker would be on the screen by then.
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	blocks := sc.shellBlocks(t)
	sc.keys("stty sane; echo outer-$((3+4))", "C-j")
	if screen := sc.wait(t, "the outer shell", has("outer-7")); strings.Contains(screen, "marker-42") {
		t.Fatalf("the server drew on the terminal after its client was killed:\n%s", screen)
	}
	if !blocks {
		t.Fatal("after the client was killed the shell's terminal is left non-blocking")
	}
}

// A server killed with SIGKILL cannot let go of the terminal: the client,
// which sees its connection end, makes it blocking again.
func TestServerKilledUnderTheClientInsideTmux(t *testing.T) {
	t.Parallel()
	sc := attachFromShell(t, "")
	if err := syscall.Kill(serverPID(t, sc.se), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	sc.wait(t, "the client's message", has("[server exited]"))
	if !sc.shellBlocks(t) {
		t.Fatal("after the server was killed the shell's terminal is left non-blocking")
	}
}
