package agentstate

import "testing"

// An agent is found among the processes of the foreground group however it
// was started: by name, through a link with another name, a launcher
// (npx, node, python, env) or a wrapper script whose child it is.
func TestKindOfProcs(t *testing.T) {
	r := Default()
	for _, tc := range []struct {
		name  string
		procs []Proc
		kind  string
		why   string
	}{
		{"native", []Proc{{PID: 7, Argv: []string{"claude", "--permission-mode", "default"}}}, "claude",
			`process 7 "claude --permission-mode default" (program claude)`},
		{"a link named otherwise", []Proc{{PID: 7, Argv: []string{"cc"}, Exe: "/opt/x/claude-code-linux-x64/claude"}}, "claude",
			`process 7 "cc" (executable /opt/x/claude-code-linux-x64/claude)`},
		{"npx, its title set", []Proc{{PID: 8, Argv: []string{"npm exec @anthropic-ai/claude-code"}}}, "claude",
			`process 8 "npm exec @anthropic-ai/claude-code" (npm runs @anthropic-ai/claude-code)`},
		{"npx -y", []Proc{{PID: 8, Argv: []string{"npx", "-y", "@openai/codex@0.169.0"}}}, "codex",
			`process 8 "npx -y @openai/codex@0.169.0" (npx runs @openai/codex@0.169.0)`},
		{"node and a script", []Proc{{PID: 9, Argv: []string{"node", "/usr/lib/node_modules/@openai/codex/bin/codex.js"}}}, "codex",
			`process 9 "node /usr/lib/node_modules/@openai/codex/bin/codex.js" (node runs /usr/lib/node_modules/@openai/codex/bin/codex.js)`},
		{"python -m", []Proc{{PID: 3, Argv: []string{"/usr/bin/python3.12", "-m", "aider"}}}, "aider",
			`process 3 "/usr/bin/python3.12 -m aider" (python3.12 runs aider)`},
		{"env", []Proc{{PID: 3, Argv: []string{"env", "FOO=1", "gemini"}}}, "gemini", `process 3 "env FOO=1 gemini" (env runs gemini)`},
		{"a wrapper script's child", []Proc{{PID: 4, Argv: []string{"/bin/sh", "/home/me/bin/ai"}}, {PID: 5, Argv: []string{"/opt/claude/claude"}}}, "claude",
			`process 5 "/opt/claude/claude" (program claude)`},
		{"the outermost agent wins", []Proc{{PID: 4, Argv: []string{"codex"}}, {PID: 5, Argv: []string{"claude", "-p", "x"}}}, "codex",
			`process 4 "codex" (program codex)`},
		{"a shell that greps", []Proc{{PID: 4, Argv: []string{"sh", "-c", "grep codex notes.txt"}}}, "", ""},
		{"an editor", []Proc{{PID: 4, Argv: []string{"vim", "claude.md"}}}, "", ""},
		{"node serving something", []Proc{{PID: 4, Argv: []string{"node", "server.js", "--name", "codex"}}}, "", ""},
	} {
		k, why := r.KindOfProcs(tc.procs)
		if k != tc.kind || why != tc.why {
			t.Errorf("%s: %q %q, want %q %q", tc.name, k, why, tc.kind, tc.why)
		}
	}
}

func TestKindOfAppAndScreen(t *testing.T) {
	r := Default()
	if r.KindOfApp("claude-code") != "claude" || r.KindOfApp("codex") != "codex" || r.KindOfApp("vim") != "" {
		t.Errorf("apps: %q %q %q", r.KindOfApp("claude-code"), r.KindOfApp("codex"), r.KindOfApp("vim"))
	}
	k, why := r.KindOfScreen(readScreen(t, "codex_idle.txt").Lines)
	if k != "codex" || why != `banner ">_ OpenAI Codex (v0.169.0)" on row 2` {
		t.Errorf("codex's banner: %q %q", k, why)
	}
	if k, _ := r.KindOfScreen([]string{"$ ls", "notes.txt"}); k != "" {
		t.Errorf("a shell's screen: %q", k)
	}
}
