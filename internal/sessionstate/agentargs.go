package sessionstate

import (
	"strings"
	"sync"
)

// A coding agent's pane starts again with the conversation resumed and the
// settings it was started with: the model, the permission mode, the
// sandbox, the extra directories, the configuration. What belonged to the
// first turn goes: a positional prompt would run the task again, and an
// image or a file to download would go with it. So restore needs to know,
// for each flag of each CLI, whether it takes a value (else the value of a
// flag looks like the prompt, or the prompt like a value) and whether it
// is kept. This file is that table, for Claude Code (2.1) and Codex (0.169),
// from their --help.

// arity is how many words a flag takes after it.
type arity int

const (
	bare     arity = iota // --verbose
	single                // --model opus (or --model=opus, -mopus)
	optional              // claude --debug [filter]: the next word unless it is a flag
	many                  // claude --add-dir a b, codex -i a.png b.png: every word up to the next flag
)

// flagRule is one flag of a CLI: every spelling of it (the last is the one
// its values are found under), what it takes, and whether a resumed
// session is started with it.
type flagRule struct {
	names []string
	takes arity
	keep  bool
}

// agentCLI is what restore knows of a coding agent's command line.
type agentCLI struct {
	rules       []flagRule
	subcommands []string            // codex resume, codex exec...
	flags       map[string]flagRule // by each spelling; built from rules
}

// claudeCLI is Claude Code's command line (commander.js: a value may start
// with "-" only after a flag that requires one; an optional or variadic
// value stops at the next flag). Dropped: what picks the conversation
// (--continue, --resume, --session-id, --fork-session: restore picks it),
// what makes it no longer a session in the pane (--print and the options
// that work only with it, --bg, --desktop, the cloud and teleport ones),
// a new worktree (the pane's directory is the one it made), files to
// download at startup, and --help and --version.
var claudeCLI = lazyAgentCLI([]flagRule{
	{[]string{"--allow-dangerously-skip-permissions"}, bare, true},
	{[]string{"--ax-screen-reader"}, bare, true},
	{[]string{"--bare"}, bare, true},
	{[]string{"--brief"}, bare, true},
	{[]string{"--chrome"}, bare, true},
	{[]string{"--dangerously-skip-permissions"}, bare, true},
	{[]string{"--disable-slash-commands"}, bare, true},
	{[]string{"--exclude-dynamic-system-prompt-sections"}, bare, true},
	{[]string{"--ide"}, bare, true},
	{[]string{"--no-chrome"}, bare, true},
	{[]string{"--restricted"}, bare, true},
	{[]string{"--safe-mode"}, bare, true},
	{[]string{"--strict-mcp-config"}, bare, true},
	{[]string{"--verbose"}, bare, true},
	{[]string{"--agent"}, single, true},
	{[]string{"--agents"}, single, true},
	{[]string{"--append-system-prompt"}, single, true},
	{[]string{"--autocompact"}, single, true},
	{[]string{"--debug-file"}, single, true},
	{[]string{"--effort"}, single, true},
	{[]string{"--fallback-model"}, single, true},
	{[]string{"--model"}, single, true},
	{[]string{"-n", "--name"}, single, true},
	{[]string{"--permission-mode"}, single, true},
	{[]string{"--plugin-dir"}, single, true},
	{[]string{"--plugin-url"}, single, true},
	{[]string{"--remote-control-session-name-prefix"}, single, true},
	{[]string{"--setting-sources"}, single, true},
	{[]string{"--settings"}, single, true},
	{[]string{"--system-prompt"}, single, true},
	{[]string{"--system-prompt-snapshot"}, single, true},
	{[]string{"-d", "--debug"}, optional, true},
	{[]string{"--prompt-suggestions"}, optional, true},
	{[]string{"--remote-control"}, optional, true},
	{[]string{"--add-dir"}, many, true},
	{[]string{"--allowedTools", "--allowed-tools"}, many, true},
	{[]string{"--disallowedTools", "--disallowed-tools"}, many, true},
	{[]string{"--betas"}, many, true},
	{[]string{"--mcp-config"}, many, true},
	{[]string{"--tools"}, many, true},

	{[]string{"-c", "--continue"}, bare, false},
	{[]string{"--fork-session"}, bare, false},
	{[]string{"-p", "--print"}, bare, false},
	{[]string{"--bg", "--background"}, bare, false},
	{[]string{"--desktop"}, bare, false},
	{[]string{"--tmux"}, bare, false},
	{[]string{"--forward-subagent-text"}, bare, false},
	{[]string{"--include-hook-events"}, bare, false},
	{[]string{"--include-partial-messages"}, bare, false},
	{[]string{"--no-session-persistence"}, bare, false},
	{[]string{"--replay-user-messages"}, bare, false},
	{[]string{"-h", "--help"}, bare, false},
	{[]string{"-v", "--version"}, bare, false},
	{[]string{"--session-id"}, single, false},
	{[]string{"--environment"}, single, false},
	{[]string{"--input-format"}, single, false},
	{[]string{"--json-schema"}, single, false},
	{[]string{"--max-budget-usd"}, single, false},
	{[]string{"--output-format"}, single, false},
	{[]string{"--permission-prompts"}, single, false},
	{[]string{"-r", "--resume"}, optional, false},
	{[]string{"--cloud"}, optional, false},
	{[]string{"--from-pr"}, optional, false},
	{[]string{"--teleport"}, optional, false},
	{[]string{"-w", "--worktree"}, optional, false},
	{[]string{"--file"}, many, false},
}, nil)

