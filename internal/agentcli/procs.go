package agentcli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// MarkEnv is the variable a test sets, to a value of its own, in the
// environment of everything it starts: children inherit it, so the
// processes still carrying it after the test ended are exactly its
// leftovers — whatever became of their parents or process groups.
const MarkEnv = "MELMUX_AGENT_TEST_MARK"

// Proc is a running process.
type Proc struct {
	PID     int
	Cmdline string
}

func (p Proc) String() string { return fmt.Sprintf("%d %s", p.PID, p.Cmdline) }

// Marked lists this user's processes whose environment has MarkEnv=mark.
func Marked(mark string) []Proc {
	want := []byte(MarkEnv + "=" + mark)
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var out []Proc
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join(d, "environ"))
		if err != nil || !hasEntry(env, want) {
			continue
		}
		if isZombie(d) {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join(d, "cmdline"))
		out = append(out, Proc{PID: pid, Cmdline: strings.TrimSpace(strings.ReplaceAll(string(cmd), "\x00", " "))})
	}
	return out
}

func hasEntry(environ, entry []byte) bool {
	for _, e := range bytes.Split(environ, []byte{0}) {
		if bytes.Equal(e, entry) {
			return true
		}
	}
	return false
}

// isZombie reports a process that has ended but not been reaped: it is no
// leftover of the test, only of its parent's bookkeeping.
func isZombie(dir string) bool {
	stat, err := os.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		return true
	}
	// The state follows the parenthesised command name, which may hold spaces.
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] == 'Z'
}

// WaitGone waits until no process carries mark, and returns those still
// there when ctx ends.
func WaitGone(ctx context.Context, mark string) []Proc {
	for {
		left := Marked(mark)
		if len(left) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return left
		case <-time.After(50 * time.Millisecond):
			// /proc offers nothing to wait on for processes that are not our
			// children; a short poll is the only way to see them end.
		}
	}
}

// KillMarked sends SIGKILL to every process carrying mark and returns them.
func KillMarked(mark string) []Proc {
	left := Marked(mark)
	for _, p := range left {
		_ = syscall.Kill(p.PID, syscall.SIGKILL)
	}
	return left
}
