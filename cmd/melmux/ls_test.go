package main

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/proto"
)

// A server that holds its socket but does not answer (stopped, stuck) is
// listed as not responding; a stale socket nobody listens on is left out.
func TestLsListsAServerThatDoesNotAnswer(t *testing.T) {
	run, err := os.MkdirTemp("", "mxl")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(run)
	t.Setenv("XDG_RUNTIME_DIR", run)
	t.Setenv("MELMUX_SOCKET", "")
	// ls lists the saved sessions too: those of the person running the
	// test must not show up among the test's.
	privateHome(t)
	defer func(d time.Duration) { lsTimeout = d }(lsTimeout)
	lsTimeout = 300 * time.Millisecond
	if err := os.Mkdir(proto.SocketDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	stuck, err := net.Listen("unix", filepath.Join(proto.SocketDir(), "stuck.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer stuck.Close() // connections wait in its backlog, never answered
	stale, err := net.Listen("unix", filepath.Join(proto.SocketDir(), "gone.sock"))
	if err != nil {
		t.Fatal(err)
	}
	stale.(*net.UnixListener).SetUnlinkOnClose(false)
	stale.Close()

	code, out, errs := runCLI(t, run, "", "ls")
	if code != 0 {
		t.Fatalf("ls exited %d: %s", code, errs)
	}
	if !regexp.MustCompile(`(?m)^stuck\s+-\s+-\s+-\s+not responding: no answer within 300ms$`).MatchString(out) {
		t.Fatalf("ls did not list the stuck server:\n%s", out)
	}
	if strings.Contains(out, "gone") {
		t.Fatalf("ls listed a stale socket:\n%s", out)
	}
	code, out, errs = runCLI(t, run, "", "ls", "--json")
	if code != 0 {
		t.Fatalf("ls --json exited %d: %s", code, errs)
	}
	var rows []proto.SessionInfo
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 1 || rows[0].Name != "stuck" || !strings.HasPrefix(rows[0].Error, "not responding") {
		t.Fatalf("ls --json: %v %s", err, out)
	}
}

// privateHome points $HOME and the XDG base directories other than the
// runtime one at a fresh directory for the test, so that nothing of the
// user's own melmux (saved sessions, config, logs) is read or written.
func privateHome(t *testing.T) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, k := range []string{"XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"} {
		t.Setenv(k, filepath.Join(home, strings.ToLower(strings.TrimPrefix(k, "XDG_"))))
	}
}
