package agentcli

import (
	"os"
	"strings"
	"testing"
)

// TestCodexExec runs the real Codex once, non-interactively (codex exec),
// against the endpoint's Responses API, with nothing left running after.
func TestCodexExec(t *testing.T) {
	bin := Codex.Require(t)
	m := newEndpoint(t)
	m.AddRule(Rule{Match: "say hello", Text: "Hello from the scripted model."})
	home, project := t.TempDir(), t.TempDir()
	if err := WriteCodexHome(home, m.URL(), project); err != nil {
		t.Fatal(err)
	}
	out := runOnce(t, project, CodexEnv(home), bin, "exec", "--skip-git-repo-check", "say hello from a test")
	if !strings.Contains(out, "Hello from the scripted model.") {
		t.Errorf("codex exec printed %q", out)
	}
	found := false
	for _, r := range m.Requests() {
		found = found || (r.API == "responses" && r.Prompt == "say hello from a test" && !r.Aside)
	}
	if !found {
		t.Errorf("no Responses request carried the prompt: %+v", m.Requests())
	}
}

func TestWriteCodexHome(t *testing.T) {
	home := t.TempDir()
	if err := WriteCodexHome(home, "http://127.0.0.1:9", "/proj"); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(home + "/config.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`base_url = "http://127.0.0.1:9/v1"`, `env_key = "` + CodexKeyEnv + `"`,
		"daemon_auto_start = false", "[projects.\"/proj\"]\ntrust_level = \"trusted\"", `approval_policy = "on-request"`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("config.toml lacks %s:\n%s", want, raw)
		}
	}
}
