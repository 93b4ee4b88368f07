package agenthooks

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A settings file as Gemini CLI writes it: two-space JSON, keys in the
// order the person's changes made them, a hook of the person's own.
const geminiFile = `{
  "security": {
    "auth": {
      "selectedType": "gemini-api-key"
    }
  },
  "hooks": {
    "AfterAgent": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "touch user-hook-ran"
          }
        ]
      }
    ]
  },
  "ide": {
    "hasSeenNudge": true
  }
}
`

func TestInstallGeminiKeepsTheFileAndAddsEachEvent(t *testing.T) {
	out, changed, err := Install("gemini", []byte(geminiFile), "melmux")
	if err != nil || !changed {
		t.Fatalf("Install: changed %v, %v", changed, err)
	}
	want := `{
  "security": {
    "auth": {
      "selectedType": "gemini-api-key"
    }
  },
  "hooks": {
    "AfterAgent": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "touch user-hook-ran"
          }
        ]
      },
      {
        "hooks": [
          {
            "command": "melmux notify --from gemini",
            "type": "command"
          }
        ]
      }
    ],
    "BeforeAgent": [
      {
        "hooks": [
          {
            "command": "melmux notify --from gemini",
            "type": "command"
          }
        ]
      }
    ],
    "Notification": [
      {
        "hooks": [
          {
            "command": "melmux notify --from gemini",
            "type": "command"
          }
        ]
      }
    ]
  },
  "ide": {
    "hasSeenNudge": true
  }
}
`
	if string(out) != want {
		t.Fatalf("installed:\n%s\nwant:\n%s", out, want)
	}
	st, err := Check("gemini", out)
	if err != nil || !st.Complete() || !slices.Equal(st.Installed, []string{"BeforeAgent", "AfterAgent", "Notification"}) {
		t.Fatalf("Check after Install: %+v, %v", st, err)
	}
	again, changed, err := Install("gemini", out, "/opt/melmux/bin/melmux")
	if err != nil || changed || string(again) != string(out) {
		t.Fatalf("a second Install changed the file (%v, %v):\n%s", changed, err, again)
	}
	back, changed, err := Remove("gemini", out)
	if err != nil || !changed || string(back) != geminiFile {
		t.Fatalf("Remove (changed %v, %v) gave:\n%s\nwant the file as it was:\n%s", changed, err, back, geminiFile)
	}
}

// A file in a layout of its own keeps it: what is added is compact.
func TestInstallKeepsAnotherLayout(t *testing.T) {
	in := "{\"model\":\"opus\",   \"hooks\":{\"Stop\":[]}}\n"
	out, _, err := Install("claude", []byte(in), "/usr/local/bin/melmux")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(out), "{\"model\":\"opus\",   \"hooks\":{\"Stop\":[{\"hooks\":[{\"command\":\"/usr/local/bin/melmux notify --from claude\",\"type\":\"command\"}]}]") {
		t.Fatalf("installed: %s", out)
	}
	back, _, err := Remove("claude", out)
	// A list or "hooks" that only melmux's hooks are in goes with them.
	if err != nil || string(back) != "{\"model\":\"opus\"}\n" {
		t.Fatalf("removed: %s (%v)", back, err)
	}
}

func TestInstallIntoNoFile(t *testing.T) {
	out, changed, err := Install("claude", nil, "/home/u/my tools/melmux")
	if err != nil || !changed {
		t.Fatal(changed, err)
	}
	st, err := Check("claude", out)
	if err != nil || !st.Complete() || len(st.Installed) != 4 {
		t.Fatalf("Check: %+v %v\n%s", st, err, out)
	}
	if !strings.Contains(string(out), `"command": "'/home/u/my tools/melmux' notify --from claude"`) {
		t.Fatalf("the command is not quoted for the shell:\n%s", out)
	}
	back, _, err := Remove("claude", out)
	if err != nil || string(back) != "{}\n" {
		t.Fatalf("removed: %q (%v)", back, err)
	}
}

// An event where melmux's hook is missing gets it; the others stay as they
// are, once each.
func TestInstallCompletesAPartialSetUp(t *testing.T) {
	in := `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "melmux notify --from claude"}]}]}}`
	st, _ := Check("claude", []byte(in))
	if st.Complete() || !slices.Equal(st.Installed, []string{"Stop"}) || len(st.Missing) != 3 {
		t.Fatalf("Check: %+v", st)
	}
	out, _, err := Install("claude", []byte(in), "melmux")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(out), "notify --from claude"); n != 4 {
		t.Fatalf("%d hooks, want 4:\n%s", n, out)
	}
}

func TestFilesMelmuxCannotEdit(t *testing.T) {
	for _, c := range []struct{ agent, file, want string }{
		{"gemini", "{\n  // the theme\n  \"theme\": \"dark\"\n}", "not plain JSON"},
		{"gemini", `["a"]`, "a JSON list where an object"},
		{"claude", `{"hooks": "none"}`, `"hooks" is a string`},
		{"claude", `{"hooks": {"Stop": {}}}`, `"Stop" is a object, not a list`},
		{"codex", "notify = 'melmux'\n", "its notify is string, not a list"},
		{"codex", "model = \n", "not valid TOML"},
	} {
		_, _, err := Install(c.agent, []byte(c.file), "melmux")
		if !errors.Is(err, ErrCannotEdit) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %q: %v, want %q", c.agent, c.file, err, c.want)
		}
	}
	_, _, err := Install("aider", nil, "melmux")
	if !errors.Is(err, ErrUnknownAgent) || !strings.Contains(err.Error(), "claude, codex, gemini") {
		t.Errorf("an unknown agent: %v", err)
	}
}

