package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
)

// TestMain lets the scripts run this test binary as `melmux`: the same main,
// the real daemon, real PTYs, on a private socket directory per script.
func TestMain(m *testing.M) {
	// The scripts and end-to-end tests wait on daemons, PTYs and tmux far
	// more than they compute, so more of them run at once than -parallel's
	// default, GOMAXPROCS; a -parallel given on the command line still wins.
	flag.Set("test.parallel", strconv.Itoa(4*runtime.GOMAXPROCS(0)))
	testscript.Main(m, map[string]func(){
		"melmux": func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

func TestScript(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir:   "testdata/script",
		Setup: setupScriptEnv,
		Cmds:  map[string]func(*testscript.TestScript, bool, []string){"ctl": ctlCmd},
	})
}

// ctlCmd speaks the control protocol by hand, for testing what the server
// does with bad input: `ctl [-hello JSON] [-big N] LINE...` connects to the
// session "main", sends the hello (the correct one unless -hello), then each
// LINE (and with -big, one line of N bytes), and prints every answer line.
func ctlCmd(ts *testscript.TestScript, neg bool, args []string) {
	hello := fmt.Sprintf(`{"version":%d,"mode":"control"}`, proto.Version)
	big := 0
	for len(args) > 1 {
		switch args[0] {
		case "-hello":
			hello, args = args[1], args[2:]
			continue
		case "-big":
			n, err := strconv.Atoi(args[1])
			ts.Check(err)
			big, args = n, args[2:]
			continue
		}
		break
	}
	sock := filepath.Join(ts.Getenv("XDG_RUNTIME_DIR"), fmt.Sprintf("melmux-%d", os.Getuid()), "main.sock")
	conn, err := net.Dial("unix", sock)
	ts.Check(err)
	defer conn.Close()
	lines := append([]string{hello}, args...)
	if big > 0 {
		lines = append(lines, `{"id":77,"method":"list_panes","params":{"x":"`+strings.Repeat("a", big)+`"}}`)
	}
	r := bufio.NewReader(conn)
	for _, l := range lines {
		_, err := io.WriteString(conn, l+"\n")
		var answer string
		if err == nil {
			_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			answer, err = r.ReadString('\n')
		}
		if err != nil {
			ts.Logf("connection closed: %v", err)
			if !neg {
				ts.Fatalf("no answer to %.80q", l)
			}
			return
		}
		fmt.Fprint(ts.Stdout(), answer)
	}
	if neg {
		ts.Fatalf("every line was answered")
	}
}

// setupScriptEnv gives each script its own socket directory (short, since a
// unix socket path is limited to 108 bytes), state and config directories,
// and ends every session the script left running.
func setupScriptEnv(env *testscript.Env) error {
	run, err := os.MkdirTemp("", "mx")
	if err != nil {
		return err
	}
	env.Setenv("XDG_RUNTIME_DIR", run)
	env.Setenv("XDG_STATE_HOME", filepath.Join(env.WorkDir, ".state"))
	env.Setenv("XDG_CONFIG_HOME", filepath.Join(env.WorkDir, ".config"))
	env.Setenv("XDG_DATA_HOME", filepath.Join(env.WorkDir, ".data"))
	env.Setenv("HOME", env.WorkDir)
	env.Setenv("SHELL", "/bin/sh")
	env.Setenv("MELMUX_SOCKET", "")
	env.Setenv("MELMUX_SESSION", "")
	env.Setenv("MELMUX_PANE", "")
	env.Setenv("PS1", "$ ")
	// Under -race every exiting melmux would sleep 1 s to let reports
	// flush; scripts run hundreds of them.
	env.Setenv("GORACE", strings.TrimSpace(env.Getenv("GORACE")+" atexit_sleep_ms=0"))
	env.Defer(func() {
		socks, _ := filepath.Glob(filepath.Join(run, "melmux-*", "*.sock"))
		for _, s := range socks {
			if c, err := client.Dial(s); err == nil {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				_ = c.Call(ctx, "kill-server", nil, nil)
				cancel()
				c.Close()
			}
		}
		os.RemoveAll(run)
	})
	return nil
}
