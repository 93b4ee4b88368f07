package main

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/tmuxtest"
)

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
	tmuxtest.Require(t)
	se := newSessionEnv(t)
	se.must("new", "-d", "-x", "80", "-y", "24", "--", "sh", "-c", "echo 'findme one'; echo 'two findme findme'; exec sleep 600")
	outer := tmuxtest.Start(t, 80, 24, se.inShell(se.bin+" attach"))
	const pane = "%0"
	keys := sendKeys(t, outer, pane)
	outer.WaitFor(pane, 15*time.Second, "the pane's text", func(s string) bool { return strings.Contains(s, "two findme") })
	keys("C-b", "[")
	outer.WaitFor(pane, 10*time.Second, "copy mode", regexp.MustCompile(`\[\d+/\d+\]`).MatchString)
	keys("?")
	keys("-l", "findme")
	keys("Enter")
	// Searching up from the bottom lands on the last match: line 2's second.
	match := regexp.MustCompile(`\x1b\[[0-9;]*46m(\x1b\[[0-9;]*m)*findme`)
	current := regexp.MustCompile(`\x1b\[[0-9;]*45m(\x1b\[[0-9;]*m)*findme`)
	screen := waitStyled(t, outer, pane, "the matches highlighted", func(s string) bool {
		return len(match.FindAllString(s, -1)) == 2 && len(current.FindAllString(s, -1)) == 1
	})
	lines := strings.Split(screen, "\n")
	if !current.MatchString(lines[2]) || strings.Index(lines[2], "45m") < strings.Index(lines[2], "46m") {
		t.Errorf("the current match should be line 2's last:\n%q", screen)
	}
	// n moves the current match back to the one before.
	keys("n")
	waitStyled(t, outer, pane, "the current match moved", func(s string) bool {
		l := strings.Split(s, "\n")
		return len(l) > 2 && current.MatchString(l[2]) && strings.Index(l[2], "45m") < strings.Index(l[2], "46m")
	})
}