// melmux's hook in one entry with the person's is not taken apart.
func TestRemoveLeavesAMixedEntry(t *testing.T) {
	in := `{"hooks": {"AfterAgent": [{"hooks": [{"type": "command", "command": "melmux notify --from gemini"}, {"type": "command", "command": "touch x"}]}]}}`
	st, err := Check("gemini", []byte(in))
	if err != nil || !slices.Equal(st.Installed, []string{"AfterAgent"}) {
		t.Fatalf("Check: %+v %v", st, err)
	}
	if _, _, err := Remove("gemini", []byte(in)); !errors.Is(err, ErrCannotEdit) || !strings.Contains(err.Error(), "by hand") {
		t.Fatalf("Remove: %v", err)
	}
}

const codexFile = `# my Codex config
model = "gpt-5"
notify = [
  "notify-send",
  "codex",
]

[model_providers.local]
base_url = "http://127.0.0.1:8080/v1"
`

// Codex's notify is replaced by melmux's, which chains the person's
// program; removing puts the person's back.
func TestInstallCodexChainsThePersonsNotify(t *testing.T) {
	out, changed, err := Install("codex", []byte(codexFile), "melmux")
	if err != nil || !changed {
		t.Fatal(changed, err)
	}
	want := `# my Codex config
model = "gpt-5"
notify = ["melmux", "notify", "--from", "codex", "--chain", "[\"notify-send\",\"codex\"]"]

[model_providers.local]
base_url = "http://127.0.0.1:8080/v1"
`
	if string(out) != want {
		t.Fatalf("installed:\n%s\nwant:\n%s", out, want)
	}
	st, err := Check("codex", out)
	if err != nil || !st.Complete() || !slices.Equal(st.Chained, []string{"notify-send", "codex"}) {
		t.Fatalf("Check: %+v %v", st, err)
	}
	if again, changed, _ := Install("codex", out, "melmux"); changed || string(again) != string(out) {
		t.Fatalf("a second Install changed it:\n%s", again)
	}
	back, changed, err := Remove("codex", out)
	if err != nil || !changed || !strings.Contains(string(back), `notify = ["notify-send", "codex"]`) {
		t.Fatalf("Remove: %v\n%s", err, back)
	}
	if st, _ := Check("codex", back); st.Complete() {
		t.Fatalf("still installed after Remove: %+v", st)
	}
}

func TestInstallCodexWithoutNotify(t *testing.T) {
	in := "model = \"gpt-5\"\n\n[tui]\nnotifications = true\n"
	out, _, err := Install("codex", []byte(in), "/opt/melmux")
	if err != nil || string(out) != "notify = [\"/opt/melmux\", \"notify\", \"--from\", \"codex\"]\n"+in {
		t.Fatalf("installed (%v):\n%s", err, out)
	}
	back, _, err := Remove("codex", out)
	if err != nil || string(back) != in {
		t.Fatalf("removed (%v):\n%s", err, back)
	}
	// A notify inside a table is not the program: nothing of it moves.
	in = "[profiles.x]\nnotify = [\"a\"]\n"
	out, _, err = Install("codex", []byte(in), "melmux")
	if err != nil || !strings.HasSuffix(string(out), in) {
		t.Fatalf("installed (%v):\n%s", err, out)
	}
}

func TestPathFollowsTheAgentsOwnVariables(t *testing.T) {
	env := map[string]string{"HOME": "/home/u"}
	get := func(k string) string { return env[k] }
	for _, c := range []struct{ agent, want string }{
		{"claude", "/home/u/.claude/settings.json"},
		{"codex", "/home/u/.codex/config.toml"},
		{"gemini", "/home/u/.gemini/settings.json"},
	} {
		if p, err := Path(c.agent, get); err != nil || p != c.want {
			t.Errorf("%s: %q %v, want %q", c.agent, p, err, c.want)
		}
	}
	env = map[string]string{"CLAUDE_CONFIG_DIR": "/c", "CODEX_HOME": "/x", "GEMINI_CLI_HOME": "/g"}
	for _, c := range []struct{ agent, want string }{
		{"claude", "/c/settings.json"},
		{"codex", "/x/config.toml"},
		{"gemini", "/g/.gemini/settings.json"},
	} {
		if p, err := Path(c.agent, get); err != nil || p != c.want {
			t.Errorf("%s: %q %v, want %q", c.agent, p, err, c.want)
		}
	}
	env = map[string]string{}
	if _, err := Path("gemini", get); err == nil || !strings.Contains(err.Error(), "$HOME") {
		t.Errorf("no HOME: %v", err)
	}
}

// A settings file kept as a link (dotfiles in a repository) stays a link;
// the file it points to changes, with its permissions.
func TestWriteFileFollowsALink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "settings.json")
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(real, []byte("{}"), 0o640); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "settings.json")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(link, []byte(`{"a": 1}`)); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi.Mode(), err)
	}
	fi, err := os.Stat(real)
	raw, _ := os.ReadFile(real)
	if err != nil || fi.Mode().Perm() != 0o640 || string(raw) != `{"a": 1}` {
		t.Fatalf("the file: %v %v %q", fi.Mode(), err, raw)
	}
	entries, _ := os.ReadDir(filepath.Dir(real))
	if len(entries) != 1 {
		t.Fatalf("left beside it: %v", entries)
	}
	fresh := filepath.Join(dir, "new", ".gemini", "settings.json")
	if err := WriteFile(fresh, []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(fresh); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("a new file: %v %v", fi.Mode(), err)
	}
}
