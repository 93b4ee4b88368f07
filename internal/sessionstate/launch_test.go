package sessionstate

import (
	"slices"
	"strings"
	"testing"
)

func TestLaunch(t *testing.T) {
	const self = "/opt/melmux/bin/melmux"
	mel := &Agent{ID: "0c0ffee0-2222-3333-4444-555555555555", Role: "worker", Model: "gpt-4.1"}
	for _, tc := range []struct {
		name string
		p    Pane
		argv []string
		typ  string
	}{
		{"a shell as the default shell", Pane{Argv: []string{"/bin/bash"}, Shell: true}, []string{"/bin/zsh"}, ""},
		{"a program as it was", Pane{Argv: []string{"sleep", "1000"}}, []string{"sleep", "1000"}, ""},
		{"claude continues", Pane{Argv: []string{"claude", "fix the tests"}}, []string{"claude", "--continue"}, ""},
		{"claude keeps its settings, not its prompt", Pane{Argv: []string{"claude", "--model", "opus", "fix the tests", "--permission-mode", "plan"}},
			[]string{"claude", "--model", "opus", "--permission-mode", "plan", "--continue"}, ""},
		{"claude under node", Pane{Argv: []string{"node", "/usr/lib/node_modules/.bin/claude", "--model", "opus"}},
			[]string{"node", "/usr/lib/node_modules/.bin/claude", "--model", "opus", "--continue"}, ""},
		{"claude under sh -c", Pane{Argv: []string{"/bin/sh", "-c", "claude --model opus --add-dir '/tmp/a b' -- 'fix it'"}},
			[]string{"/bin/sh", "-c", "claude --model opus --add-dir '/tmp/a b' --continue"}, ""},
		{"claude under sh -c with more than words", Pane{Argv: []string{"/bin/sh", "-c", "claude --model opus \"$TASK\" | tee log"}},
			[]string{"/bin/sh", "-c", "claude --continue"}, ""},
		{"codex resumes", Pane{Argv: []string{"/usr/local/bin/codex"}}, []string{"/usr/local/bin/codex", "resume", "--last"}, ""},
		{"codex keeps its settings, not its prompt", Pane{Argv: []string{"codex", "-m", "o3", "--sandbox", "workspace-write", "fix it", "-a", "never"}},
			[]string{"codex", "resume", "--last", "-m", "o3", "--sandbox", "workspace-write", "-a", "never"}, ""},
		{"aider runs again", Pane{Argv: []string{"aider", "--model", "x"}}, []string{"aider", "--model", "x"}, ""},
		{"claude typed into its shell", Pane{Argv: []string{"/bin/bash"}, Shell: true, Foreground: []string{"node", "/x/claude", "-p"}},
			[]string{"/bin/zsh"}, "claude --continue"},
		{"codex typed into its shell", Pane{Argv: []string{"-bash"}, Foreground: []string{"codex"}}, []string{"-bash"}, "codex resume --last"},
		{"claude typed into its shell with its settings", Pane{Argv: []string{"/bin/bash"}, Foreground: []string{"node", "/x/claude", "--model", "opus", "--settings", `{"a": 1}`, "fix it"}},
			[]string{"/bin/bash"}, `claude --model opus --settings '{"a": 1}' --continue`},
		{"a foreground program that is no agent", Pane{Argv: []string{"/bin/bash"}, Foreground: []string{"vim", "x"}}, []string{"/bin/bash"}, ""},
		{"a spawned worker resumes with its endpoint", Pane{Agent: mel, Argv: []string{self, "agent", "--role", "worker", "--id", mel.ID,
			"--task", "write the tests", "--provider", "openai", "--base-url", "http://127.0.0.1:9/v1", "--max-legs=7", "--once"}},
			[]string{self, "agent", "--provider", "openai", "--base-url", "http://127.0.0.1:9/v1", "--max-legs=7", "--resume", mel.ID, "--role", "worker"}, ""},
		{"melmux agent by name", Pane{Agent: mel, Argv: []string{"melmux", "agent"}}, []string{self, "agent", "--resume", mel.ID, "--role", "worker"}, ""},
		{"melmux agent typed into its shell", Pane{Agent: mel, Argv: []string{"/bin/sh"}, Shell: true, Foreground: []string{"melmux", "agent", "--task", "it's"}},
			[]string{"/bin/zsh"}, "/opt/melmux/bin/melmux agent --resume " + mel.ID + " --role worker"},
		{"melmux agent handed over to melmux-agent, typed into its shell", Pane{Agent: mel, Argv: []string{"/bin/sh"}, Shell: true, Foreground: []string{"melmux-agent", "agent", "--task", "x"}},
			[]string{"/bin/zsh"}, "/opt/melmux/bin/melmux agent --resume " + mel.ID + " --role worker"},
		{"melmux-agent started by path", Pane{Agent: mel, Argv: []string{"/opt/melmux/bin/melmux-agent", "agent", "--model", "m"}},
			[]string{self, "agent", "--model", "m", "--resume", mel.ID, "--role", "worker"}, ""},
		{"melmux agent under sh -c", Pane{Agent: mel, Argv: []string{"/bin/sh", "-c", "melmux agent --model x"}},
			[]string{self, "agent", "--resume", mel.ID, "--role", "worker"}, ""},
		{"an exited agent's shell stays a shell", Pane{Agent: mel, Argv: []string{"/bin/sh"}, Foreground: []string{"/bin/sh"}}, []string{"/bin/sh"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := tc.p.Launch(self, "/bin/zsh")
			if !slices.Equal(l.Argv, tc.argv) || l.Type != tc.typ {
				t.Errorf("Launch = %q typing %q, want %q typing %q", l.Argv, l.Type, tc.argv, tc.typ)
			}
			if (l.How == "") != (slices.Equal(tc.argv, tc.p.Argv) && tc.typ == "" || tc.p.Shell && tc.typ == "") {
				t.Errorf("How = %q", l.How)
			}
		})
	}
}

