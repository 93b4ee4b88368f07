package main

import (
	"bytes"
	"strings"
	"testing"

	// The test binary is melmux, melmux-agent and melmux-server in one: the
	// scripts run it as `melmux` for `agent`, `tool` and `mcp` as well, and
	// as the session daemon; the real verbs replace melmux's stand-ins that
	// would hand them to melmux-agent and melmux-server.
	_ "github.com/melmux/melmux/internal/agentverbs"
	_ "github.com/melmux/melmux/internal/serveverb"
)

// runCLI runs melmux in-process in dir and returns the exit status and
// both outputs.
func runCLI(t *testing.T, dir, stdin string, args ...string) (int, string, string) {
	t.Helper()
	t.Chdir(dir)
	var out, errOut bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}
