package server

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/melmux/melmux/internal/agenthooks"
)

// melmux adds to the command line only the hooks the user's own settings
// do not run already (`melmux hooks install`): one running twice reported
// each turn twice.
func TestAgentHookArgsLeaveOutTheUsersOwn(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	env := []string{"HOME=" + home, "CLAUDE_CONFIG_DIR=", "CODEX_HOME="}
	s := &Server{self: "/opt/melmux"}
	write := func(rel, data string) {
		t.Helper()
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	all := []string{"--settings", agenthooks.ClaudeSettings("/opt/melmux", agenthooks.Events("claude"))}
	if got, hooked := s.agentHookArgs([]string{"claude"}, env); !slices.Equal(got, all) || !hooked {
		t.Fatalf("no settings file: %q %v", got, hooked)
	}
	write(".claude/settings.json", `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "melmux notify --from claude"}]}]}}`)
	got, _ := s.agentHookArgs([]string{"claude"}, env)
	if len(got) != 2 || strings.Contains(got[1], "Stop") || !strings.Contains(got[1], "UserPromptSubmit") {
		t.Fatalf("the user's settings run Stop: %q", got)
	}
	full, _, err := agenthooks.Install("claude", nil, "melmux")
	if err != nil {
		t.Fatal(err)
	}
	write(".claude/settings.json", string(full))
	// None added, and the pane's turns still wait for the hooks' reports.
	if got, hooked := s.agentHookArgs([]string{"/usr/bin/claude", "-c"}, env); got != nil || !hooked {
		t.Fatalf("the user's settings run them all: %q %v", got, hooked)
	}

	if got, _ := s.agentHookArgs([]string{"codex"}, env); !slices.Equal(got, []string{"-c", `notify=["/opt/melmux","notify","--from","codex"]`}) {
		t.Fatalf("codex, no config: %q", got)
	}
	write(".codex/config.toml", "notify = [\"notify-send\", \"hi\"]\n")
	if got, _ := s.agentHookArgs([]string{"codex"}, env); !slices.Equal(got, []string{"-c", `notify=["/opt/melmux","notify","--from","codex","--chain","[\"notify-send\",\"hi\"]"]`}) {
		t.Fatalf("codex, the user's notify: %q", got)
	}
	installed, _, err := agenthooks.Install("codex", []byte("notify = [\"notify-send\", \"hi\"]\n"), "melmux")
	if err != nil {
		t.Fatal(err)
	}
	write(".codex/config.toml", string(installed))
	if got, hooked := s.agentHookArgs([]string{"codex"}, env); got != nil || !hooked {
		t.Fatalf("codex, melmux's notify installed: %q %v", got, hooked)
	}
	if got, hooked := s.agentHookArgs([]string{"codex", "-c", `notify=["x"]`}, env); got != nil || hooked {
		t.Fatalf("codex with a notify of its command line's: %q %v", got, hooked)
	}
}
