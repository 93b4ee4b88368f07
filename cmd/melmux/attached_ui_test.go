package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/tmuxtest"
)

// outerPane is the outer tmux's one pane, where melmux is attached.
const outerPane = "%0"

// attachedInTmux starts a session of cols x rows whose pane runs script
// (sh -c), attaches to it from a new outer tmux of the same size, and
// returns the session, the outer tmux and a function typing into it.
func attachedInTmux(t *testing.T, cols, rows int, script string) (*sessionEnv, *tmuxtest.Server, func(k ...string)) {
	t.Helper()
	tmuxtest.Require(t)
	se := newSessionEnv(t)
	size := []string{"-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows)}
	se.must(append(append([]string{"new", "-d"}, size...), "--", "sh", "-c", script)...)
	outer := tmuxtest.Start(t, cols, rows, se.inShell(se.bin+" attach"))
	return se, outer, sendKeys(t, outer, outerPane)
}

// sendKeys returns a function typing keys (tmux send-keys arguments) into
// the outer terminal's pane.
func sendKeys(t *testing.T, outer *tmuxtest.Server, pane string) func(k ...string) {
	return func(k ...string) {
		t.Helper()
		if _, err := outer.Run(append([]string{"send-keys", "-t", pane}, k...)...); err != nil {
			t.Fatal(err)
		}
	}
}

// waitStyled polls capture-pane -e (the screen with its SGR sequences)
// until cond holds, or fails the test with the last capture.
func waitStyled(t *testing.T, outer *tmuxtest.Server, pane, what string, cond func(string) bool) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	var last string
	for {
		out, err := outer.Run("capture-pane", "-p", "-e", "-t", pane)
		if err == nil {
			last = out
			if cond(out) {
				return out
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("never %s; last capture:\n%q", what, last)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestSearchHighlightInsideTmux: a copy-mode search highlights every match
// on screen (black on cyan) and the current one differently (black on
// magenta), as seen by the terminal melmux is attached to.
func TestSearchHighlightInsideTmux(t *testing.T) {
	t.Parallel()
	_, outer, keys := attachedInTmux(t, 80, 24, "echo 'findme one'; echo 'two findme findme'; exec sleep 600")
	outer.WaitFor(outerPane, 15*time.Second, "the pane's text", func(s string) bool { return strings.Contains(s, "two findme") })
	keys("C-b", "[")
	outer.WaitFor(outerPane, 10*time.Second, "copy mode", regexp.MustCompile(`\[\d+/\d+\]`).MatchString)
	keys("?")
	keys("-l", "findme")
	keys("Enter")
	// Searching up from the bottom lands on the last match: line 2's second.
	match := regexp.MustCompile(`\x1b\[[0-9;]*46m(\x1b\[[0-9;]*m)*findme`)
	current := regexp.MustCompile(`\x1b\[[0-9;]*45m(\x1b\[[0-9;]*m)*findme`)
	screen := waitStyled(t, outer, outerPane, "the matches highlighted", func(s string) bool {
		return len(match.FindAllString(s, -1)) == 2 && len(current.FindAllString(s, -1)) == 1
	})
	lines := strings.Split(screen, "\n")
	if !current.MatchString(lines[2]) || strings.Index(lines[2], "45m") < strings.Index(lines[2], "46m") {
		t.Errorf("the current match should be line 2's last:\n%q", screen)
	}
	// n moves the current match back to the one before.
	keys("n")
	waitStyled(t, outer, outerPane, "the current match moved", func(s string) bool {
		l := strings.Split(s, "\n")
		return len(l) > 2 && current.MatchString(l[2]) && strings.Index(l[2], "45m") < strings.Index(l[2], "46m")
	})
}

// TestPromptOutputHistoryAndCompletionInsideTmux: a verb's output of more
// than one line opens in a scrollable view over the focused pane (q
// leaves), Tab completes verbs and pane ids, and Up recalls lines run
// earlier, from another client too, for the server's life.
func TestPromptOutputHistoryAndCompletionInsideTmux(t *testing.T) {
	t.Parallel()
	se, outer, keys := attachedInTmux(t, 80, 12, "echo marker-1; echo marker-2; exec sleep 600")
	wait := func(what string, cond func(string) bool) string {
		t.Helper()
		return outer.WaitFor(outerPane, 10*time.Second, what, cond)
	}
	lastRow := func(s string) string {
		lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
		return lines[len(lines)-1]
	}
	position := regexp.MustCompile(`\[(\d+)/(\d+)\]`)
	wait("the pane", func(s string) bool { return strings.Contains(s, "marker-2") })

	// "hel" Tab completes to the one verb it starts; help's output (the verb
	// list, more lines than the pane has) opens in a view from its top.
	keys("C-b", ":")
	keys("-l", "hel")
	keys("Tab")
	wait("help completed", func(s string) bool { return strings.TrimSpace(lastRow(s)) == ":help" })
	keys("Enter")
	screen := wait("help's output in a view", func(s string) bool {
		return strings.Contains(s, "usage: melmux") && strings.Contains(s, "Verbs:") && position.MatchString(s)
	})
	m := position.FindStringSubmatch(screen)
	if m[1] != m[2] || m[2] == "0" {
		t.Fatalf("the view should start at the top of more than a screen: %s\n%s", m[0], screen)
	}
	// Down scrolls a line, PgDn a page; q leaves.
	keys("Down")
	scrolled := wait("scrolled a line", func(s string) bool {
		m := position.FindStringSubmatch(s)
		return m != nil && m[1] != m[2] && !strings.Contains(s, "usage: melmux")
	})
	// (The list outgrows a fixed number of pages as verbs are added: one
	// PgDn must move a page, then G reaches the end.)
	before, _ := strconv.Atoi(position.FindStringSubmatch(scrolled)[1])
	keys("PgDn")
	wait("a page down", func(s string) bool {
		m := position.FindStringSubmatch(s)
		if m == nil {
			return false
		}
		n, _ := strconv.Atoi(m[1])
		return n < before-5
	})
	keys("G")
	wait("the end of the list", func(s string) bool {
		return strings.Contains(s, "wait") && strings.HasPrefix(position.FindString(s), "[0/")
	})
	keys("q")
	wait("the pane again", func(s string) bool { return strings.Contains(s, "marker-2") && !position.MatchString(s) })

	// Tab after -t completes the pane id. read-pane's two lines fit: the
	// view shows them all ([0/0]) over the pane.
	keys("C-b", ":")
	keys("-l", "read-pane -t ")
	keys("Tab")
	wait("the pane id completed", func(s string) bool { return strings.TrimSpace(lastRow(s)) == ":read-pane -t 1" })
	keys("Enter")
	wait("read-pane's output in a view", func(s string) bool { return strings.Contains(s, "[0/0]") })
	keys("Escape")
	wait("the view left", func(s string) bool { return !position.MatchString(s) })

	// Another client, after this one detached, recalls both lines.
	keys("C-b", "d")
	second := tmuxtest.Start(t, 80, 12, se.inShell(se.bin+" attach"))
	wait2 := func(what string, cond func(string) bool) {
		t.Helper()
		second.WaitFor(outerPane, 10*time.Second, what, cond)
	}
	keys2 := sendKeys(t, second, outerPane)
	wait2("the second client", func(s string) bool { return strings.Contains(s, "marker-2") })
	keys2("C-b", ":", "Up")
	wait2("the last line recalled", func(s string) bool { return strings.TrimSpace(lastRow(s)) == ":read-pane -t 1" })
	keys2("Up")
	wait2("the line before", func(s string) bool { return strings.TrimSpace(lastRow(s)) == ":help" })
}
