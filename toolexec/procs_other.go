//go:build !linux

package toolexec

import (
	"fmt"
	"os"
	"sync/atomic"
	"syscall"
)

// RunIDEnv is the environment variable that marks every process a
// run_command starts.
const RunIDEnv = "MELMUX_RUN_ID"

var runSeq atomic.Uint64

// procTracker follows a command's processes by its process group only: this
// system has neither cgroups nor a /proc to search.
type procTracker struct {
	id    string
	shell int
}

func newProcTracker() *procTracker {
	return &procTracker{id: fmt.Sprintf("%d-%d", os.Getpid(), runSeq.Add(1))}
}

func (t *procTracker) sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
func (t *procTracker) cgrouped() bool                    { return false }
func (t *procTracker) dropCgroup(error)                  {}
func (t *procTracker) started(pid int)                   { t.shell = pid }
func (t *procTracker) close()                            {}

// kill ends the command's process group; nothing can be said of the rest.
func (t *procTracker) kill() []string {
	syscall.Kill(-t.shell, syscall.SIGKILL) // Best effort: the group may be gone.
	return nil
}

func (t *procTracker) limits() string {
	return "tracked by process group only on this system: a process that left the group (setsid) would be missed"
}

// watchdogScript kills the command's process group unless the first line
// it reads is "done" ($2 is the group).
const watchdogScript = `read x
[ "$x" = done ] && exit 0
kill -9 -- "-$2" 2>/dev/null`

func watchdogAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

func (t *procTracker) cgroupDir() string { return "" }
