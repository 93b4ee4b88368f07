package agentstate

import (
	"strings"
	"testing"
	"time"
)

func TestKind(t *testing.T) {
	for prog, want := range map[string]string{
		"claude": "claude", "/usr/local/bin/claude": "claude", "Codex": "codex", "aider": "aider",
		"gemini": "gemini", "bash": "", "node": "", "": "", "vim": "",
	} {
		if got := Kind(prog); got != want {
			t.Errorf("Kind(%q) = %q, want %q", prog, got, want)
		}
	}
}

func TestDetect(t *testing.T) {
	quiet, busy := 5*time.Second, 100*time.Millisecond
	for _, tc := range []struct {
		name   string
		screen string
		quiet  time.Duration
		want   State
	}{
		{"claude permission prompt", "Bash command\n  rm -rf build\nDo you want to proceed?\n❯ 1. Yes\n  2. No, and tell Claude what to do differently (esc)\n", quiet, Waiting},
		{"question while output still moves", "Edit file\nDo you want to make this edit to main.go?\n❯ 1. Yes\nEsc to cancel", busy, Waiting},
		{"aider confirmation", "Add main.go to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: ", quiet, Waiting},
		{"gemini allow", "Allow execution?\n● Yes, allow once\n  Yes, allow always", quiet, Waiting},
		{"claude working", "● Reading files\n✻ Thinking… (12s · ↑ 1.2k tokens · esc to interrupt)\n\n> \n", quiet, Working},
		{"codex working", "• Working (8s • esc to interrupt)\n▌ ", quiet, Working},
		{"spinner", "⠹ Running tests\n", quiet, Working},
		{"fresh output, nothing else", "writing main.go\n", busy, Working},
		{"quiet prompt", "● Done. All tests pass.\n\n> \n  ? for shortcuts\n", quiet, Idle},
		{"an old question scrolled away", "Do you want to proceed?\n" + strings.Repeat("line\n", 20) + "> \n", quiet, Idle},
		{"empty screen, quiet", "", quiet, Idle},
	} {
		if got := Detect(strings.Split(tc.screen, "\n"), tc.quiet); got != tc.want {
			t.Errorf("%s: Detect = %s, want %s", tc.name, got, tc.want)
		}
	}
}
