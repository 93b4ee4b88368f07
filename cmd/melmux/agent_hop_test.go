package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/melmux/melmux/internal/testexec"
)

// melmuxAlone is a copy of the built melmux in a directory of its own,
// without melmux-agent and melmux-server beside it.
func melmuxAlone(t *testing.T) string {
	t.Helper()
	alone := filepath.Join(t.TempDir(), "melmux")
	data, err := os.ReadFile(melmuxBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	testexec.Write(t, alone, data)
	return alone
}

// runBin runs a built binary with env and returns its exit status and
// outputs.
func runBin(t *testing.T, env []string, bin string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Dir = t.TempDir()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("%s %q: %v", bin, args, err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
}

// envWithPath is the test's environment with $PATH replaced, and $HOME and
// the XDG base directories (but the runtime one) private to the test, so
// that nothing of the user's own melmux (config, memory, transcripts) is
// read or written.
func envWithPath(t *testing.T, path string) []string {
	home := t.TempDir()
	env := []string{"PATH=" + path, "HOME=" + home}
	for _, k := range []string{"XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"} {
		env = append(env, k+"="+filepath.Join(home, strings.ToLower(strings.TrimPrefix(k, "XDG_"))))
	}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains([]string{"PATH", "HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"}, k) {
			env = append(env, kv)
		}
	}
	return env
}

// The real melmux hands agent, tool, tools and mcp to melmux-agent beside
// it: the answers are melmux-agent's, byte for byte, exit status included.
func TestAgentVerbsHandOverToMelmuxAgent(t *testing.T) {
	t.Parallel()
	bin := melmuxBinary(t)
	agent := filepath.Join(filepath.Dir(bin), "melmux-agent")
	env := envWithPath(t, "/usr/bin:/bin") // no melmux-agent on it
	for _, args := range [][]string{
		{"tools", "--role", "worker"},
		{"tools", "lead"},
		{"-s", "other", "tool", "--role", "base", "list_dir"},
		{"tool", "read_file", `{"path":"gone.txt"}`},
	} {
		code, out, errOut := runBin(t, env, bin, args...)
		wantCode, wantOut, wantErr := runBin(t, env, agent, args...)
		if code != wantCode || out != wantOut || errOut != wantErr {
			t.Errorf("melmux %q: exit %d, stdout %.80q, stderr %q\nmelmux-agent: exit %d, stdout %.80q, stderr %q",
				args, code, out, errOut, wantCode, wantOut, wantErr)
		}
	}

	// The same process carries on as melmux-agent with the verb as argv[1]
	// (where restore and wait look for `agent`) and -s after it.
	_, out, errOut := runBin(t, env, bin, "-s", "other", "tool", "run_command", `{"command":"tr '\\0' ' ' </proc/$PPID/cmdline"}`)
	if !strings.Contains(out, "melmux-agent tool -s other run_command ") {
		t.Errorf("the tool's parent is not melmux-agent: stdout %q stderr %q", out, errOut)
	}

	// A symlink to melmux finds the melmux-agent beside the file it links
	// to.
	link := filepath.Join(t.TempDir(), "mx")
	if err := os.Symlink(bin, link); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runBin(t, env, link, "tools", "--role", "base"); code != 0 || !strings.Contains(out, `"name": "read_file"`) {
		t.Errorf("through a symlink: exit %d, stdout %.80q, stderr %q", code, out, errOut)
	}
}

// `melmux mcp` through the hand-over is an MCP server on melmux's own stdio.
func TestMCPInitializeThroughTheHandOver(t *testing.T) {
	t.Parallel()
	bin := melmuxBinary(t)
	cmd := exec.Command(bin, "mcp")
	cmd.Env = envWithPath(t, "/usr/bin:/bin")
	cmd.Dir = t.TempDir()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.Contains(line, `"id":1`) || !strings.Contains(line, `"serverInfo":{"name":"melmux"`) {
		t.Errorf("initialize answered %q (%v), stderr %q", line, err, errOut.String())
	}
	stdin.Close() // EOF ends the server
	if err := cmd.Wait(); err != nil {
		t.Errorf("mcp at EOF: %v, stderr %q", err, errOut.String())
	}
}

// Without melmux-agent beside melmux or on $PATH, the four verbs fail with
// where melmux looked and how to build it; melmux-agent found on $PATH is
// used.
func TestAgentVerbsWithoutMelmuxAgent(t *testing.T) {
	t.Parallel()
	built, alone := melmuxBinary(t), melmuxAlone(t)
	for _, verb := range []string{"agent", "tool", "tools", "mcp"} {
		code, out, errOut := runBin(t, envWithPath(t, "/usr/bin:/bin"), alone, verb)
		want := "melmux: " + verb + ": melmux-agent not found (looked at " + filepath.Join(filepath.Dir(alone), "melmux-agent") + " and $PATH)"
		if code != 1 || out != "" || !strings.Contains(errOut, want) || !strings.Contains(errOut, "go build -o "+filepath.Dir(alone)+" ./cmd/...") {
			t.Errorf("melmux %s alone: exit %d, stdout %q, stderr %q", verb, code, out, errOut)
		}
	}
	code, out, errOut := runBin(t, envWithPath(t, filepath.Dir(built)+":/usr/bin:/bin"), alone, "tools", "--role", "base")
	if code != 0 || !strings.Contains(out, `"name": "read_file"`) {
		t.Errorf("melmux-agent on $PATH: exit %d, stdout %.80q, stderr %q", code, out, errOut)
	}
}
