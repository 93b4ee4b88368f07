package server

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/testexec"
)

// An agent asking a person something gets nothing typed: Enter would answer
// its question (with Claude Code, approve the command) and lose the message.
// The stand-in records any input it reads after asking.
func TestSendAgentLeavesAQuestionAlone(t *testing.T) {
	t.Parallel()
	_, c := startServer(t)
	got := filepath.Join(t.TempDir(), "got")
	newPane(t, c, standIn(t, "#!/bin/sh\nprintf 'Bash command\\n  rm -rf build\\nDo you want to proceed?\\n\\342\\235\\257 1. Yes\\n  2. No\\n'\n"+
		"IFS= read -r answer\nprintf '%s' \"$answer\" > '"+got+"'\nexec sleep 600\n"))
	waitLine(t, c, 1, `^  2\. No$`)
	// The refusal is an error (is_error over MCP, exit 1 from `melmux
	// tool`) that names the keys answering the question.
	err := c.Call(context.Background(), "send_agent", proto.SendAgentParams{Pane: 1, Text: "fix the tests"}, nil)
	want := `send_agent: nothing was typed: claude in pane 1 is waiting on a person: claude asks "Do you want to proceed?"`
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), `"1" = Yes, "2" = No`) {
		t.Fatalf("send_agent to a waiting agent: %v", err)
	}
	if _, err := os.Stat(got); err == nil {
		t.Fatal("the waiting agent read input")
	}
}

// A coding agent still starting gets nothing typed until it has drawn its
// screen: the stand-in, like Claude Code, drops whatever reached its terminal
// before it was ready.
func TestSendAgentWaitsForAnAgentToStart(t *testing.T) {
	t.Parallel()
	_, c := startServer(t)
	newPane(t, c, standIn(t, "#!/bin/sh\nsleep 1\nstty raw -echo\ntimeout 0.2 cat > /dev/null\nstty sane\n"+
		"printf '> '\nIFS= read -r msg\nprintf 'got:%s\\n' \"$msg\"\nsleep 600\n"))
	r := send(t, c, 1, "fix the tests", "")
	if !r.Delivered || r.Kind != "claude" {
		t.Fatalf("send_agent to a starting agent: %+v", r)
	}
	waitLine(t, c, 1, `^got:fix the tests$`)
}

// standIn writes script as a program named claude and returns its path.
func standIn(t *testing.T, script string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "claude")
	testexec.Write(t, path, []byte(script))
	return path
}
