package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/tmuxtest"
)

// TestAttachInsideTmux lives in melmux the way a person does, with tmux
// standing in for the person's terminal: send-keys types, capture-pane reads.
func TestAttachInsideTmux(t *testing.T) {
	t.Parallel()
	tmuxtest.Require(t)
	se := newSessionEnv(t)
	outer := tmuxtest.Start(t, 100, 30, se.inShell("PS1='outer$ ' /bin/sh"))
	const pane = "%0"
	keys := func(k ...string) {
		t.Helper()
		if _, err := outer.Run(append([]string{"send-keys", "-t", pane}, k...)...); err != nil {
			t.Fatal(err)
		}
	}
	wait := func(what string, cond func(string) bool) string {
		t.Helper()
		return outer.WaitFor(pane, 15*time.Second, what, cond)
	}
	has := func(s string) func(string) bool {
		return func(screen string) bool { return strings.Contains(screen, s) }
	}

	// `melmux` alone creates the session and attaches.
	wait("the outer prompt", has("outer$"))
	keys(se.bin, "Enter")
	wait("the status line", has("[main] 0:"))
	keys("echo one-$((1+1))", "Enter")
	wait("the echo", has("one-2"))

	// Split right, then down, from the prefix key.
	keys("C-b", "%")
	wait("pane 2's border", has("─ 2 "))
	keys("echo right-$((2+2))", "Enter")
	wait("output in pane 2", has("right-4"))
	keys("C-b", `"`)
	wait("pane 3's border", has("─ 3 "))
	panes := listPanes(t, se)
	if len(panes) != 3 {
		t.Fatalf("after two splits: %+v", panes)
	}
	// Stacked panes share the width; their two frames (a border row each) fill
	// the 29 rows above the status line.
	if panes[1].Cols != panes[2].Cols || panes[1].Rows+panes[2].Rows+2 != 29 {
		t.Errorf("a down split should stack panes 2 and 3 in 29 rows: %+v", panes)
	}
	if panes[0].Cols+1+panes[1].Cols != 100 {
		t.Errorf("a right split should share 100 columns with a one-column separator: %d + 1 + %d", panes[0].Cols, panes[1].Cols)
	}

	// A new tab, then back to the first.
	keys("C-b", "c")
	wait("tab 1 in the status line", has(" 1:"))
	screen := wait("a fresh pane 4", has("─ 4 "))
	if strings.Contains(screen, "one-2") {
		t.Fatalf("the new tab still shows tab 0:\n%s", screen)
	}
	keys("C-b", "0")
	wait("tab 0 again", has("one-2"))

	// The outer terminal shrinks: every pane is re-laid and resized.
	if _, err := outer.Run("resize-window", "-t", pane, "-x", "80", "-y", "24"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		p := listPanes(t, se)
		if len(p) == 4 && p[0].Cols+1+p[1].Cols == 80 && p[3].Rows == 22 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("panes did not follow the 80x24 client: %+v", p)
		}
		time.Sleep(50 * time.Millisecond)
	}
	wait("pane 1's text after the resize", has("one-2"))

	// Detach, then attach again to the same panes.
	keys("C-b", "d")
	wait("the detach message", has("[detached (from session main)]"))
	keys(se.bin+" attach", "Enter")
	screen = wait("the same panes", func(s string) bool { return strings.Contains(s, "one-2") && strings.Contains(s, "right-4") })
	if !strings.Contains(screen, "─ 3 ") {
		t.Fatalf("pane 3 is missing after reattach:\n%s", screen)
	}

	// A second, smaller client: the session follows the smallest, and the
	// larger client's status line says so.
	second := tmuxtest.Start(t, 70, 20, se.inShell(se.bin+" attach"))
	waitSession(t, se, func(s proto.SessionInfo) bool { return s.Clients == 2 && s.Cols == 70 && s.Rows == 20 })
	wait("the size note", has("70x20 (smallest client)"))
	second.WaitFor("%0", 15*time.Second, "the second client's status", func(s string) bool { return strings.Contains(s, "[main]") })
	if _, err := second.Run("kill-server"); err != nil {
		t.Fatal(err)
	}
	waitSession(t, se, func(s proto.SessionInfo) bool { return s.Clients == 1 && s.Cols == 80 && s.Rows == 24 })

	// A size set with resize is said to be so, on the status line and by
	// resize itself, not taken for the smallest client's.
	cmd := exec.Command(se.bin, "resize", "-x", "60", "-y", "20")
	cmd.Env = se.env
	var resizeErr bytes.Buffer
	cmd.Stderr = &resizeErr
	if err := cmd.Run(); err != nil {
		t.Fatalf("resize: %v: %s", err, resizeErr.String())
	}
	if !strings.Contains(resizeErr.String(), "60x20, set by hand; the 1 attached client(s)") {
		t.Errorf("resize did not say the size is set by hand with a client attached: %q", resizeErr.String())
	}
	wait("the resize note", has("60x20 (set by resize)"))
	se.must("resize", "-x", "80", "-y", "24")

	// Killing the client with SIGKILL leaves the session and its panes intact.
	killClients(t, outer, pane, syscall.SIGKILL)
	waitSession(t, se, func(s proto.SessionInfo) bool { return s.Panes == 4 && s.Clients == 0 })
	if got := se.must("read-pane", "-t", "1"); !strings.Contains(got, "one-2") {
		t.Fatalf("pane 1 lost its screen after the client was killed:\n%s", got)
	}

	// SIGTERM: the client restores the terminal and says why it left.
	// SIGKILL left the outer terminal raw: C-j is a newline even so.
	keys("stty sane; clear", "C-j")
	wait("a clean outer prompt", func(s string) bool { return strings.HasPrefix(strings.TrimSpace(s), "outer$") })
	keys(se.bin+" attach", "Enter")
	wait("the panes again", has("one-2"))
	killClients(t, outer, pane, syscall.SIGTERM)
	wait("the SIGTERM message", has("[detached: terminated by SIGTERM]"))
	waitSession(t, se, func(s proto.SessionInfo) bool { return s.Clients == 0 })

	// The server goes away under an attached client: it says so and leaves.
	keys(se.bin+" attach", "Enter")
	wait("the panes again", has("one-2"))
	waitSession(t, se, func(s proto.SessionInfo) bool { return s.Clients == 1 })
	se.must("kill-server")
	wait("the server-exit message", has("[server exited]"))
	keys("echo outer-$((3+3))", "Enter")
	wait("the outer shell working again", has("outer-6"))
}

