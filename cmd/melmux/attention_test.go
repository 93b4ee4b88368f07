package main

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestAttentionMarksInsideTmux: what an attached person sees of the panes'
// changes, in the status line. A question in another tab marks it `!`, a
// finished turn `+`; a question in the pane they look at (focused) marks
// nothing; a melmux-style "ready" needs no mark; visiting a tab clears its
// mark.
func TestAttentionMarksInsideTmux(t *testing.T) {
	t.Parallel()
	se, outer, keys := attachedInTmux(t, 100, 20, "exec sleep 600")
	wait := func(what string, cond func(string) bool) string {
		t.Helper()
		return outer.WaitFor(outerPane, 15*time.Second, what, cond)
	}
	status := func(s string) string {
		lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
		return lines[len(lines)-1]
	}
	wait("the session", func(s string) bool { return regexp.MustCompile(`0:[^()]*\(1\)\*`).MatchString(status(s)) })
	se.must("open-pane", "--layout", "tab", "--", "sleep", "601") // 2, tab 1
	se.must("open-pane", "--layout", "tab", "--", "sleep", "602") // 3, tab 2
	wait("three tabs", func(s string) bool { return regexp.MustCompile(`2:[^()]*\(1\)`).MatchString(status(s)) })

	// The focused pane asks: the person is looking at it.
	se.must("notify", "-t", "1", "--state", "working", "--kind", "claude")
	se.must("notify", "-t", "1", "--state", "waiting", "--kind", "claude", "--message", "approve make")
	se.must("wait", "-t", "1", "--state", "waiting", "--timeout", "10s")
	// Pane 2 asks and pane 3 finishes a turn, in the tabs not shown.
	se.must("notify", "-t", "2", "--state", "working", "--kind", "codex")
	se.must("notify", "-t", "2", "--state", "waiting", "--kind", "codex", "--message", "approve rm")
	se.must("notify", "-t", "3", "--state", "working", "--kind", "codex")
	se.must("notify", "-t", "3", "--state", "idle", "--kind", "codex", "--message", "Done.")
	marked := regexp.MustCompile(`0:[^()]*\(1\)\* +1:[^()]*\(1\)! +2:[^()]*\(1\)\+`)
	screen := wait("tab 1 marked ! and tab 2 +, tab 0 not", func(s string) bool { return marked.MatchString(status(s)) })
	if strings.Contains(status(screen), "(1)!*") {
		t.Errorf("the focused pane's question marked its tab: %q", status(screen))
	}
	// The border of the focused pane still says it waits.
	if !strings.Contains(screen, "· waiting") {
		t.Errorf("the focused pane's border should say waiting:\n%s", screen)
	}

	// Visiting tab 1 clears its mark; tab 2's stays until it is visited.
	keys("C-b", "1")
	wait("tab 1 visited", func(s string) bool {
		return regexp.MustCompile(`0:[^()]*\(1\) +1:[^()]*\(1\)\* +2:[^()]*\(1\)\+`).MatchString(status(s))
	})
	keys("C-b", "2")
	wait("tab 2 visited", func(s string) bool {
		return regexp.MustCompile(`0:[^()]*\(1\) +1:[^()]*\(1\) +2:[^()]*\(1\)\*`).MatchString(status(s))
	})
}
