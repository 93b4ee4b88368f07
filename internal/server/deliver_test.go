package server

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/testexec"
)

// waitLine waits until a screen line of pane matches the RE2 pattern.
func waitLine(t *testing.T, c interface {
	Call(context.Context, string, any, any) error
}, pane int, pattern string) {
	t.Helper()
	if err := c.Call(context.Background(), "wait", proto.WaitParams{Pane: pane, Match: pattern, Screen: true, TimeoutMS: 10000}, nil); err != nil {
		t.Fatalf("waiting for %q in pane %d: %v", pattern, pane, err)
	}
}

// A shell gets the text typed and submitted: it runs the command.
func TestSendAgentToAShellSubmits(t *testing.T) {
	t.Parallel()
	_, c := startServer(t)
	newPane(t, c, "sh", "-c", "PS1='$ ' exec sh -i")
	waitLine(t, c, 1, `^\$`)
	r := send(t, c, 1, "echo delivered-$((6*7))", "")
	if !r.Delivered || r.Kind != "" || r.Note != "submitted; the program reacted to Enter" || !slices.Contains(r.Lines, "delivered-42") {
		t.Fatalf("send_agent to a shell: %+v", r)
	}
	var rr proto.ReadAgentResult
	if err := c.Call(context.Background(), "read_agent", proto.ReadAgentParams{Pane: 1}, &rr); err != nil {
		t.Fatal(err)
	}
	if rr.Agent != nil || rr.Status != "running" || !slices.Contains(rr.Lines, "delivered-42") {
		t.Fatalf("read_agent of a shell: %+v", rr)
	}
}

// A program that enabled bracketed paste gets the text as one paste, and the
// Enter after it on its own.
func TestSendAgentPastesWhenBracketed(t *testing.T) {
	t.Parallel()
	_, c := startServer(t)
	script := `printf '\033[?2004hready\n'; IFS= read -r line; printf 'got:%s\n' "$line" | cat -v; exec sleep 600`
	newPane(t, c, "sh", "-c", script)
	waitLine(t, c, 1, `^ready$`)
	r := send(t, c, 1, "hello there", "")
	if !r.Delivered || !slices.Contains(r.Lines, "got:^[[200~hello there^[[201~") {
		t.Fatalf("a bracketed-paste program should get one paste, then Enter: %+v", r)
	}
}

// A coding agent (here a stand-in named claude) that starts working on the
// message is reported as such.
func TestSendAgentSeesAnAgentGoToWork(t *testing.T) {
	t.Parallel()
	_, c := startServer(t)
	bin := t.TempDir()
	// It stays in the foreground as claude (no exec): the agent is looked
	// up again while the delivery runs.
	script := "#!/bin/sh\nprintf '> '\nread msg\nprintf '\\342\\234\\273 Thinking\\342\\200\\246 (esc to interrupt)\\n'\nsleep 600\n"
	testexec.Write(t, filepath.Join(bin, "claude"), []byte(script))
	newPane(t, c, filepath.Join(bin, "claude"))
	waitLine(t, c, 1, `^>`)
	r := send(t, c, 1, "fix the tests", "")
	if !r.Delivered || r.Kind != "claude" || r.State != "working" || r.Turn != 1 || r.Note != "submitted as turn 1; claude is working; read_agent(1) waits for its reply" {
		t.Fatalf("send_agent to claude: %+v", r)
	}
}

// A program that never reacts to Enter leaves the text unsubmitted, and the
// result says so after a bounded number of presses.
func TestSendAgentReportsUnsubmittedText(t *testing.T) {
	t.Parallel()
	_, c := startServer(t, func(cfg *Config) {
		cfg.tune.deliverEcho, cfg.tune.deliverReact, cfg.tune.deliverPause = 200*time.Millisecond, 200*time.Millisecond, 10*time.Millisecond
	})
	newPane(t, c, "sh", "-c", "stty raw -echo; echo deaf; exec sleep 600")
	waitLine(t, c, 1, `^deaf$`)
	r := send(t, c, 1, "anyone there?", "")
	want := "the text sits typed but unsubmitted in pane 1: the program did not react to Enter 3 times (the text did not show on screen within 200ms)"
	if r.Delivered || r.Note != want {
		t.Fatalf("send_agent to a deaf program: %+v", r)
	}
}

// An exited pane takes no message: the error send_keys gives.
func TestSendAgentToAnExitedPane(t *testing.T) {
	t.Parallel()
	_, c := startServer(t)
	newPane(t, c, "sh", "-c", "exit 3")
	if err := c.Call(context.Background(), "wait", proto.WaitParams{Pane: 1, Exit: true, TimeoutMS: 10000}, nil); err != nil {
		t.Fatal(err)
	}
	err := c.Call(context.Background(), "send_agent", proto.SendAgentParams{Pane: 1, Text: "hello"}, nil)
	var pe *proto.Error
	if !errors.As(err, &pe) || pe.Code != proto.CodeFailed || !strings.Contains(pe.Message, "pane 1 has exited (exit code 3); it takes no input") {
		t.Fatalf("send_agent to an exited pane: %v", err)
	}
}
