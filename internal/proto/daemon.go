package proto

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Session size limits, status line included: the emulator's largest screen
// (pane/term's MaxCols and MaxRows, which internal/server's tests keep equal)
// plus the status line; at least one column and a pane row under the status
// line. Here rather than in the server so that the CLI checks -x and -y
// without linking it.
const (
	MinSessionCols = 2
	MinSessionRows = 2
	MaxSessionCols = 2000
	MaxSessionRows = 1000 + 1
)

// AgentTaskEnv carries a worker's task from spawn_agent to `melmux agent`:
// in its environment, not on its command line, since /proc/PID/cmdline is
// readable by every user of the machine and /proc/PID/environ only by the
// worker's own. The agent takes it out of its environment as it starts, so
// the commands it runs do not inherit it.
const AgentTaskEnv = "MELMUX_AGENT_TASK"

// MaxWorkerTask bounds a worker's task in bytes: Linux takes an environment
// variable of at most 128 KiB (MAX_ARG_STRLEN), name, "=" and NUL included.
const MaxWorkerTask = 128<<10 - len(AgentTaskEnv) - 2

// What the session daemon writes on the ready pipe `melmux new` gives it, one
// line each: warnings for the user (ReadyWarn MESSAGE), then ReadyOK, or the
// error of the first pane (ReadyErr and the Error as JSON, so that its code,
// hence the exit status, is the one the `new` command would have answered),
// or any other line: why the server could not start.
const (
	ReadyOK   = "ok"
	ReadyWarn = "warn "
	ReadyErr  = "error "
)

// ReadyError is the ready pipe's line for the first pane's error.
func ReadyError(err error) string {
	pe := &Error{Code: CodeFailed, Message: err.Error()}
	errors.As(err, &pe)
	b, jerr := json.Marshal(pe)
	if jerr != nil {
		return OneLine(err.Error())
	}
	return ReadyErr + string(b)
}

// SessionExists is the error of a `new` for a session whose server runs:
// the daemon that finds the server says it, and so does the CLI when it
// looks first (a session with a saved state).
func SessionExists(name, sock string) *Error {
	return &Error{Code: CodeFailed, Message: "session " + strconv.Quote(name) + " already exists (socket " + sock + "); attach with `melmux -s " + name + " attach` or end it with `melmux -s " + name + " kill-server`"}
}

// OneLine keeps a message on the one line the ready pipe gives it.
func OneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }

// LogPath is the session daemon's log, $XDG_STATE_HOME/melmux/NAME.log
// (default ~/.local/state): the daemon writes it, the CLI points to it when
// the daemon did not start. A relative $XDG_STATE_HOME is ignored, as the
// XDG specification says and as the state file, the audit log and the web
// tokens ignore it: the log would otherwise land in whatever directory the
// session was started from.
func LogPath(name string) string {
	base := os.Getenv("XDG_STATE_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil {
			home = os.TempDir()
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "melmux", name+".log")
}
