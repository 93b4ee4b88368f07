package agentcli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Environment variables the tests read.
const (
	// EnvDir names the install directory (the npm prefix); default
	// $HOME/.cache/melmux/agent-clis.
	EnvDir = "MELMUX_AGENT_CLIS"
	// EnvRequire set to 1 turns a missing CLI from a skip into a failure.
	EnvRequire = "MELMUX_REQUIRE_AGENTS"
)

// CLI is an agent CLI pinned to one release: screens and requests differ
// between releases, so the tests run against exactly these.
type CLI struct {
	Name    string
	Package string // on npm
	Version string
	// bin is the native binary under the install directory. It is run
	// directly: npm may refuse a package's postinstall script, which leaves
	// node_modules/.bin a placeholder.
	bin func(platform string) string
	// runtime is a program bin needs on PATH: node, for a script.
	runtime string
}

var (
	ClaudeCode = CLI{Name: "Claude Code", Package: "@anthropic-ai/claude-code", Version: "2.1.328",
		bin: func(platform string) string {
			return filepath.Join("node_modules", "@anthropic-ai", "claude-code-"+platform, "claude")
		}}
	Codex = CLI{Name: "Codex", Package: "@openai/codex", Version: "0.169.0",
		bin: func(platform string) string {
			triple := map[string]string{"linux-x64": "x86_64-unknown-linux-musl", "linux-arm64": "aarch64-unknown-linux-musl"}[platform]
			return filepath.Join("node_modules", "@openai", "codex-"+platform, "vendor", triple, "bin", "codex")
		}}
	// Gemini CLI is one bundled script for node (>= 20), the same on
	// every platform; its native helpers (node-pty) are optional.
	Gemini = CLI{Name: "Gemini CLI", Package: "@google/gemini-cli", Version: "0.61.0", runtime: "node",
		bin: func(string) string {
			return filepath.Join("node_modules", "@google", "gemini-cli", "bundle", "gemini.js")
		}}
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
	return fmt.Sprintf("npm install --prefix %s %s@%s %s@%s %s@%s", dir, ClaudeCode.Package, ClaudeCode.Version,
		Codex.Package, Codex.Version, Gemini.Package, Gemini.Version)
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

// Path is where the native binary lies in an install under dir.
func (c CLI) Path(dir string) string { return filepath.Join(dir, c.bin(platform())) }

// Find returns the binary of the pinned release under dir, or an error
// saying what is missing.
func (c CLI) Find(dir string) (string, error) {
	bin := c.Path(dir)
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("%s %s is not installed in %s: %w", c.Name, c.Version, dir, err)
	}
	// The platform package's manifest says which release the binary is,
	// without starting it; it lies next to the binary or up in the package.
	var raw []byte
	var err error
	for d := filepath.Dir(bin); strings.HasPrefix(d, dir) && d != dir; d = filepath.Dir(d) {
		if raw, err = os.ReadFile(filepath.Join(d, "package.json")); err == nil {
			break
		}
	}
	if err != nil {
		return "", fmt.Errorf("%s in %s has no package.json: %w", c.Name, dir, err)
	}
	var manifest struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(raw, &manifest); err != nil {
		return "", fmt.Errorf("%s in %s: package.json: %w", c.Name, dir, err)
	}
	// Codex's platform packages say 0.169.0-linux-x64.
	if v, _, _ := strings.Cut(manifest.Version, "-"); v != c.Version {
		return "", fmt.Errorf("%s in %s is version %q, the tests need %s", c.Name, dir, manifest.Version, c.Version)
	}
	if c.runtime != "" {
		if _, err := exec.LookPath(c.runtime); err != nil {
			return "", fmt.Errorf("%s in %s needs %s on PATH: %w", c.Name, dir, c.runtime, err)
		}
	}
	return bin, nil
}

// Require returns the binary for a test. When it is missing the test is
// skipped with the command that installs it, or fails when
// MELMUX_REQUIRE_AGENTS=1.
func (c CLI) Require(t testing.TB) string {
	t.Helper()
	dir := Dir()
	bin, err := c.Find(dir)
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
