package server

import (
	"os"
	"strings"
	"testing"

	"github.com/melmux/melmux/pane/term"
)

// screenOf reads a screen captured from a real agent CLI (the agent state
// fixtures): a comment line, a cursor line, then the rows.
func screenOf(t *testing.T, name string) []string {
	t.Helper()
	raw, err := os.ReadFile("../../pane/agentstate/testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(raw), "\n"), "\n")
	return lines[2:]
}

// The screen is the last source of a turn's reply: what the agent's last
// message says, without the echo of the prompt, the tool lines before it,
// the agent's input box, its footer or its "worked for" line.
func TestScreenReply(t *testing.T) {
	for _, c := range []struct {
		fixture, message, want string
	}{
		{"claude_done.txt", "please run the build", "The build ran."},
		{"codex_done.txt", "please run the build", "The build ran."},
		{"gemini_done.txt", "please run the build", "The build ran."},
	} {
		t.Run(c.fixture, func(t *testing.T) {
			got := screenReply(term.Text{Lines: screenOf(t, c.fixture)}, c.message)
			if got != c.want {
				t.Errorf("screenReply = %q, want %q", got, c.want)
			}
		})
	}
	// A reply of several lines keeps them all, without the bullet's indent,
	// and history lines count: the echo scrolled off the screen.
	txt := term.Text{
		History: []string{"❯ explain it", "", "● First line of the answer,"},
		Lines: []string{"  second line,", "  third line.", "", "✻ Cooked for 2s", "", "──────────", "❯ ", "──────────",
			"  ? for shortcuts"},
	}
	if got, want := screenReply(txt, "explain it"), "First line of the answer,\nsecond line,\nthird line."; got != want {
		t.Errorf("screenReply over history = %q, want %q", got, want)
	}
	// An agent with no bullets and no rules: up to its next prompt.
	plain := term.Text{Lines: []string{"> fix the bug", "Fixed it in main.go.", "", ">", "main.go  2k tokens"}}
	if got, want := screenReply(plain, "fix the bug"), "Fixed it in main.go."; got != want {
		t.Errorf("screenReply without bullets = %q, want %q", got, want)
	}
	// A question answered during the turn (cleared into the history) is not
	// the agent's prompt: its chosen option does not end the reply.
	asked := term.Text{History: []string{"> fix it", "Do you want to proceed?", "❯ 1. Yes", "  2. No"},
		Lines: []string{"● Fixed it.", ">"}}
	if got, want := screenReply(asked, "fix it"), "Fixed it."; got != want {
		t.Errorf("screenReply after a question = %q, want %q", got, want)
	}
}
