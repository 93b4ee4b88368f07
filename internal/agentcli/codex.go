package agentcli

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// CodexKeyEnv is the variable Codex reads its (any) API key from.
const CodexKeyEnv = "MELMUX_TEST_OPENAI_KEY"

// WriteCodexHome writes codexHome/config.toml so that Codex, started with
// CODEX_HOME=codexHome in any of the project directories, talks to the
// Responses endpoint at baseURL (the model endpoint's URL), trusts the
// project, asks before running commands outside its sandbox, and starts no
// app-server daemon (by default it does, in its own session, and that
// daemon outlives Codex and its pane).
func WriteCodexHome(codexHome, baseURL string, projects ...string) error {
	var b strings.Builder
	fmt.Fprintf(&b, `model = "gpt-melmux-test"
model_provider = "scripted"
approval_policy = "on-request"
sandbox_mode = "workspace-write"

[model_providers.scripted]
name = "scripted model"
base_url = %s
env_key = %s
wire_api = "responses"

[features]
daemon_auto_start = false
`, strconv.Quote(baseURL+"/v1"), strconv.Quote(CodexKeyEnv))
	seen := map[string]bool{}
	for _, p := range projects {
		abs, err := filepath.Abs(p)
		if err != nil {
			return fmt.Errorf("codex home: project %s: %w", p, err)
		}
		paths := []string{abs}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			paths = append(paths, real)
		}
		for _, path := range paths {
			if !seen[path] {
				seen[path] = true
				fmt.Fprintf(&b, "\n[projects.%s]\ntrust_level = \"trusted\"\n", strconv.Quote(path))
			}
		}
	}
	if err := os.MkdirAll(codexHome, 0o700); err != nil {
		return fmt.Errorf("codex home: %w", err)
	}
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(b.String()), 0o600); err != nil {
		return fmt.Errorf("codex home: %w", err)
	}
	return nil
}

// CodexEnv is the environment for Codex with its home at codexHome.
func CodexEnv(codexHome string) []string {
	return []string{"CODEX_HOME=" + codexHome, CodexKeyEnv + "=sk-melmux-test"}
}
