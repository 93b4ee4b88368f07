package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/melmux/melmux/internal/client"
)

// TestMain lets the scripts run this test binary as `melmux`: the same main,
// the real daemon, real PTYs, on a private socket directory per script.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"melmux": func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:   "testdata/script",
		Setup: setupScriptEnv,
	})
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
