package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/testreq"
)

// hangLimit is a failure detector for calls that would otherwise block
// forever, not a speed assertion.
const hangLimit = 30 * time.Second

// sleepers counts live processes running `sleep arg`.
func sleepers(arg string) int {
	out, _ := exec.Command("pgrep", "-x", "-f", "sleep "+arg).Output()
	return len(strings.Fields(string(out)))
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(hangLimit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// `melmux tool` stops on SIGTERM, SIGINT and SIGHUP: the call's context is
// cancelled, run_command kills every process the command started (those
// that left its process group too), the result says so, and melmux exits
// with 128+signal. On SIGKILL, which it cannot catch, the command dies with
// it all the same.
func TestToolStopsOnSignals(t *testing.T) {
	t.Parallel()
	testreq.Tool(t, "pgrep")
	bin := melmuxBinary(t)
	for i, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			arg := strconv.Itoa(800000 + os.Getpid()%1000*10 + i)
			command := fmt.Sprintf("setsid sleep %[1]s & sleep %[1]s & echo ready > ready; wait", arg)
			cmd := exec.Command(bin, "tool", "run_command", fmt.Sprintf(`{"command":%q}`, command))
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+filepath.Join(dir, ".data"), "MELMUX_SOCKET=")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "the command to start", func() bool {
				_, err := os.Stat(filepath.Join(dir, "ready"))
				return err == nil && sleepers(arg) == 2
			})
			cmd.Process.Signal(sig)
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			select {
			case <-exited:
			case <-time.After(hangLimit):
				cmd.Process.Kill()
				t.Fatalf("melmux tool did not exit after %s", sig)
			}
			waitFor(t, "every process of the command to be gone", func() bool { return sleepers(arg) == 0 })
			if sig == syscall.SIGKILL {
				return
			}
			if code := cmd.ProcessState.ExitCode(); code != 128+int(sig) {
				t.Errorf("exit status %d, want %d (stderr %q)", code, 128+int(sig), stderr.String())
			}
			if !strings.Contains(stderr.String(), "command canceled; every process it started was killed") {
				t.Errorf("stderr %q", stderr.String())
			}
		})
	}
}

// A named pipe given to the file tools is refused at once instead of
// blocking in open(2).
func TestToolRefusesFIFO(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "f"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(melmuxBinary(t), "tool", "read_file", `{"path":"f"}`)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+filepath.Join(dir, ".data"), "MELMUX_SOCKET=")
	done := make(chan struct{})
	var out []byte
	go func() {
		out, _ = cmd.CombinedOutput()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(hangLimit):
		cmd.Process.Kill()
		t.Fatal("melmux tool read_file of a FIFO hung")
	}
	if !strings.Contains(string(out), "f is a named pipe (FIFO), not a regular file") || cmd.ProcessState.ExitCode() != 1 {
		t.Errorf("exit %d: %s", cmd.ProcessState.ExitCode(), out)
	}
}
