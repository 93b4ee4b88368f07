package agentcli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// The pinned versions: screens and requests differ between releases, so the
// tests run against exactly these.
const (
	ClaudeVersion = "2.1.328"
	CodexVersion  = "0.169.0"
)

// Environment variables the tests read.
const (
	// EnvDir names the install directory (the npm prefix); default
	// $HOME/.cache/melmux/agent-clis.
	EnvDir = "MELMUX_AGENT_CLIS"
	// EnvRequire set to 1 turns a missing CLI from a skip into a failure.
	EnvRequire = "MELMUX_REQUIRE_AGENTS"
)

// Dir is the directory the CLIs are installed into: $MELMUX_AGENT_CLIS, or
// $HOME/.cache/melmux/agent-clis.
func Dir() string {
	if d := os.Getenv(EnvDir); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		home = os.TempDir()
	}
	return filepath.Join(home, ".cache", "melmux", "agent-clis")
}

// InstallCommand is the command that installs the pinned CLIs into dir.
func InstallCommand(dir string) string {
	return fmt.Sprintf("npm install --prefix %s @anthropic-ai/claude-code@%s @openai/codex@%s",
		dir, ClaudeVersion, CodexVersion)
}

// platform is npm's name for this machine in the CLIs' per-platform
// packages (claude-code-linux-x64, codex-linux-arm64, ...).
func platform() string {
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	if arch == "" {
		arch = runtime.GOARCH
	}
	return runtime.GOOS + "-" + arch
}

// ClaudePath is where the native Claude Code binary lies in an install
// under dir. It is run directly: npm may refuse the package's postinstall
// script, which leaves node_modules/.bin/claude a placeholder.
func ClaudePath(dir string) string {
	return filepath.Join(dir, "node_modules", "@anthropic-ai", "claude-code-"+platform(), "claude")
}

// FindClaude returns the Claude Code binary of the pinned version under dir,
// or an error saying what is missing.
func FindClaude(dir string) (string, error) {
	bin := ClaudePath(dir)
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("claude code %s is not installed in %s: %w", ClaudeVersion, dir, err)
	}
	// The platform package's manifest says which release the binary is,
	// without starting it.
	raw, err := os.ReadFile(filepath.Join(filepath.Dir(bin), "package.json"))
	if err != nil {
		return "", fmt.Errorf("claude code in %s has no package.json: %w", dir, err)
	}
	var manifest struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(raw, &manifest); err != nil {
		return "", fmt.Errorf("claude code in %s: package.json: %w", dir, err)
	}
	if manifest.Version != ClaudeVersion {
		return "", fmt.Errorf("claude code in %s is version %q, the tests need %s", dir, manifest.Version, ClaudeVersion)
	}
	return bin, nil
}

// Claude returns the Claude Code binary for a test. When it is missing the
// test is skipped with the command that installs it, or fails when
// MELMUX_REQUIRE_AGENTS=1.
func Claude(t testing.TB) string {
	t.Helper()
	dir := Dir()
	bin, err := FindClaude(dir)
	if err == nil {
		return bin
	}
	msg := fmt.Sprintf("%v; install it with: %s (or point %s at an install)", err, InstallCommand(dir), EnvDir)
	if os.Getenv(EnvRequire) == "1" {
		t.Fatalf("%s [%s=1]", msg, EnvRequire)
	}
	t.Skip(msg)
	return ""
}