func listPanes(t *testing.T, se *sessionEnv) []proto.PaneInfo {
	t.Helper()
	var panes []proto.PaneInfo
	if err := json.Unmarshal([]byte(se.must("list-panes", "--json")), &panes); err != nil {
		t.Fatal(fmt.Errorf("list-panes --json: %w", err))
	}
	return panes
}

// waitSession waits until the one session satisfies cond.
func waitSession(t *testing.T, se *sessionEnv, cond func(proto.SessionInfo) bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var sessions []proto.SessionInfo
		if err := json.Unmarshal([]byte(se.must("ls", "--json")), &sessions); err != nil {
			t.Fatal(err)
		}
		if len(sessions) == 1 && cond(sessions[0]) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("session never reached the expected state: %+v", sessions)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// killClients signals the processes the outer shell runs: the attached client.
func killClients(t *testing.T, outer *tmuxtest.Server, pane string, sig syscall.Signal) {
	t.Helper()
	shellPID, err := outer.Run("display", "-p", "-t", pane, "#{pane_pid}")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("pgrep", "-P", strings.TrimSpace(shellPID)).Output()
	if err != nil {
		t.Fatalf("find the attached client: %v", err)
	}
	for _, f := range strings.Fields(string(out)) {
		pid, _ := strconv.Atoi(f)
		if err := syscall.Kill(pid, sig); err != nil {
			t.Fatal(err)
		}
	}
}
