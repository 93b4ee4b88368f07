package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An agent asking a person something gets nothing typed: Enter would answer
// its question (with Claude Code, approve the command) and lose the message.
// The stand-in records any input it reads after asking.
func TestSendAgentLeavesAQuestionAlone(t *testing.T) {
	_, c := startServer(t)
	bin := t.TempDir()
	got := filepath.Join(bin, "got")
	script := "#!/bin/sh\nprintf 'Bash command\\n  rm -rf build\\nDo you want to proceed?\\n  1. Yes\\n  2. No\\n'\n" +
		"IFS= read -r answer\nprintf '%s' \"$answer\" > '" + got + "'\nexec sleep 600\n"
	if err := os.WriteFile(filepath.Join(bin, "claude"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	newPane(t, c, filepath.Join(bin, "claude"))
	waitLine(t, c, 1, `^  2\. No$`)
	r := send(t, c, 1, "fix the tests", "")
	want := "nothing was typed: claude in pane 1 is waiting on a person (a question is on screen); answer it with send_keys first"
	if r.Delivered || r.Kind != "claude" || r.State != "waiting" || r.Note != want || !strings.Contains(strings.Join(r.Lines, "\n"), "Do you want to proceed?") {
		t.Fatalf("send_agent to a waiting agent: %+v", r)
	}
	if _, err := os.Stat(got); err == nil {
		t.Fatal("the waiting agent read input")
	}
}
