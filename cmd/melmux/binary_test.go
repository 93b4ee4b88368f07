package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	buildOnce sync.Once
	builtPath string
	buildErr  error
)

// melmuxBinary builds the real melmux binary once for the Go end-to-end tests
// (the testscript suite runs the test binary as melmux instead), with
// melmux-agent, melmux-server and melmux-web beside it for the verbs melmux
// hands over, the session daemon and its web server.
func melmuxBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "melmux-bin")
		if err != nil {
			buildErr = err
			return
		}
		builtPath = filepath.Join(dir, "melmux")
		out, err := exec.Command("go", "build", "-o", dir+"/", ".", "../melmux-agent", "../melmux-server", "../melmux-web").CombinedOutput()
		if err != nil {
			buildErr = err
			builtPath = string(out)
		}
	})
	if buildErr != nil {
		t.Fatalf("build melmux: %v\n%s", buildErr, builtPath)
	}
	return builtPath
}

// sessionEnv is a private environment for one test's sessions: its own
// socket, state and config directories.
type sessionEnv struct {
	t    *testing.T
	bin  string
	env  []string
	home string // $HOME, $XDG_CONFIG_HOME and $XDG_STATE_HOME; $XDG_DATA_HOME and $XDG_CACHE_HOME are under it
}

func newSessionEnv(t *testing.T) *sessionEnv {
	t.Helper()
	run, err := os.MkdirTemp("", "mx")
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	se := &sessionEnv{t: t, bin: melmuxBinary(t), home: home}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "MELMUX_SOCKET", "MELMUX_SESSION", "MELMUX_PANE", "TMUX", "TMUX_PANE":
			continue
		}
		se.env = append(se.env, kv)
	}
	se.env = append(se.env, "XDG_RUNTIME_DIR="+run, "XDG_STATE_HOME="+home, "XDG_CONFIG_HOME="+home,
		"XDG_DATA_HOME="+filepath.Join(home, "data"), "XDG_CACHE_HOME="+filepath.Join(home, "cache"),
		"HOME="+home, "SHELL=/bin/sh", "PS1=$ ", "LANG=C.UTF-8")
	t.Cleanup(func() {
		socks, _ := filepath.Glob(filepath.Join(run, "melmux-*", "*.sock"))
		for _, s := range socks {
			name := strings.TrimSuffix(filepath.Base(s), ".sock")
			_, _ = se.run("-s", name, "kill-server")
		}
		os.RemoveAll(run)
	})
	return se
}

// run runs melmux with args and returns stdout; stderr is in the error.
func (se *sessionEnv) run(args ...string) (string, error) {
	cmd := exec.Command(se.bin, args...)
	cmd.Env = se.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), &cmdError{args: args, err: err, stderr: errb.String()}
	}
	return out.String(), nil
}

// must is run failing the test on error.
func (se *sessionEnv) must(args ...string) string {
	se.t.Helper()
	return se.mustT(se.t, args...)
}

// mustT is must for a subtest.
func (se *sessionEnv) mustT(t *testing.T, args ...string) string {
	t.Helper()
	out, err := se.run(args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

type cmdError struct {
	args   []string
	err    error
	stderr string
}

func (e *cmdError) Error() string {
	return "melmux " + strings.Join(e.args, " ") + ": " + e.err.Error() + ": " + e.stderr
}

// inShell prefixes a shell command line with this environment's variables,
// for programs started by another program (a tmux pane) that does not pass
// our environment on.
func (se *sessionEnv) inShell(cmd string) string {
	var vars []string
	for _, kv := range se.env {
		for _, k := range []string{"XDG_RUNTIME_DIR=", "XDG_STATE_HOME=", "XDG_CONFIG_HOME=", "XDG_DATA_HOME=", "XDG_CACHE_HOME=", "HOME=", "SHELL=", "PATH=", "PS1="} {
			if strings.HasPrefix(kv, k) {
				vars = append(vars, "'"+kv+"'")
			}
		}
	}
	return "env " + strings.Join(vars, " ") + " " + cmd
}
