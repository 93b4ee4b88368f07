package server

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/testexec"
	"github.com/melmux/melmux/pane/term"
)

// source_file makes the file the session's: prefix, bindings, colours,
// scrollback, policy and prices; a bad entry is left out and named; a file
// that does not parse, or is not there, changes nothing.
func TestSourceFileAppliesTheConfigAndKeepsItOnASyntaxError(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "config.toml")
	s, c := startServer(t, func(cfg *Config) { cfg.ConfigFile, cfg.UI.Verbs = file, []string{"ls"} })
	ctx := context.Background()
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	source := func(p proto.SourceFileParams) (proto.SourceFileResult, error) {
		var res proto.SourceFileResult
		err := c.Call(ctx, "source_file", p, &res)
		return res, err
	}

	write(`prefix = "C-a"
scrollback = 5
[status]
bg = "red"
[prices]
"m" = { input = 1, output = 2 }
[[agents.policy]]
kind = "claude"
tool = "Read"
decision = "allow"
`)
	res, err := source(proto.SourceFileParams{})
	if err != nil || res.File != file || len(res.Problems) != 0 {
		t.Fatalf("source_file: %+v, %v", res, err)
	}
	lc := s.cfg()
	if lc.ui.Prefix != "C-a" || lc.ui.Status.BG != term.Indexed(1) || lc.scroll != 5 || lc.agents.Policy == nil || lc.prices["m"].Output != 2 {
		t.Fatalf("after source_file: %+v", lc)
	}
	if len(lc.ui.Verbs) != 1 || lc.readWait <= 0 {
		t.Errorf("the prompt's verbs and read_agent's wait were lost: %+v", lc)
	}

	write("prefix = \"C-x\"\n[bindings]\nq = \"quit-everything\"\n")
	res, err = source(proto.SourceFileParams{File: file})
	if err != nil || len(res.Problems) != 1 || !strings.HasPrefix(res.Problems[0], file+":3: bindings.q: ") {
		t.Fatalf("a bad binding: %+v, %v", res, err)
	}
	if lc := s.cfg(); lc.ui.Prefix != "C-x" || lc.agents.Policy != nil || !strings.Contains(lc.problem, "bindings.q") {
		t.Fatalf("the rest of the file should apply, and the problem be shown on attach: %+v", lc)
	}

	before := s.cfg()
	write("prefix = \"C-y\"\nscrollback = = 3\n")
	_, err = source(proto.SourceFileParams{})
	var pe *proto.Error
	if !errors.As(err, &pe) || pe.Code != proto.CodeFailed || !strings.Contains(pe.Message, file+":2: scrollback: not valid TOML") || !strings.Contains(pe.Message, "none of it is used; instead: the session's config as it was") {
		t.Fatalf("a syntax error: %v", err)
	}
	if s.cfg() != before {
		t.Fatalf("a file that does not parse changed the config: %+v", s.cfg())
	}
	for _, tc := range []struct {
		file, code, msg string
	}{
		{"config.toml", proto.CodeBadParams, `file "config.toml" must be an absolute path`},
		{file + ".gone", proto.CodeFailed, "there is no file " + file + ".gone; the session's config stays as it was"},
	} {
		_, err := source(proto.SourceFileParams{File: tc.file})
		if !errors.As(err, &pe) || pe.Code != tc.code || !strings.Contains(pe.Message, tc.msg) {
			t.Errorf("source_file %s: %v, want %s %q", tc.file, err, tc.code, tc.msg)
		}
	}
	if s.cfg() != before {
		t.Fatalf("a refused source_file changed the config: %+v", s.cfg())
	}
}

// The kinds and rules of a file read again apply to the panes that run
// already: a program melmux did not know as an agent is one, and its
// question is seen, once source_file has answered.
func TestSourceFileRulesApplyToRunningPanes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "config.toml")
	_, c := startServer(t, func(cfg *Config) { cfg.ConfigFile = file })
	ctx := context.Background()
	// A shell under another name: its process is "mine", not "sh".
	sh, err := os.ReadFile("/bin/sh")
	if err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(dir, "mine")
	testexec.Write(t, prog, sh)
	if err := c.Call(ctx, "new", proto.NewParams{Command: []string{prog, "-c", "printf 'Proceed with the plan? (y/n)\\n'; read answer"}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, "wait", proto.WaitParams{Pane: 1, Match: "Proceed with the plan", Screen: true, TimeoutMS: 10000}, nil); err != nil {
		t.Fatal(err)
	}
	source := func(text string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		var res proto.SourceFileResult
		if err := c.Call(ctx, "source_file", proto.SourceFileParams{}, &res); err != nil || len(res.Problems) != 0 {
			t.Fatalf("source_file: %+v, %v", res, err)
		}
	}
	agent := func() *proto.AgentInfo {
		t.Helper()
		var panes []proto.PaneInfo
		if err := c.Call(ctx, "list_panes", nil, &panes); err != nil || len(panes) != 1 {
			t.Fatalf("list_panes: %+v, %v", panes, err)
		}
		return panes[0].Agent
	}
	if a := agent(); a != nil {
		t.Fatalf("before the file, the pane runs no agent: %+v", a)
	}
	// First the kind alone: the pane runs an agent, whose question no
	// rule knows yet.
	kind := "[agents.kinds.mine]\nprograms = [\"mine\"]\n"
	source(kind)
	if a := agent(); a == nil || a.Kind != "mine" || a.State == "waiting" {
		t.Fatalf("with the kind read again, the pane runs a mine agent, not waiting: %+v", a)
	}
	// Then its rule: the agent the pane runs already is read by it.
	source(kind + `
[[agents.rules]]
name = "mine.ask"
kind = "mine"
state = "waiting"
region = "bottom"
match = 'Proceed with the plan\? \(y/n\)'
`)
	if err := c.Call(ctx, "wait", proto.WaitParams{Pane: 1, State: "waiting", TimeoutMS: 10000}, nil); err != nil {
		t.Fatalf("the rule read again should see the question: %v (agent %+v)", err, agent())
	}
}