// TestLaunchTypesNoControlCharacters: a command line to type into a shell
// that holds a control character is not typed at all, whatever the quoting:
// the shell's line editor takes ^U, CR, ESC... as keys, and a saved
// "--model x\x15touch FILE\r" ran touch.
func TestLaunchTypesNoControlCharacters(t *testing.T) {
	const self = "/opt/melmux/bin/melmux"
	mel := &Agent{ID: "0c0ffee0-2222-3333-4444-555555555555", Role: "worker"}
	for _, tc := range []struct {
		name, note string
		p          Pane
	}{
		{"claude's model", "nothing was typed: the saved command line of claude holds a control character '\\x15' at byte 17, which the shell would take as a key; start it again by hand",
			Pane{Argv: []string{"/bin/bash"}, Foreground: []string{"claude", "--model", "x\x15touch FILE\r"}}},
		{"a newline", "holds a control character '\\n' at byte 26,",
			Pane{Argv: []string{"/bin/bash"}, Foreground: []string{"codex", "-m", "o3\nrm -rf x"}}},
		{"ESC", "holds a control character '\\x1b' at byte 16,",
			Pane{Argv: []string{"/bin/bash"}, Foreground: []string{"claude", "--model", "\x1b[201~"}}},
		{"a C1 control", "holds a control character '\\u009b' at byte 16,",
			Pane{Argv: []string{"/bin/bash"}, Foreground: []string{"claude", "--model", "\u009b2J"}}},
		{"a byte that is not UTF-8", "holds a byte that is not UTF-8 at byte 16,",
			Pane{Argv: []string{"/bin/bash"}, Foreground: []string{"claude", "--model", "\x9b2J"}}},
		{"a melmux agent's flag", "the saved command line of melmux agent holds a control character '\\r' at byte ",
			Pane{Agent: mel, Argv: []string{"/bin/sh"}, Shell: true, Foreground: []string{"melmux", "agent", "--model", "m\rtouch x"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := tc.p.Launch(self, "/bin/zsh")
			if l.Type != "" || !strings.Contains(l.Note, tc.note) || !strings.HasPrefix(l.How, "the shell, ") || !strings.HasSuffix(l.How, " not resumed") {
				t.Errorf("Launch = %+v, want nothing typed, a note with %q", l, tc.note)
			}
			if want := tc.p.Argv; tc.p.Shell {
				want = []string{"/bin/zsh"}
				if !slices.Equal(l.Argv, want) {
					t.Errorf("Argv = %q, want %q", l.Argv, want)
				}
			} else if !slices.Equal(l.Argv, want) {
				t.Errorf("Argv = %q, want %q", l.Argv, want)
			}
		})
	}
	// Text that only looks odd is typed.
	p := Pane{Argv: []string{"/bin/bash"}, Foreground: []string{"claude", "--model", "été ✓ \u202e"}}
	if l := p.Launch(self, "/bin/zsh"); l.Type != "claude --model 'été ✓ \u202e' --continue" || l.Note != "" {
		t.Errorf("Launch = %+v", l)
	}
}

func TestShellJoin(t *testing.T) {
	got := shellJoin([]string{"/usr/bin/melmux", "agent", "--model", "it's a model", "", "a=b"})
	want := `/usr/bin/melmux agent --model 'it'\''s a model' '' a=b`
	if got != want {
		t.Errorf("shellJoin = %s, want %s", got, want)
	}
}

// Each flag of the table is kept or dropped with exactly the words it
// takes: a value is never taken for the prompt, the prompt never for a
// value, and the conversation is picked as precisely as the CLI allows.
func TestResumeArgs(t *testing.T) {
	for _, tc := range []struct {
		name, kind string
		args, want []string
	}{
		{"claude: a prompt alone", "claude", []string{"fix the tests"}, []string{"--continue"}},
		{"claude: flags with values around the prompt", "claude",
			[]string{"--model", "opus", "fix the tests", "--permission-mode", "acceptEdits", "--dangerously-skip-permissions"},
			[]string{"--model", "opus", "--permission-mode", "acceptEdits", "--dangerously-skip-permissions", "--continue"}},
		{"claude: values in the same word", "claude", []string{"--model=opus", "-nwork", "fix"}, []string{"--model=opus", "-nwork", "--continue"}},
		{"claude: a required value that looks like a flag", "claude", []string{"--append-system-prompt", "-be brief-", "go"},
			[]string{"--append-system-prompt", "-be brief-", "--continue"}},
		{"claude: variadic values run to the next flag", "claude", []string{"--add-dir", "/a", "/b", "--allowed-tools", "Bash(git *)", "Edit", "--verbose"},
			[]string{"--add-dir", "/a", "/b", "--allowed-tools", "Bash(git *)", "Edit", "--verbose", "--continue"}},
		{"claude: an optional value is taken when it is no flag", "claude", []string{"--debug", "hooks", "-p", "go"}, []string{"--debug", "hooks", "--continue"}},
		{"claude: an optional value left out", "claude", []string{"--debug", "--model", "x"}, []string{"--debug", "--model", "x", "--continue"}},
		{"claude: print mode and its options go", "claude", []string{"-p", "--output-format", "json", "--max-budget-usd", "2", "sum it up"}, []string{"--continue"}},
		{"claude: continue is not given twice", "claude", []string{"-c", "--model", "x"}, []string{"--model", "x", "--continue"}},
		{"claude: a resumed session by its id", "claude", []string{"--resume", "abc-123", "--effort", "high"}, []string{"--effort", "high", "--resume", "abc-123"}},
		{"claude: -r with the picker", "claude", []string{"-r", "--model", "x"}, []string{"--model", "x", "--continue"}},
		{"claude: a forked session's id is not known", "claude", []string{"-r", "abc", "--fork-session"}, []string{"--continue"}},
		{"claude: a session id named at the start", "claude", []string{"--session-id", "0c0ffee0-2222-3333-4444-555555555555", "go"},
			[]string{"--resume", "0c0ffee0-2222-3333-4444-555555555555"}},
		{"claude: worktree, files and background go", "claude", []string{"-w", "feature", "--tmux", "--file", "f1:a.txt", "f2:b.txt", "--bg", "--model", "x"},
			[]string{"--model", "x", "--continue"}},
		{"claude: an unknown flag stays, alone", "claude", []string{"--future-flag", "maybe-a-prompt"}, []string{"--future-flag", "--continue"}},
		{"claude: after --, words are prompts", "claude", []string{"--model", "x", "--", "--not-a-flag"}, []string{"--model", "x", "--continue"}},
		{"codex: a prompt alone", "codex", []string{"fix it"}, []string{"resume", "--last"}},
		{"codex: settings kept, after resume", "codex",
			[]string{"-c", "model_reasoning_effort=high", "--model", "o3", "-s", "danger-full-access", "--add-dir", "/data", "-a", "on-request", "--search", "fix it"},
			[]string{"resume", "--last", "-c", "model_reasoning_effort=high", "--model", "o3", "-s", "danger-full-access", "--add-dir", "/data", "-a", "on-request", "--search"}},
		{"codex: -c is its config, not continue", "codex", []string{"-cmodel=o3"}, []string{"resume", "--last", "-cmodel=o3"}},
		{"codex: the full bypass", "codex", []string{"--dangerously-bypass-approvals-and-sandbox", "go"},
			[]string{"resume", "--last", "--dangerously-bypass-approvals-and-sandbox"}},
		{"codex: images go with the first prompt", "codex", []string{"-i", "a.png", "b.png", "--model", "o3"}, []string{"resume", "--last", "--model", "o3"}},
		{"codex: a session resumed by its id", "codex", []string{"-m", "o3", "resume", "7f9f", "and go on", "--sandbox", "read-only"},
			[]string{"resume", "7f9f", "-m", "o3", "--sandbox", "read-only"}},
		{"codex: resume --last takes a prompt, not an id", "codex", []string{"resume", "--last", "go on"}, []string{"resume", "--last"}},
		{"codex: exec's own arguments go with it", "codex", []string{"-m", "o3", "exec", "--json", "-o", "out.txt", "fix it"}, []string{"resume", "--last", "-m", "o3"}},
		{"codex: a prompt that is no subcommand", "codex", []string{"review my code", "--model", "o3"}, []string{"resume", "--last", "--model", "o3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _, ok := resumeArgs(tc.kind, tc.args)
			if !ok || !slices.Equal(got, tc.want) {
				t.Errorf("resumeArgs(%s, %q) = %q, want %q", tc.kind, tc.args, got, tc.want)
			}
		})
	}
	if _, _, ok := resumeArgs("aider", []string{"--model", "x"}); ok {
		t.Error("aider has no resume rule, yet one was found")
	}
}

// Every spelling in the tables is a flag, and names one rule only.
func TestAgentCLITables(t *testing.T) {
	for name, cli := range map[string]*agentCLI{"claude": claudeCLI(), "codex": codexCLI()} {
		seen := map[string]bool{}
		for _, r := range cli.rules {
			for _, n := range r.names {
				if !isFlag(n) || seen[n] {
					t.Errorf("%s: the spelling %q is no flag or is listed twice", name, n)
				}
				seen[n] = true
			}
		}
	}
}

func TestShellWords(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string
		ok   bool
	}{
		{`claude --model opus 'fix it'`, []string{"claude", "--model", "opus", "fix it"}, true},
		{`claude "it's \"done\"" a\ b`, []string{"claude", `it's "done"`, "a b"}, true},
		{`claude ''`, []string{"claude", ""}, true},
		{`claude "$TASK"`, nil, false},
		{`claude x; rm -rf y`, nil, false},
		{`claude 'unterminated`, nil, false},
		{`claude *.go`, nil, false},
		{`claude > log`, nil, false},
	} {
		got, ok := shellWords(tc.line)
		if ok != tc.ok || !slices.Equal(got, tc.want) {
			t.Errorf("shellWords(%s) = %q, %v; want %q, %v", tc.line, got, ok, tc.want, tc.ok)
		}
	}
}
