package muxenv

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Done removes work, or with keep leaves it and says where it is on w.
func Done(work string, keep bool, w io.Writer) {
	if keep {
		fmt.Fprintln(w, "kept", work)
		return
	}
	os.RemoveAll(work)
}

// Work makes a temporary directory named after prefix with the private
// run, state, config and data directories Env points at.
func Work(prefix string) (string, error) {
	work, err := os.MkdirTemp("", prefix)
	if err != nil {
		return "", fmt.Errorf("temporary directory: %w", err)
	}
	for _, d := range []string{"run", "state", "config", "data"} {
		if err := os.Mkdir(filepath.Join(work, d), 0o700); err != nil {
			os.RemoveAll(work)
			return "", fmt.Errorf("temporary directory: %w", err)
		}
	}
	return work, nil
}

// Env is the environment every multiplexer command runs with: the XDG
// directories under work, a UTF-8 locale, the same TERM and shell for both,
// and nothing that would make a client think it is nested.
func Env(work string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "LC_"), strings.HasPrefix(k, "TMUX"), strings.HasPrefix(k, "MELMUX"), strings.HasPrefix(k, "XDG_"),
			k == "TERM", k == "COLORTERM", k == "LANG", k == "LANGUAGE", k == "SHELL":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "TERM=xterm-256color", "LC_ALL=C.UTF-8", "SHELL=/bin/sh",
		"XDG_RUNTIME_DIR="+filepath.Join(work, "run"), "XDG_STATE_HOME="+filepath.Join(work, "state"),
		"XDG_CONFIG_HOME="+filepath.Join(work, "config"), "XDG_DATA_HOME="+filepath.Join(work, "data"))
}

// BuildMelmux builds ./cmd/melmux, ./cmd/melmux-agent and ./cmd/melmux-server
// (without cgo, as README does) of the module the current directory is in, into work, and
// returns melmux's binary, the module's directory and its commit ("unknown"
// outside git).
func BuildMelmux(ctx context.Context, work string) (bin, dir, commit string, err error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	gomod := strings.TrimSpace(string(out))
	if err != nil || gomod == "" || gomod == os.DevNull {
		return "", "", "", fmt.Errorf("find the melmux module (go env GOMOD gave %q): run from the checkout or pass -melmux PATH", gomod)
	}
	dir = filepath.Dir(gomod)
	bin = filepath.Join(work, "melmux")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", work+"/", "./cmd/melmux", "./cmd/melmux-agent", "./cmd/melmux-server")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0") // as README builds it
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", "", "", fmt.Errorf("go build ./cmd/melmux ./cmd/melmux-agent ./cmd/melmux-server in %s: %w\n%s", dir, err, b)
	}
	commit = "unknown"
	if b, err := exec.CommandContext(ctx, "git", "-C", dir, "rev-parse", "--short", "HEAD").Output(); err == nil {
		commit = strings.TrimSpace(string(b))
	}
	return bin, dir, commit, nil
}
