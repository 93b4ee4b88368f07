package agenthooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Agents are the agent CLIs whose settings melmux can edit, in the order
// `melmux hooks` lists them.
var Agents = []string{"claude", "codex", "gemini"}

// ErrUnknownAgent is returned for an agent name not in Agents.
var ErrUnknownAgent = errors.New("unknown agent")

// ErrCannotEdit is returned when a settings file cannot be edited without
// changing more than melmux's hooks (JSON with comments, a value of an
// unexpected type); the error says what to add by hand.
var ErrCannotEdit = errors.New("cannot edit the settings file")

// events are the hook events melmux's hooks run on, per agent with JSON
// settings: those `melmux notify --from AGENT` maps to a state.
var events = map[string][]string{
	"claude": {"UserPromptSubmit", "Notification", "PermissionRequest", "Stop"},
	"gemini": {"BeforeAgent", "AfterAgent", "Notification"},
}

// Events are the hook events melmux's hooks run on for agent (claude or
// gemini), nil for Codex, which has one notify program.
func Events(agent string) []string { return slices.Clone(events[agent]) }

// Path is agent's user settings file, found as the agent finds it from
// its environment (getenv): $CLAUDE_CONFIG_DIR/settings.json or
// ~/.claude/settings.json; $CODEX_HOME/config.toml or
// ~/.codex/config.toml; $GEMINI_CLI_HOME/.gemini/settings.json or
// ~/.gemini/settings.json.
func Path(agent string, getenv func(string) string) (string, error) {
	home := getenv("HOME")
	dir := func(env, sub string) (string, error) {
		if d := getenv(env); d != "" {
			return d, nil
		}
		if home == "" {
			return "", fmt.Errorf("%s's settings: neither $%s nor $HOME is set", agent, env)
		}
		return filepath.Join(home, sub), nil
	}
	switch agent {
	case "claude":
		d, err := dir("CLAUDE_CONFIG_DIR", ".claude")
		return filepath.Join(d, "settings.json"), err
	case "codex":
		d, err := dir("CODEX_HOME", ".codex")
		return filepath.Join(d, "config.toml"), err
	case "gemini":
		d, err := dir("GEMINI_CLI_HOME", "")
		return filepath.Join(d, ".gemini", "settings.json"), err
	}
	return "", unknown(agent)
}

func unknown(agent string) error {
	return fmt.Errorf("%w %q: melmux edits the settings of %s", ErrUnknownAgent, agent, strings.Join(Agents, ", "))
}

// ClaudeSettings is the JSON of Claude Code's --settings with melmux's
// hooks, running self, on the events given (of Events("claude")).
func ClaudeSettings(self string, events []string) string {
	hooks := map[string]any{}
	for _, ev := range events {
		hooks[ev] = []json.RawMessage{group(Command(self, "claude"))}
	}
	raw, _ := json.Marshal(map[string]any{"hooks": hooks})
	return string(raw)
}

// Command is the hook command that runs self (melmux's executable, a name
// on $PATH or a path) as `notify --from agent`, quoted for /bin/sh.
func Command(self, agent string) string {
	return shellQuote(self) + " notify --from " + agent
}

// Status is what an agent's settings file says of melmux's hooks.
type Status struct {
	Agent string `json:"agent"`
	Path  string `json:"path"`
	// Exists says whether the file exists.
	Exists bool `json:"exists"`
	// Installed lists the events (for Codex: "notify") that run melmux's
	// hook; Missing those that do not.
	Installed []string `json:"installed"`
	Missing   []string `json:"missing"`
	// Chained is the person's own Codex notify program that melmux's
	// passes on to, nil for none.
	Chained []string `json:"chained,omitempty"`
	// Own is the person's own Codex notify program where melmux's is not
	// in the file, nil for none.
	Own []string `json:"own,omitempty"`
}

// Complete says whether every event runs melmux's hook.
func (s Status) Complete() bool { return len(s.Missing) == 0 && len(s.Installed) > 0 }

// Check reads what data, agent's settings file, says of melmux's hooks.
// data nil is a file that does not exist.
func Check(agent string, data []byte) (Status, error) {
	switch agent {
	case "claude", "gemini":
		return checkJSON(agent, data)
	case "codex":
		return checkCodex(data)
	}
	return Status{}, unknown(agent)
}

// Install is data, agent's settings file (nil: none yet), with melmux's
// hooks running self (melmux's executable: a name on $PATH or a path),
// and whether that changed anything.
func Install(agent string, data []byte, self string) ([]byte, bool, error) {
	switch agent {
	case "claude", "gemini":
		return installJSON(agent, data, Command(self, agent))
	case "codex":
		return installCodex(data, self)
	}
	return nil, false, unknown(agent)
}

// Remove is data, agent's settings file, without melmux's hooks, and
// whether that changed anything.
func Remove(agent string, data []byte) ([]byte, bool, error) {
	switch agent {
	case "claude", "gemini":
		return removeJSON(agent, data)
	case "codex":
		return removeCodex(data)
	}
	return nil, false, unknown(agent)
}

// IsOurs says whether a hook command is melmux's `PROGRAM notify --from
// agent`, whatever the path or name of the program (a build under another
// name runs the same verb).
func IsOurs(command, agent string) bool {
	prog, ok := strings.CutSuffix(strings.TrimSpace(command), " notify --from "+agent)
	return ok && strings.TrimSpace(prog) != ""
}

// ReadFile reads a settings file, nil with no error when it does not exist.
func ReadFile(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

// WriteFile replaces the settings file at path with data, atomically (a
// file beside it renamed over it), keeping its permissions; where path is
// a symbolic link (dotfiles kept in a repository), the file it points to
// is replaced and the link stays. A new file is 0600 in a directory made
// 0700.
func WriteFile(path string, data []byte) error {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	mode := os.FileMode(0o600)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".melmux-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // gone after the rename; left by a failure
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// shellQuote quotes s for /bin/sh when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
