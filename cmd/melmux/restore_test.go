package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
)

// TestRestoreScript runs the scripts of testdata/restore: sessions killed
// with SIGKILL and rebuilt from their state file, melmux agents against the
// scripted model server of `fakemodel`.
func TestRestoreScript(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir:   "testdata/restore",
		Setup: setupScriptEnv,
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"fakemodel": fakeModelCmd, "kill9": kill9Cmd, "waitstate": waitStateCmd, "statefield": stateFieldCmd,
		},
	})
}

// scriptSock is the socket of session name in a script's environment.
func scriptSock(ts *testscript.TestScript, name string) string {
	return filepath.Join(ts.Getenv("XDG_RUNTIME_DIR"), fmt.Sprintf("melmux-%d", os.Getuid()), name+".sock")
}

// scriptState is the state file of session name in a script's environment.
func scriptState(ts *testscript.TestScript, name string) string {
	return filepath.Join(ts.Getenv("XDG_STATE_HOME"), "melmux", "sessions", name+".json")
}

// kill9Cmd kills the server of a session (default main) with SIGKILL, as a
// crash would, and waits until its socket refuses connections.
func kill9Cmd(ts *testscript.TestScript, neg bool, args []string) {
	name := "main"
	if len(args) == 1 {
		name = args[0]
	}
	sock := scriptSock(ts, name)
	c, err := client.Dial(sock)
	ts.Check(err)
	var info proto.SessionInfo
	err = c.Call(context.Background(), "ls", nil, &info)
	c.Close()
	ts.Check(err)
	ts.Check(syscall.Kill(info.PID, syscall.SIGKILL))
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := client.Dial(sock)
		if err != nil {
			return
		}
		c.Close()
		if time.Now().After(deadline) {
			ts.Fatalf("the server of %s still answers 10s after SIGKILL", name)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitStateCmd waits until the state file of session main (or -s NAME)
// matches a regular expression: `waitstate [-s NAME] RE`.
func waitStateCmd(ts *testscript.TestScript, neg bool, args []string) {
	name := "main"
	if len(args) == 3 && args[0] == "-s" {
		name, args = args[1], args[2:]
	}
	if len(args) != 1 {
		ts.Fatalf("usage: waitstate [-s NAME] RE")
	}
	re := regexp.MustCompile(args[0])
	path := scriptState(ts, name)
	deadline := time.Now().Add(30 * time.Second)
	for {
		data, _ := os.ReadFile(path)
		if re.Match(data) {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("the state file never matched %q:\n%s", args[0], data)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stateFieldCmd prints one top-level field of session main's state file.
func stateFieldCmd(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: statefield FIELD")
	}
	data, err := os.ReadFile(scriptState(ts, "main"))
	ts.Check(err)
	var m map[string]json.RawMessage
	ts.Check(json.Unmarshal(data, &m))
	fmt.Fprintf(ts.Stdout(), "%s\n", m[args[0]])
}