// codexCLI is Codex's command line (clap), the same options before a
// subcommand and after `resume`. Dropped: what picks the session (--last,
// --all: restore picks it), the images of the first prompt, a new managed
// worktree, and --help and --version.
var codexCLI = lazyAgentCLI([]flagRule{
	{[]string{"--strict-config"}, bare, true},
	{[]string{"--oss"}, bare, true},
	{[]string{"--approve-for-me"}, bare, true},
	{[]string{"--dangerously-bypass-approvals-and-sandbox"}, bare, true},
	{[]string{"--dangerously-bypass-hook-trust"}, bare, true},
	{[]string{"--search"}, bare, true},
	{[]string{"--no-alt-screen"}, bare, true},
	{[]string{"--no-daemon"}, bare, true},
	{[]string{"--include-non-interactive"}, bare, true},
	{[]string{"-c", "--config"}, single, true},
	{[]string{"--enable"}, single, true},
	{[]string{"--disable"}, single, true},
	{[]string{"--remote"}, single, true},
	{[]string{"--remote-auth-token-env"}, single, true},
	{[]string{"-m", "--model"}, single, true},
	{[]string{"--local-provider"}, single, true},
	{[]string{"-p", "--profile"}, single, true},
	{[]string{"-s", "--sandbox"}, single, true},
	{[]string{"-C", "--cd"}, single, true},
	{[]string{"--add-dir"}, single, true},
	{[]string{"-a", "--ask-for-approval"}, single, true},

	{[]string{"--last"}, bare, false},
	{[]string{"--all"}, bare, false},
	{[]string{"--worktree"}, bare, false},
	{[]string{"-h", "--help"}, bare, false},
	{[]string{"-V", "--version"}, bare, false},
	{[]string{"-i", "--image"}, many, false},
}, []string{"agents", "exec", "e", "review", "login", "logout", "mcp", "plugin", "app-server", "remote-control",
	"completion", "update", "doctor", "sandbox", "debug", "apply", "a", "resume", "queue", "archive", "delete",
	"migrate-rollouts", "migrate-nfs-db", "unarchive", "fork", "cloud", "exec-server", "features", "help"})

// lazyAgentCLI builds the table's index when it is first needed: every
// melmux process links this package (ls, new and restore read states), and
// only a restore of an agent pane parses an agent's command line.
func lazyAgentCLI(rules []flagRule, subcommands []string) func() *agentCLI {
	return sync.OnceValue(func() *agentCLI { return newAgentCLI(rules, subcommands) })
}

func newAgentCLI(rules []flagRule, subcommands []string) *agentCLI {
	cli := &agentCLI{rules: rules, subcommands: subcommands, flags: map[string]flagRule{}}
	for _, r := range rules {
		for _, n := range r.names {
			cli.flags[n] = r
		}
	}
	return cli
}

// parsedArgs is a command line read by an agentCLI's table.
type parsedArgs struct {
	kept []string // the flags kept, each with its values, in their order
	// values holds each flag met, by its last spelling, with its values
	// (none for a bare flag, or an optional one given none).
	values     map[string][]string
	positional []int // where the words that are neither flags nor values are
}

// has says whether flag (its last spelling) was given.
func (p parsedArgs) has(flag string) bool {
	_, ok := p.values[flag]
	return ok
}

// value is the last value given to flag, "" for none.
func (p parsedArgs) value(flag string) string {
	v := p.values[flag]
	if len(v) == 0 {
		return ""
	}
	return v[len(v)-1]
}

// isFlag says whether a word is a flag rather than a value or a prompt.
func isFlag(w string) bool { return len(w) > 1 && w[0] == '-' }

