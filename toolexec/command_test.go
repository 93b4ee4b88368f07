package toolexec

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRunCommand(t *testing.T) {
	w := newWorkspace(t)
	w.write("hello.txt", "hi\n")
	for _, tc := range []struct {
		name, command, want string
	}{
		{"ok", "cat hello.txt", "exit_code=0\nhi\n"},
		{"runs in the workspace", "pwd", "exit_code=0\n" + w.root + "\n"},
		{"exit code", "echo out; exit 3", "exit_code=3\nout\n"},
		{"order of stdout and stderr", "echo 1; echo 2 >&2; echo 3; echo 4 >&2", "exit_code=0\n1\n2\n3\n4\n"},
		{"stdin closed", "cat; echo after", "exit_code=0\nafter\n"},
		{"read sees EOF", "read x; echo \"rc=$?\"", "exit_code=0\nrc=1\n"},
		{"no output", "true", "exit_code=0\n"},
		{"killed by signal", "kill -TERM $$", "exit_code=143\n[killed by signal terminated]\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w.t = t
			if got := w.ok("run_command", obj{"command": tc.command}); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	w.t = t
	// The wording is the shell's (dash, bash); the status is POSIX.
	mustContain(t, w.ok("run_command", obj{"command": "no-such-cmd-melmux"}), "exit_code=127\n", "no-such-cmd-melmux", "not found")
	w.fails("run_command", obj{"command": "  "}, "command is empty")
}

func TestRunCommandTimeoutKillsGroup(t *testing.T) {
	w := newWorkspace(t)
	w.ex.CommandTimeout = 500 * time.Millisecond
	pidFile := filepath.Join(w.root, "child.pid")
	start := time.Now()
	// The grandchild ignores nothing special: it must die with the group.
	text := w.fails("run_command", obj{"command": "echo started; sleep 60 & echo $! > child.pid; wait"},
		"exit_code=137\nstarted\n", "timed out after 500ms", "every process it started was killed")
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("timeout took %s", d)
	}
	_ = text
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	waitGone(t, pid)
}

// waitGone fails unless process pid disappears (or is a zombie) soon.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if err := syscall.Kill(pid, 0); err != nil {
			return
		}
		stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if f := strings.Fields(string(stat)); len(f) > 2 && f[2] == "Z" {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("process %d still alive", pid)
}

func TestRunCommandTimeoutFromEnv(t *testing.T) {
	w := newWorkspace(t)
	w.env[CommandTimeoutEnv] = "300ms"
	w.fails("run_command", obj{"command": "sleep 30"}, "timed out after 300ms")
	w.env[CommandTimeoutEnv] = "soon"
	w.fails("run_command", obj{"command": "true"}, `MELMUX_COMMAND_TIMEOUT="soon" is not a positive Go duration`)
	// The executor's own setting wins over the environment.
	w.ex.CommandTimeout = time.Minute
	w.ok("run_command", obj{"command": "true"})
	d, err := (&Executor{Getenv: func(string) string { return "" }}).commandTimeout()
	if err != nil || d != DefaultCommandTimeout {
		t.Errorf("default timeout = %s, %v", d, err)
	}
}

func TestRunCommandCanceled(t *testing.T) {
	w := newWorkspace(t)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	r := w.ex.Run(ctx, "run_command", `{"command":"sleep 30"}`)
	if !r.IsError || !strings.Contains(r.Text, "command canceled") {
		t.Errorf("canceled: %+v", r)
	}
}

func TestRunCommandBackgroundHolder(t *testing.T) {
	w := newWorkspace(t)
	start := time.Now()
	// The shell exits at once but a background child keeps the output pipe.
	got := w.ok("run_command", obj{"command": "echo hi; (sleep 30; echo late) &"})
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %s", d)
	}
	mustContain(t, got, "exit_code=0\nhi\n", "kept its output open; 2s later every process it started was killed")
	// A background child that redirects its output does not hold the call.
	start = time.Now()
	got = w.ok("run_command", obj{"command": "sleep 1 >/dev/null 2>&1 & echo quick"})
	if got != "exit_code=0\nquick\n" || time.Since(start) > commandDrainGrace {
		t.Errorf("redirected background child: %q after %s", got, time.Since(start))
	}
}

func TestRunCommandOutputCap(t *testing.T) {
	w := newWorkspace(t)
	got := w.ok("run_command", obj{"command": "i=0; while [ $i -lt 20000 ]; do echo line$i; i=$((i+1)); done"})
	mustContain(t, got, "exit_code=0\nline0\nline1\n", "line19999\n", "bytes left out", "output cut: 188890 bytes in all")
	if len(got) > commandOutputCap+500 {
		t.Errorf("output %d bytes over the cap", len(got))
	}
}

func TestHeadTail(t *testing.T) {
	for _, chunk := range []int{1, 3, 7, 10, 64} {
		h := newHeadTail(20)
		var all strings.Builder
		for i := 0; i < 100; i++ {
			all.WriteString(strconv.Itoa(i % 10))
		}
		s := all.String()
		for i := 0; i < len(s); i += chunk {
			h.Write([]byte(s[i:min(i+chunk, len(s))]))
		}
		want := s[:10] + "\n[... 80 bytes left out ...]\n" + s[90:]
		if got := h.String(); got != want {
			t.Errorf("chunk %d: %q, want %q", chunk, got, want)
		}
	}
	h := newHeadTail(20)
	h.Write([]byte("short"))
	if h.String() != "short" || h.dropped != 0 {
		t.Errorf("short: %q", h.String())
	}
}
