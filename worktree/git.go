package worktree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// ErrNoGit means the git program could not be run.
var ErrNoGit = errors.New("git is not installed (or not on $PATH)")

// gitError is a git command that failed: what it was asked and what it said.
type gitError struct {
	args   []string
	stderr string
	err    error
}

func (e *gitError) Error() string {
	msg := e.stderr
	if msg == "" {
		msg = e.err.Error()
	}
	return "git " + strings.Join(e.args, " ") + ": " + msg
}

func (e *gitError) Unwrap() error { return e.err }

// saysAny reports whether err is a git failure whose message holds one of
// the phrases (git's messages are stable in the C locale git runs in here).
func saysAny(err error, phrases ...string) bool {
	var ge *gitError
	if !errors.As(err, &ge) {
		return false
	}
	for _, p := range phrases {
		if strings.Contains(ge.stderr, p) {
			return true
		}
	}
	return false
}

// cleanEnv is the environment git runs in: the process's, without the
// variables that would point git at another repository, index or work tree
// (a melmux started from a git hook inherits them), in the C locale so its
// messages can be recognised, never prompting, and taking no optional locks
// (`git status` would otherwise refresh the worktree's index under
// index.lock while an agent commits there).
func cleanEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY",
			"GIT_NAMESPACE", "GIT_PREFIX", "GIT_CEILING_DIRECTORIES", "GIT_EXTERNAL_DIFF", "LC_ALL", "LANGUAGE":
			continue
		}
		env = append(env, kv)
	}
	return append(append(env, "LC_ALL=C", "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "GIT_PAGER=cat"), extra...)
}

// git runs git in dir with args and returns its standard output. extra are
// environment variables on top of cleanEnv.
func git(ctx context.Context, dir string, extra []string, args ...string) (string, error) {
	out, _, err := gitLimited(ctx, dir, extra, 0, args...)
	return out, err
}

// gitLimited is git keeping at most limit bytes of the output (0: all of
// it); cut reports that there was more.
func gitLimited(ctx context.Context, dir string, extra []string, limit int, args ...string) (out string, cut bool, err error) {
	return gitIn(ctx, dir, cleanEnv(extra...), limit, args...)
}

// noPrograms starts every git command melmux runs but `git worktree add`:
// no hook and no fsmonitor, which the repository's configuration (written
// by an agent, maybe) could name. Removing a worktree deletes a branch, and
// update-ref runs the reference-transaction hook.
var noPrograms = []string{"-c", "core.hooksPath=" + os.DevNull, "-c", "core.fsmonitor=false"}

// gitIn is gitLimited with the whole environment given.
func gitIn(ctx context.Context, dir string, env []string, limit int, args ...string) (out string, cut bool, err error) {
	return gitRun(ctx, dir, env, limit, len(args) >= 2 && args[0] == "worktree" && args[1] == "add", args...)
}

// gitAsPerson runs git in dir as a person's own git command runs: the
// repository's hooks and filters run. It is for what a person asks of a
// worktree (Commit, Merge), never for reading one.
func gitAsPerson(ctx context.Context, dir string, args ...string) (string, error) {
	out, _, err := gitRun(ctx, dir, cleanEnv(), 0, true, args...)
	return out, err
}

// gitRun runs git; programs lets it run what the configuration names
// (hooks, fsmonitor), else noPrograms forbids them.
func gitRun(ctx context.Context, dir string, env []string, limit int, programs bool, args ...string) (out string, cut bool, err error) {
	full := []string{"-C", dir}
	if !programs {
		full = append(full, noPrograms...)
	}
	cmd := exec.CommandContext(ctx, "git", append(full, args...)...)
	cmd.Env = env
	stdout := &limitedBuffer{limit: limit}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = stdout, &stderr
	if err := cmd.Run(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return "", false, ErrNoGit
		}
		if ctx.Err() != nil {
			return "", false, fmt.Errorf("git %s: %w", args[0], ctx.Err())
		}
		return stdout.String(), stdout.cut, &gitError{args: args, stderr: strings.TrimSpace(stderr.String()), err: err}
	}
	return stdout.String(), stdout.cut, nil
}

// limitedBuffer keeps the first limit bytes written to it (all when limit
// is 0) and swallows the rest, so a huge diff costs no memory.
type limitedBuffer struct {
	bytes.Buffer
	limit int
	cut   bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if b.limit > 0 && b.Len()+len(p) > b.limit {
		b.cut = true
		b.Buffer.Write(p[:max(b.limit-b.Len(), 0)])
		return len(p), nil
	}
	return b.Buffer.Write(p)
}

// lines splits git's output into its lines, without the final newline.
func lines(out string) []string {
	out = strings.TrimSuffix(out, "\n")
	if out == "" {
		return nil
	}
	return strings.Split(out, "\n")
}

// isExit reports whether err is git exiting with code.
func isExit(err error, code int) bool {
	var exit *exec.ExitError
	return errors.As(err, &exit) && exit.ExitCode() == code
}
