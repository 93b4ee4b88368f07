package sessionstate

import (
	"slices"
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
		{"claude under node", Pane{Argv: []string{"node", "/usr/lib/node_modules/.bin/claude", "--model", "opus"}},
			[]string{"node", "/usr/lib/node_modules/.bin/claude", "--continue"}, ""},
		{"claude under sh -c", Pane{Argv: []string{"/bin/sh", "-c", "claude --model opus 'fix it'"}},
			[]string{"/bin/sh", "-c", "claude --continue"}, ""},
		{"codex resumes", Pane{Argv: []string{"/usr/local/bin/codex"}}, []string{"/usr/local/bin/codex", "resume", "--last"}, ""},
		{"aider runs again", Pane{Argv: []string{"aider", "--model", "x"}}, []string{"aider", "--model", "x"}, ""},
		{"claude typed into its shell", Pane{Argv: []string{"/bin/bash"}, Shell: true, Foreground: []string{"node", "/x/claude", "-p"}},
			[]string{"/bin/zsh"}, "claude --continue"},
		{"codex typed into its shell", Pane{Argv: []string{"-bash"}, Foreground: []string{"codex"}}, []string{"-bash"}, "codex resume --last"},
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

func TestShellJoin(t *testing.T) {
	got := shellJoin([]string{"/usr/bin/melmux", "agent", "--model", "it's a model", "", "a=b"})
	want := `/usr/bin/melmux agent --model 'it'\''s a model' '' a=b`
	if got != want {
		t.Errorf("shellJoin = %s, want %s", got, want)
	}
}
