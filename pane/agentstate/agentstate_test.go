package agentstate

import (
	"os"
	"path/filepath"
	"strconv"
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

// bottom is a screen whose cursor sits on the row after its last line, as
// a program that prints line by line leaves it.
func bottom(text string) Screen {
	lines := strings.Split(text, "\n")
	return Screen{Lines: lines, CursorY: len(lines) - 1}
}

// on is a screen whose cursor sits on row y.
func on(y int, text string) Screen {
	return Screen{Lines: strings.Split(text, "\n"), CursorY: y}
}

func TestDetect(t *testing.T) {
	quiet, busy := 5*time.Second, 100*time.Millisecond
	for _, tc := range []struct {
		name   string
		screen Screen
		quiet  time.Duration
		want   State
	}{
		{"claude permission prompt", on(3, "Bash command\n  rm -rf build\nDo you want to proceed?\n❯ 1. Yes\n  2. No, and tell Claude what to do differently (esc)\n"), quiet, Waiting},
		{"question while output still moves", on(2, "Edit file\nDo you want to make this edit to main.go?\n❯ 1. Yes\nEsc to cancel"), busy, Waiting},
		{"aider confirmation", on(0, "Add main.go to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: "), quiet, Waiting},
		{"gemini allow, cursor hidden", Screen{Lines: strings.Split("Allow execution?\n● Yes, allow once\n  Yes, allow always\n\n\n", "\n"), CursorHidden: true}, quiet, Waiting},
		{"a spinner line saying esc to cancel", Screen{Lines: strings.Split(" ⠸ Thinking... (esc to cancel, 1s)\n────\n >   Type your message\n", "\n"), CursorHidden: true}, quiet, Working},
		{"a key to enter, esc to cancel", Screen{Lines: strings.Split("Enter API Key\n│ key │\n(Press Enter to submit, Esc to cancel, Ctrl+C to clear stored key)\n", "\n"), CursorHidden: true}, quiet, Waiting},
		{"claude working", bottom("● Reading files\n✻ Thinking… (12s · ↑ 1.2k tokens · esc to interrupt)\n\n> \n"), quiet, Working},
		{"codex working", bottom("• Working (8s • esc to interrupt)\n▌ "), quiet, Working},
		{"spinner", bottom("⠹ Running tests\n"), quiet, Working},
		{"fresh output, nothing else", bottom("writing main.go\n"), busy, Working},
		{"quiet prompt", on(2, "● Done. All tests pass.\n\n> \n  ? for shortcuts\n"), quiet, Idle},
		{"an old question scrolled away", bottom("Do you want to proceed?\n" + strings.Repeat("line\n", 20) + "> \n"), quiet, Idle},
		{"a one-line question answered, output after it", bottom("Run tests? [y/n] y\nok  \tpkg\t0.1s\n"), busy, Working},
		{"a menu question with output after its menu", bottom("Do you want to proceed?\n❯ 1. Yes\n" + strings.Repeat("work\n", 12)), quiet, Idle},
		{"empty screen, quiet", bottom(""), quiet, Idle},
	} {
		if got := Detect(tc.screen, tc.quiet); got != tc.want {
			t.Errorf("%s: Detect = %s, want %s", tc.name, got, tc.want)
		}
	}
}

// The screens of real agents: asking, then answered and at work (or quiet
// after it). A question counts only while it is the live bottom of the
// screen; once answered the pane is working again, not still waiting.
func TestDetectAgentScreens(t *testing.T) {
	quiet, busy := 5*time.Second, 100*time.Millisecond
	for _, tc := range []struct {
		file  string
		quiet time.Duration
		want  State
	}{
		{"claude_waiting.txt", quiet, Waiting},
		{"claude_answered.txt", busy, Working},
		{"claude_done.txt", quiet, Idle},
		{"codex_waiting.txt", quiet, Waiting},
		{"codex_answered.txt", quiet, Working},
		{"codex_done.txt", quiet, Idle},
		{"claude_idle.txt", quiet, Idle},
		{"claude_working.txt", quiet, Working},
		{"codex_idle.txt", quiet, Idle},
		{"codex_working.txt", quiet, Working},
		{"aider_waiting.txt", quiet, Waiting},
		{"aider_answered.txt", busy, Working},
		{"aider_answered.txt", quiet, Idle},
	} {
		s := readScreen(t, tc.file)
		if got := Detect(s, tc.quiet); got != tc.want {
			t.Errorf("%s (quiet %s): Detect = %s, want %s", tc.file, tc.quiet, got, tc.want)
		}
	}
}

// readScreen reads a screen fixture: a comment line, "cursor ROW [hidden]
// [title=TITLE]", then the screen's rows.
func readScreen(t testing.TB, name string) Screen {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "#") {
		t.Fatalf("%s: want a comment line, a cursor line and the screen", name)
	}
	head, title, _ := strings.Cut(lines[1], " title=")
	f := strings.Fields(head)
	if len(f) < 2 || f[0] != "cursor" {
		t.Fatalf("%s: line 2 must be \"cursor ROW [hidden] [title=TITLE]\", got %q", name, lines[1])
	}
	y, err := strconv.Atoi(f[1])
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return Screen{Lines: lines[2:], CursorY: y, CursorHidden: len(f) > 2 && f[2] == "hidden", Title: title}
}
