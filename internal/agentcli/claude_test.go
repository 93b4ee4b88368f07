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
	bin := Claude(t)
	a := newEndpoint(t)
	a.AddRule(Rule{Match: "say hello", Text: "Hello from the scripted model."})
	home, project := t.TempDir(), t.TempDir()
	if err := WriteClaudeHome(home, TestKey, project); err != nil {
		t.Fatal(err)
	}
	mark := t.Name()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(ClaudeArgs, "-p", "say hello from a test")...)
	cmd.Dir = project
	cmd.Env = append(os.Environ(), ClaudeEnv(a.URL(), TestKey)...)
	cmd.Env = append(cmd.Env, "HOME="+home, MarkEnv+"="+mark)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("claude -p: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "Hello from the scripted model.") {
		t.Errorf("claude -p printed %q", out)
	}
	found := false
	for _, r := range a.Requests() {
		found = found || (r.Messages && r.Prompt == "say hello from a test" && r.Header.Get("X-Api-Key") == TestKey)
	}
	if !found {
		t.Errorf("no Messages request carried the prompt and the key: %+v", a.Requests())
	}
	gone, cancelGone := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancelGone()
	if left := WaitGone(gone, mark); len(left) > 0 {
		KillMarked(mark)
		t.Errorf("left running after claude -p: %v", left)
	}
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
	if _, err := FindClaude(dir); err == nil || !strings.Contains(err.Error(), "not installed in "+dir) {
		t.Errorf("empty dir: %v", err)
	}
	pkg := filepath.Dir(ClaudePath(dir))
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(ClaudePath(dir), []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(filepath.Join(pkg, "package.json"), []byte(`{"version":"1.0.0"}`), 0o644)
	if _, err := FindClaude(dir); err == nil || !strings.Contains(err.Error(), `version "1.0.0", the tests need `+ClaudeVersion) {
		t.Errorf("old version: %v", err)
	}
}
