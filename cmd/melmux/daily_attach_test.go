package main

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/tmuxtest"
)

// TestZoomThenFocusInsideTmux: `C-b %`, `C-b z`, `C-b Left` as a person
// types them. Moving focus unzooms the window, and the pane that was zoomed
// gets its half of the window back: its program sees the size it is drawn
// at (`stty size`), not the zoomed one. The status line marks a zoomed tab.
func TestZoomThenFocusInsideTmux(t *testing.T) {
	t.Parallel()
	tmuxtest.Require(t)
	se := newSessionEnv(t)
	se.must("new", "-d", "-x", "100", "-y", "30", "--", "sh")
	outer := tmuxtest.Start(t, 100, 30, se.inShell(se.bin+" attach"))
	const pane = "%0"
	keys := sendKeys(t, outer, pane)
	wait := func(what string, cond func(string) bool) string {
		t.Helper()
		return outer.WaitFor(pane, 15*time.Second, what, cond)
	}
	wait("the status line", func(s string) bool { return strings.Contains(s, "[main] 0:") })
	keys("C-b", "%")
	wait("pane 2", func(s string) bool { return strings.Contains(s, "─ 2 ") })
	keys("C-b", "z")
	wait("the zoom marker", func(s string) bool { return strings.Contains(s, "(2)Z") })
	keys("C-b", "Left")
	wait("both panes again, unmarked", func(s string) bool {
		return strings.Contains(s, "─ 1 ") && strings.Contains(s, "─ 2 ") && !strings.Contains(s, "(2)Z")
	})
	panes := listPanes(t, se)
	if len(panes) != 2 || panes[0].Cols+1+panes[1].Cols != 100 || panes[1].Rows != 28 {
		t.Fatalf("after unzooming, the panes should share 100 columns again: %+v", panes)
	}
	out := se.must("send-keys", "-t", "2", "--screen", `stty size\n`)
	if !strings.Contains(out, "28 "+strconv.Itoa(panes[1].Cols)) {
		t.Fatalf("pane 2's program should see 28x%d:\n%s", panes[1].Cols, out)
	}
}

// TestShellExitEndsTheSessionInsideTmux: `exit` in the only pane closes it
// (its default shell exited 0), the session ends with it, and the client
// leaves with [exited], as tmux's does.
func TestShellExitEndsTheSessionInsideTmux(t *testing.T) {
	t.Parallel()
	tmuxtest.Require(t)
	se := newSessionEnv(t)
	outer := tmuxtest.Start(t, 100, 30, se.inShell("PS1='outer$ ' /bin/sh"))
	const pane = "%0"
	keys := sendKeys(t, outer, pane)
	outer.WaitFor(pane, 15*time.Second, "the outer prompt", func(s string) bool { return strings.Contains(s, "outer$") })
	keys(se.bin, "Enter")
	outer.WaitFor(pane, 15*time.Second, "the status line", func(s string) bool { return strings.Contains(s, "[main] 0:") })
	keys("exit", "Enter")
	outer.WaitFor(pane, 15*time.Second, "the client's [exited]", func(s string) bool { return strings.Contains(s, "[exited]") })
	// The client leaves as the server ends: the server is gone, or about to be.
	deadline := time.Now().Add(10 * time.Second)
	for {
		out, err := se.run("ls")
		if err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the session outlived its last pane:\n%s", out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
