package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// melmux is four programs built together (`go build ./cmd/...`): Binary,
// the command line; AgentBinary, the agent verbs; ServerBinary, the session
// daemon; WebBinary, the web server a session starts on `melmux web` (as
// `melmux-web __web`, WebVerb). Each links only what its part needs, so that
// a CLI process does not pay the package inits and pages of the others, nor
// an idle session's server those of the web.
const (
	Binary       = "melmux"
	ServerBinary = "melmux-server"
	WebBinary    = "melmux-web"
	WebVerb      = "__web"
)

// ServeVerb is the session daemon's verb, run by run; standIn says it is
// melmux's stand-in that hands over to ServerBinary rather than the real
// daemon (internal/serveverb).
func ServeVerb(run func(g *Globals, args []string) error, standIn bool) *Verb {
	return &Verb{
		Name:    "__serve",
		Usage:   "-s NAME --socket PATH [--ready-fd N] [--cli PATH] [--new [-x COLS] [-y ROWS] [-- CMD...]]",
		Summary: "run a session server in the foreground (started by `melmux new`)",
		Run:     run, StandIn: standIn,
	}
}

// FindBinary finds the melmux program name beside this executable (symlinks
// resolved, so a melmux linked into ~/bin finds the programs built with it),
// else on $PATH. holds says what the program holds, for the error, which
// names where it looked and how to build it.
func FindBinary(name, holds string) (string, error) {
	var looked []string
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		p := filepath.Join(filepath.Dir(exe), name)
		if isExecutableFile(p) {
			return p, nil
		}
		looked = append(looked, p)
	}
	// exec.LookPath refuses a match in a relative $PATH entry (exec.ErrDot):
	// that is not where an installed melmux program lives.
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	looked = append(looked, "$PATH")
	dir := "DIR"
	if len(looked) > 1 {
		dir = filepath.Dir(looked[0])
	}
	return "", fmt.Errorf("%s not found (looked at %s): it holds %s; build it into melmux's directory with `CGO_ENABLED=0 go build -o %s ./cmd/...` in the melmux source tree, or put it on $PATH",
		name, strings.Join(looked, " and "), holds, dir)
}

func isExecutableFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
}

// PromptVerbs are what the attached ":" prompt completes its first word to:
// melmux's verbs, less attach, agent and mcp, which need the terminal or
// stdio that a verb run from the prompt does not have. The daemon does not
// link the verbs (melmux-server holds only __serve), so the list is written
// out here; cmd/melmux's TestPromptVerbsAreMelmuxs keeps it equal to the
// verbs melmux registers.
var PromptVerbs = []string{
	"agents", "answer", "config", "debug", "detach", "diff", "explain", "help", "hooks", "hosts", "kill-pane", "kill-server", "list-panes", "ls",
	"new", "notify", "open-pane", "read-agent", "read-pane", "resize", "restore", "send-agent",
	"send-keys", "source-file", "spawn-agent", "tool", "tools", "top", "version", "wait", "web", "worktree",
}
