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

// outerShell starts tmux as the person's terminal, running a shell with the
// prompt outer$; the returned functions type keys and wait for the screen.
func outerShell(t *testing.T, se *sessionEnv) (keys func(...string), wait func(string, func(string) bool) string, outer *tmuxtest.Server) {
	t.Helper()
	outer = tmuxtest.Start(t, 100, 30, se.inShell("PS1='outer$ ' /bin/sh"))
	keys = typer(t, outer, "%0")
	wait = func(what string, cond func(string) bool) string {
		t.Helper()
		return outer.WaitFor("%0", 15*time.Second, what, cond)
	}
	wait("the outer prompt", has("outer$"))
	return keys, wait, outer
}

func has(s string) func(string) bool {
	return func(screen string) bool { return strings.Contains(screen, s) }
}

var stdinFlags = regexp.MustCompile(`FLAGS=([0-7]+)`)

// attachFromShell runs `melmux attach` in the outer shell and waits for it
// to be drawn. When the client has left, the shell prints how its stdin is
// open (/proc's octal flags) before it reads the terminal again: dash, for
// one, turns O_NONBLOCK off itself when a read fails with EAGAIN. With a
// gate, it waits for that file to exist first.
func attachFromShell(t *testing.T, se *sessionEnv, keys func(...string), wait func(string, func(string) bool) string, gate string) {
	t.Helper()
	line := se.bin + " attach; "
	if gate != "" {
		line += "while [ ! -e '" + gate + "' ]; do sleep 0.05; done; "
	}
	keys(line+"echo FLAGS=$(grep flags /proc/$$/fdinfo/0 | tr -dc 0-7)", "Enter")
	wait("the status line", has("[main] 0:"))
	waitSession(t, se, func(s proto.SessionInfo) bool { return s.Clients == 1 })
}

// shellBlocks waits for the flags attachFromShell prints and reports
// whether the shell's stdin blocks.
func shellBlocks(t *testing.T, wait func(string, func(string) bool) string) bool {
	t.Helper()
	screen := wait("the shell's stdin flags", stdinFlags.MatchString)
	flags, err := strconv.ParseUint(stdinFlags.FindStringSubmatch(screen)[1], 8, 64)
	if err != nil {
		t.Fatal(err)
	}
	return flags&syscall.O_NONBLOCK == 0
}

// Detached, the client says why and the shell has a blocking terminal.
func TestDetachGivesTheTerminalBackInsideTmux(t *testing.T) {
	tmuxtest.Require(t)
	se := newSessionEnv(t)
	se.must("new", "-d", "-x", "100", "-y", "30", "--", "sh")
	keys, wait, _ := outerShell(t, se)
	attachFromShell(t, se, keys, wait, "")
	keys("C-b", "d")
	wait("the detach message", has("[detached (from session main)]"))
	if !shellBlocks(t, wait) {
		t.Fatal("after detach the shell's terminal is left non-blocking")
	}
}

// A client killed with SIGKILL cannot clean up: the server sees its
// connection end and must let go of the terminal at once. Output in the
// session after that does not reach the terminal, the terminal blocks
// again, and the session lives on.
func TestKilledClientLetsGoOfTheTerminalInsideTmux(t *testing.T) {
	tmuxtest.Require(t)
	se := newSessionEnv(t)
	se.must("new", "-d", "-x", "100", "-y", "30", "--", "sh")
	keys, wait, outer := outerShell(t, se)
	gate := filepath.Join(t.TempDir(), "gate")
	attachFromShell(t, se, keys, wait, gate)
	killClients(t, outer, "%0", syscall.SIGKILL)
	waitSession(t, se, func(s proto.SessionInfo) bool { return s.Clients == 0 && s.Panes == 1 })
	se.must("send-keys", "-t", "1", `echo marker-$((6*7))\n`)
	if !paneShows(se, "1", "marker-42", 10*time.Second) {
		t.Fatal("the session did not go on after its client was killed")
	}
	// The shell's own output, after the marker's: were the server still
	// drawing, the marker would be on the screen by then.
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	blocks := shellBlocks(t, wait)
	keys("stty sane; echo outer-$((3+4))", "C-j")
	if screen := wait("the outer shell", has("outer-7")); strings.Contains(screen, "marker-42") {
		t.Fatalf("the server drew on the terminal after its client was killed:\n%s", screen)
	}
	if !blocks {
		t.Fatal("after the client was killed the shell's terminal is left non-blocking")
	}
}

// A server killed with SIGKILL cannot let go of the terminal: the client,
// which sees its connection end, makes it blocking again.
func TestServerKilledUnderTheClientInsideTmux(t *testing.T) {
	tmuxtest.Require(t)
	se := newSessionEnv(t)
	se.must("new", "-d", "-x", "100", "-y", "30", "--", "sh")
	keys, wait, _ := outerShell(t, se)
	attachFromShell(t, se, keys, wait, "")
	if err := syscall.Kill(serverPID(t, se), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	wait("the client's message", has("[server exited]"))
	if !shellBlocks(t, wait) {
		t.Fatal("after the server was killed the shell's terminal is left non-blocking")
	}
}
