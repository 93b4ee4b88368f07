package agentcli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// TestKey is the API key the tests give Claude Code. The endpoint accepts
// any key; this one only has to be long enough for the approval list, which
// holds its last 20 characters.
const TestKey = "sk-ant-melmux-test-key-0123456789abcdef"

// ClaudeArgs are the arguments the tests start Claude Code with: version 2.1
// otherwise starts in auto mode and answers its permission prompts itself.
var ClaudeArgs = []string{"--permission-mode", "default"}

// ClaudeEnv is the environment that points Claude Code at the endpoint at
// baseURL with key and stops every other request it would make (updates,
// telemetry, error reports).
func ClaudeEnv(baseURL, key string) []string {
	return []string{
		"ANTHROPIC_BASE_URL=" + baseURL,
		"ANTHROPIC_API_KEY=" + key,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_ERROR_REPORTING=1",
	}
}

// WriteClaudeHome writes home/.claude.json so that Claude Code, started with
// HOME=home in any of the project directories, skips its first-run screens
// (onboarding, theme, the API key question, trusting the folder) and opens
// at its prompt. Each project is recorded under its path as given and with
// symlinks resolved, since Claude Code looks it up by its real cwd.
func WriteClaudeHome(home, key string, projects ...string) error {
	if len(key) < 20 {
		return fmt.Errorf("claude home: the API key must have at least 20 characters, got %d", len(key))
	}
	type project struct {
		Trusted    bool     `json:"hasTrustDialogAccepted"`
		Onboarded  bool     `json:"hasCompletedProjectOnboarding"`
		AllowTools []string `json:"allowedTools"`
	}
	projs := map[string]project{}
	for _, p := range projects {
		abs, err := filepath.Abs(p)
		if err != nil {
			return fmt.Errorf("claude home: project %s: %w", p, err)
		}
		projs[abs] = project{Trusted: true, Onboarded: true, AllowTools: []string{}}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			projs[real] = projs[abs]
		}
	}
	cfg := map[string]any{
		"hasCompletedOnboarding": true,
		"theme":                  "dark",
		"customApiKeyResponses": map[string][]string{
			"approved": {key[len(key)-20:]},
			"rejected": {},
		},
		"projects": projs,
	}
	raw, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return fmt.Errorf("claude home: %w", err)
	}
	if err := os.MkdirAll(home, 0o755); err != nil {
		return fmt.Errorf("claude home: %w", err)
	}
	if err := os.WriteFile(filepath.Join(home, ".claude.json"), raw, 0o600); err != nil {
		return fmt.Errorf("claude home: %w", err)
	}
	return nil
}
