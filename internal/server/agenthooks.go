package server

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/melmux/melmux/internal/agenthooks"
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
// hooks, transcripts and screens still serve. Hooks the user's own settings
// already run (`melmux hooks install`) are not added again: each would run
// twice a turn.

// agentHookArgs are the arguments to put after argv[0] of an agent CLI
// melmux starts, nil for none, and whether melmux's hooks will run in it
// (added here, or in the user's own settings). env is the pane's
// environment (for the agent's home).
func (s *Server) agentHookArgs(argv, env []string) (args []string, hooked bool) {
	if len(argv) == 0 {
		return nil, false
	}
	self := s.self
	if self == "" {
		self = "melmux"
	}
	getenv := func(k string) string { return envValue(env, k) }
	switch filepath.Base(argv[0]) {
	case "claude":
		if slices.ContainsFunc(argv[1:], func(a string) bool { return a == "--settings" || strings.HasPrefix(a, "--settings=") }) {
			return nil, false
		}
		missing := agenthooks.Events("claude")
		if st, ok := userHooks("claude", getenv); ok {
			missing = st.Missing
		}
		if len(missing) == 0 {
			return nil, true
		}
		return []string{"--settings", agenthooks.ClaudeSettings(self, missing)}, true
	case "codex":
		for i, a := range argv[1:] {
			if (a == "-c" || a == "--config") && i+2 < len(argv) && strings.HasPrefix(strings.TrimSpace(argv[i+2]), "notify") {
				return nil, false
			}
		}
		st, _ := userHooks("codex", getenv)
		if st.Complete() {
			return nil, true
		}
		arr, _ := json.Marshal(agenthooks.CodexNotify(self, st.Own))
		return []string{"-c", "notify=" + string(arr)}, true
	}
	return nil, false
}

// userHooks is what the user's settings file for agent says of melmux's
// hooks; false when it cannot be read or understood (melmux adds all of
// its own then).
func userHooks(agent string, getenv func(string) string) (agenthooks.Status, bool) {
	path, err := agenthooks.Path(agent, getenv)
	if err != nil {
		return agenthooks.Status{}, false
	}
	data, err := agenthooks.ReadFile(path)
	if err != nil {
		return agenthooks.Status{}, false
	}
	st, err := agenthooks.Check(agent, data)
	return st, err == nil
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
