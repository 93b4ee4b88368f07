package server

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// When melmux starts an agent CLI itself (open_pane, new, restore with
// `claude ...` or `codex ...` as the command), it adds its own hooks to the
// command line, so that the agent reports its turns, its whole last reply
// and its permission questions with no set-up by the user:
//
//   - Claude Code: `--settings JSON` with UserPromptSubmit, Notification,
//     PermissionRequest and Stop hooks running `melmux notify --from
//     claude`. Settings given with --settings are one more source Claude
//     Code merges with the user's and the project's settings files: their
//     hooks all run.
//   - Codex: `-c notify=[melmux, notify, --from, codex]`, which replaces
//     the notify program of the user's config.toml for the run: that
//     program is passed on (`--chain`), and melmux notify runs it after.
//
// A command line that already sets these (its own --settings, or -c
// notify=...) is left alone, as is a wrapper script or a shell line: their
// hooks, transcripts and screens still serve.

// agentHookArgs are the arguments to put after argv[0] of an agent CLI
// melmux starts, nil for none. env is the pane's environment (for Codex's
// home).
func (s *Server) agentHookArgs(argv, env []string) []string {
	if len(argv) == 0 {
		return nil
	}
	self := s.self
	if self == "" {
		self = "melmux"
	}
	switch filepath.Base(argv[0]) {
	case "claude":
		if slices.ContainsFunc(argv[1:], func(a string) bool { return a == "--settings" || strings.HasPrefix(a, "--settings=") }) {
			return nil
		}
		return []string{"--settings", claudeHookSettings(self)}
	case "codex":
		for i, a := range argv[1:] {
			if (a == "-c" || a == "--config") && i+2 < len(argv) && strings.HasPrefix(strings.TrimSpace(argv[i+2]), "notify") {
				return nil
			}
		}
		cmd := []string{self, "notify", "--from", "codex"}
		if user := codexUserNotify(env); len(user) > 0 {
			chain, _ := json.Marshal(user)
			cmd = append(cmd, "--chain", string(chain))
		}
		arr, _ := json.Marshal(cmd)
		return []string{"-c", "notify=" + string(arr)}
	}
	return nil
}

// claudeHookSettings is the settings JSON with melmux's hooks for Claude
// Code, running self.
func claudeHookSettings(self string) string {
	hook := []map[string]any{{"hooks": []map[string]any{{"type": "command", "command": shellQuote(self) + " notify --from claude"}}}}
	settings := map[string]any{"hooks": map[string]any{
		"UserPromptSubmit":  hook,
		"Notification":      hook,
		"PermissionRequest": hook,
		"Stop":              hook,
	}}
	raw, _ := json.Marshal(settings)
	return string(raw)
}

// codexUserNotify is the notify program of the user's Codex config
// ($CODEX_HOME/config.toml, else ~/.codex/config.toml), nil for none.
func codexUserNotify(env []string) []string {
	home := envValue(env, "CODEX_HOME")
	if home == "" {
		h := envValue(env, "HOME")
		if h == "" {
			return nil
		}
		home = filepath.Join(h, ".codex")
	}
	raw, err := os.ReadFile(filepath.Join(home, "config.toml"))
	if err != nil {
		return nil
	}
	var cfg struct {
		Notify []string `toml:"notify"`
	}
	if _, err := toml.Decode(string(raw), &cfg); err != nil {
		return nil
	}
	return cfg.Notify
}

// envValue is the last value of key in env, "" for none.
func envValue(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], key+"="); ok {
			return v
		}
	}
	return os.Getenv(key)
}

// shellQuote quotes s for /bin/sh.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// agentEnv is the environment for an agent CLI melmux starts: env itself
// but for Gemini CLI, which runs headless when CI=true or
// GITHUB_ACTIONS=true (it prints no screen and exits, a terminal or not):
// a pane is interactive, so those two are left out of its environment.
func agentEnv(argv, env []string) []string {
	if len(argv) == 0 || filepath.Base(argv[0]) != "gemini" {
		return env
	}
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		return strings.HasPrefix(kv, "CI=") || strings.HasPrefix(kv, "GITHUB_ACTIONS=")
	})
}

// startArgv is the command line the pane runs as it was asked for, without
// melmux's hooks.
func (e *paneEntry) startArgv() []string {
	if e.argv != nil {
		return e.argv
	}
	return e.p.Argv()
}
