package agentcli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestClaudePrintMode runs the real Claude Code once, non-interactively,
// against the endpoint: the private HOME, the environment and the answers
// are enough for it to take a prompt and print the scripted reply, with
// nothing left running after.
func TestClaudePrintMode(t *testing.T) {
	bin := ClaudeCode.Require(t)
	a := newEndpoint(t)
	a.AddRule(Rule{Match: "say hello", Text: "Hello from the scripted model."})
	home, project := t.TempDir(), t.TempDir()
	if err := WriteClaudeHome(home, TestKey, project); err != nil {
		t.Fatal(err)
	}
	out := runOnce(t, project, append(ClaudeEnv(a.URL(), TestKey), "HOME="+home), bin, append(ClaudeArgs, "-p", "say hello from a test")...)
	if !strings.Contains(out, "Hello from the scripted model.") {
		t.Errorf("claude -p printed %q", out)
	}
	found := false
	for _, r := range a.Requests() {
		found = found || (r.API == "messages" && r.Prompt == "say hello from a test" && r.Header.Get("X-Api-Key") == TestKey)
	}
	if !found {
		t.Errorf("no Messages request carried the prompt and the key: %+v", a.Requests())
	}
}

// runOnce runs an agent CLI to its end in dir with env added, returns what
// it printed, and fails the test if anything it started is left running.
func runOnce(t *testing.T, dir string, env []string, bin string, args ...string) string {
	t.Helper()
	mark := t.Name()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), env...), MarkEnv+"="+mark)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(bin), strings.Join(args, " "), err, out)
	}
	gone, cancelGone := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancelGone()
	if left := WaitGone(gone, mark); len(left) > 0 {
		KillMarked(mark)
		t.Errorf("left running after %s: %v", filepath.Base(bin), left)
	}
	return string(out)
}

func TestWriteClaudeHome(t *testing.T) {
	home := t.TempDir()
	if err := WriteClaudeHome(home, "short", "/x"); err == nil || !strings.Contains(err.Error(), "at least 20") {
		t.Errorf("short key: %v", err)
	}
	if err := WriteClaudeHome(home, TestKey, "/proj"); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(home, ".claude.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"hasCompletedOnboarding": true`, `"` + TestKey[len(TestKey)-20:] + `"`, `"/proj": {`, `"hasTrustDialogAccepted": true`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf(".claude.json lacks %s:\n%s", want, raw)
		}
	}
}

func TestFindClaudeMissing(t *testing.T) {
	dir := t.TempDir()
	if _, err := ClaudeCode.Find(dir); err == nil || !strings.Contains(err.Error(), "not installed in "+dir) {
		t.Errorf("empty dir: %v", err)
	}
	pkg := filepath.Dir(ClaudeCode.Path(dir))
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(ClaudeCode.Path(dir), []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(filepath.Join(pkg, "package.json"), []byte(`{"version":"1.0.0"}`), 0o644)
	if _, err := ClaudeCode.Find(dir); err == nil || !strings.Contains(err.Error(), `version "1.0.0", the tests need `+ClaudeCode.Version) {
		t.Errorf("old version: %v", err)
	}
}
