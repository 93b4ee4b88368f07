package main

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The real melmux starts its session's daemon as the melmux-server beside
// it, directly (no `melmux __serve` in between), and tells it which melmux
// the ":" prompt and spawn_agent run.
func TestNewStartsMelmuxServer(t *testing.T) {
	t.Parallel()
	se := newSessionEnv(t)
	se.must("new", "-d", "--", "sleep", "600")
	if out := se.must("list-panes"); !strings.Contains(out, "sleep 600") {
		t.Fatalf("list-panes: %q", out)
	}
	argv := daemonArgv(t, se, "main")
	server := filepath.Join(filepath.Dir(se.bin), "melmux-server")
	if argv[0] != server || argv[1] != "__serve" {
		t.Errorf("the daemon runs %q, want %s __serve ...", argv, server)
	}
	if i := slices.Index(argv, "--cli"); i < 0 || i+1 >= len(argv) || argv[i+1] != se.bin {
		t.Errorf("the daemon was not told melmux's path %s: %q", se.bin, argv)
	}
}

// Without melmux-server beside melmux or on $PATH, new (and __serve typed
// by hand) fails with where melmux looked and how to build it.
func TestNewWithoutMelmuxServer(t *testing.T) {
	t.Parallel()
	alone := melmuxAlone(t)
	env := append(envWithPath(t, "/usr/bin:/bin"), "XDG_RUNTIME_DIR="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir(), "MELMUX_SOCKET=")
	want := "melmux-server not found (looked at " + filepath.Join(filepath.Dir(alone), "melmux-server") + " and $PATH): it holds the session server"
	build := "go build -o " + filepath.Dir(alone) + " ./cmd/..."
	for _, args := range [][]string{{"-s", "alone", "new", "-d"}, {"-s", "alone", "__serve"}} {
		code, out, errOut := runBin(t, env, alone, args...)
		if code != 1 || out != "" || !strings.Contains(errOut, want) || !strings.Contains(errOut, build) {
			t.Errorf("melmux %q without melmux-server: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}

// daemonArgv is the command line of the daemon serving the session name of
// se, found in /proc by its socket.
func daemonArgv(t *testing.T, se *sessionEnv, name string) []string {
	t.Helper()
	var run string
	for _, kv := range se.env {
		if v, ok := strings.CutPrefix(kv, "XDG_RUNTIME_DIR="); ok {
			run = v
		}
	}
	sock := filepath.Join(run, "melmux-"+strconv.Itoa(os.Getuid()), name+".sock")
	cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range cmdlines {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		argv := strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
		if len(argv) > 1 && argv[1] == "__serve" && slices.Contains(argv, sock) {
			return argv
		}
	}
	t.Fatalf("no daemon with the socket %s in /proc", sock)
	return nil
}