// parse reads args by the table. A flag the table does not know (a newer
// release's) is kept, alone: whether it takes a value cannot be known, and
// a word after it is dropped as a prompt would be, since sending a prompt
// again is worse than a flag the CLI refuses. Everything after "--" is
// positional.
func (cli *agentCLI) parse(args []string) parsedArgs {
	p := parsedArgs{values: map[string][]string{}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			for j := i + 1; j < len(args); j++ {
				p.positional = append(p.positional, j)
			}
			break
		}
		if !isFlag(a) {
			p.positional = append(p.positional, i)
			continue
		}
		name, value, attached := strings.Cut(a, "=")
		if !strings.HasPrefix(a, "--") && len(a) > 2 {
			// -mo3, -m=o3: a short flag with its value in the same word.
			name, value, attached = a[:2], strings.TrimPrefix(a[2:], "="), true
		}
		r, known := cli.flags[name]
		if !known || attached && r.takes == bare {
			p.kept = append(p.kept, a)
			continue
		}
		words := []string{a}
		var values []string
		switch {
		case attached:
			values = []string{value}
		case r.takes == single && i+1 < len(args):
			i++
			words, values = append(words, args[i]), []string{args[i]}
		case r.takes == optional && i+1 < len(args) && !isFlag(args[i+1]):
			i++
			words, values = append(words, args[i]), []string{args[i]}
		case r.takes == many:
			for i+1 < len(args) && !isFlag(args[i+1]) {
				i++
				words, values = append(words, args[i]), append(values, args[i])
			}
		}
		canon := r.names[len(r.names)-1]
		p.values[canon] = append(p.values[canon], values...)
		if r.keep {
			p.kept = append(p.kept, words...)
		}
	}
	return p
}

// subcommand is the CLI's subcommand in args and where it is, -1 when the
// first positional word is none (it is the prompt then).
func (cli *agentCLI) subcommand(args []string, p parsedArgs) (string, int) {
	if len(p.positional) == 0 || len(cli.subcommands) == 0 {
		return "", -1
	}
	i := p.positional[0]
	for _, s := range cli.subcommands {
		if args[i] == s {
			return s, i
		}
	}
	return "", -1
}

// resumeArgs are the arguments (after the program) that start coding agent
// kind again on its conversation, from those it was started with (args),
// with the words that resume it (`--continue`, `resume --last`...), or
// ok false when restore knows no way to resume kind.
func resumeArgs(kind string, args []string) (out, resume []string, ok bool) {
	switch kind {
	case "claude":
		out, resume = resumeClaude(args)
	case "codex":
		out, resume = resumeCodex(args)
	default:
		return nil, nil, false
	}
	return out, resume, true
}

// resumeClaude keeps Claude Code's settings and goes on with the
// conversation: the one a session id named (--session-id, or --resume ID
// unless forked, whose new id is unknown), else the directory's last
// (--continue).
func resumeClaude(args []string) (out, resume []string) {
	p := claudeCLI().parse(args)
	resume = []string{"--continue"}
	switch {
	case p.value("--session-id") != "":
		resume = []string{"--resume", p.value("--session-id")}
	case p.value("--resume") != "" && !p.has("--fork-session"):
		resume = []string{"--resume", p.value("--resume")}
	}
	return append(p.kept, resume...), resume
}

// resumeCodex keeps Codex's options (before a subcommand and after
// `resume`) and resumes the session `codex resume ID` named, else the
// directory's last (`resume --last`). Another subcommand's own arguments
// go with it (exec's prompt among them).
func resumeCodex(args []string) (out, resume []string) {
	p := codexCLI().parse(args)
	resume = []string{"resume", "--last"}
	flags := p.kept
	if sub, i := codexCLI().subcommand(args, p); i >= 0 {
		flags = codexCLI().parse(args[:i]).kept
		if sub == "resume" {
			rest := args[i+1:]
			r := codexCLI().parse(rest)
			flags = append(flags, r.kept...)
			// With --last, a word after resume is the prompt.
			if !r.has("--last") && len(r.positional) > 0 {
				resume = []string{"resume", rest[r.positional[0]]}
			}
		}
	}
	return append(append([]string(nil), resume...), flags...), resume
}

// shellWords splits a shell command line made of plain words (quoted with
// '...', "..." or backslashes, which are undone), ok false when it holds
// anything more (expansions, operators, redirections, globs, comments), whose
// meaning only the shell knows.
func shellWords(line string) (words []string, ok bool) {
	var cur strings.Builder
	inWord := false
	end := func() {
		if inWord {
			words = append(words, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			end()
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, false
			}
			cur.WriteString(line[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			inWord = true
			for i++; ; i++ {
				if i >= len(line) || line[i] == '$' || line[i] == '`' {
					return nil, false
				}
				if line[i] == '"' {
					break
				}
				if line[i] == '\\' && i+1 < len(line) && strings.IndexByte("\"\\$`", line[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(line[i])
			}
		case c == '\\':
			if i+1 >= len(line) || line[i+1] == '\n' {
				return nil, false
			}
			i++
			cur.WriteByte(line[i])
			inWord = true
		case strings.IndexByte("|&;<>()$`*?[]{}#~!", c) >= 0:
			return nil, false
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	end()
	return words, true
}
