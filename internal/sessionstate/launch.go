package sessionstate

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/melmux/melmux/pane/agentstate"
)

// Launch is how a saved pane starts again.
type Launch struct {
	Argv []string // the program to run in the pane
	// Type is a command line to type into the program once it has drawn its
	// prompt: the agent a shell was running in its foreground, resumed.
	Type string
	// How says in a few words what was done, for the reminder above the
	// new prompt ("claude, resumed with --continue").
	How string
	// Note says what could not be done as saved, and why: a command line
	// that could not be typed. For the pane's note and the log.
	Note string
}

// Launch decides how p starts again: melmux agents resume their transcript
// (`melmux agent --resume ID --role ROLE`, with the endpoint flags they were
// started with), Claude Code goes on with its conversation (`claude
// --continue`, or `--resume ID` when a session id named it), Codex resumes
// its session (`codex resume --last`, or the id it resumed), a shell that
// was running one of these in its foreground starts as a shell and has that
// typed into it (unless the line holds a control character: see typing),
// and every other program runs again as it was started. The
// default shell starts as shell (the current default). self is the melmux
// binary.
//
// A coding agent keeps its settings (model, permissions, sandbox,
// directories, configuration) but not its prompt, which would run the task
// again, nor what went with the prompt: resumeArgs has the rules.
func (p Pane) Launch(self, shell string) Launch {
	argv := p.Argv
	if p.Shell && shell != "" {
		argv = []string{shell}
	}
	if len(argv) > 1 && argv[1] == "__remote" && (argv[0] == self || filepath.Base(argv[0]) == "melmux") {
		// A pane on another host (docs/remote.md): its program goes on
		// there, in the session its command line names: link to it again.
		return Launch{Argv: argv, How: "linked again to its host"}
	}
	if p.Agent != nil && p.Agent.ID != "" {
		if isMelAgent(argv, self) {
			return Launch{Argv: resumeArgv(self, argv[2:], p.Agent), How: "melmux agent, resumed from its transcript"}
		}
		if isMelAgent(p.Foreground, self) {
			return typing(Launch{Argv: argv, Type: shellJoin(resumeArgv(self, p.Foreground[2:], p.Agent)),
				How: "melmux agent " + p.Agent.ID + ", resumed in the shell"}, "melmux agent")
		}
		if agentIndex(argv) < 0 && !isInteractiveShell(argv) {
			// An agent started some other way (sh -c '...'): resume it
			// with what the registration said.
			return Launch{Argv: resumeArgv(self, nil, p.Agent), How: "melmux agent, resumed from its transcript"}
		}
	}
	if l, ok := continueArgv(argv); ok {
		return l
	}
	if isInteractiveShell(argv) {
		if c, ok := findAgent(p.Foreground); ok {
			// Typed as a person would: the agent's own name, on the PATH
			// of the shell, rather than the interpreter that runs it.
			args, resume, _ := resumeArgs(c.kind, c.args)
			return typing(Launch{Argv: argv, Type: shellJoin(append([]string{c.kind}, args...)), How: resumedHow(c.kind, resume) + " in the shell"}, c.kind)
		}
	}
	return Launch{Argv: argv}
}

// typing is l, unless its command line holds a character a shell reading
// the terminal would take as a key rather than text, quoted or not: ^U
// erases what was typed before it and CR runs what comes after, so a saved
// argument "x\x15touch FILE\r" ran touch. Such a line is not typed at all
// (the shell alone starts) and Note says why; what argv holds comes from
// the processes of the pane (and a state file anyone could have written).
func typing(l Launch, what string) Launch {
	at, r, ok := firstControl(l.Type)
	if !ok {
		return l
	}
	char := fmt.Sprintf("control character %s", strconv.QuoteRune(r))
	if r == utf8.RuneError {
		char = "byte that is not UTF-8"
	}
	return Launch{Argv: l.Argv, How: "the shell, " + what + " not resumed",
		Note: fmt.Sprintf("nothing was typed: the saved command line of %s holds a %s at byte %d, which the shell would take as a key; "+
			"start it again by hand", what, char, at)}
}

// firstControl finds the first C0 or C1 control character (or DEL, or a
// byte that is not UTF-8) in s.
func firstControl(s string) (int, rune, bool) {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r < 0x20 || r >= 0x7f && r < 0xa0 || r == utf8.RuneError && n == 1 {
			return i, r, true
		}
		i += n
	}
	return 0, 0, false
}

// agentCommand is a coding agent restore can resume, found in an argv.
type agentCommand struct {
	at   int    // where its program is in the argv
	kind string // claude, codex
	// line is set when argv[at] is a shell's command line (sh -c 'claude
	// --model x'); program is its first word then.
	line    bool
	program string
	// args are its arguments: the argv's after the program, or the words of
	// the command line (none when it is more than words: see shellWords).
	args []string
}

// findAgent finds in argv a coding agent that restore knows how to resume.
func findAgent(argv []string) (agentCommand, bool) {
	i := agentIndex(argv)
	if i < 0 {
		return agentCommand{}, false
	}
	f := strings.Fields(argv[i])
	c := agentCommand{at: i, kind: agentstate.Kind(f[0]), program: f[0]}
	if _, _, ok := resumeArgs(c.kind, nil); !ok {
		return agentCommand{}, false
	}
	c.line = len(f) > 1 || i > 0 && isShellProgram(argv[:1]) && strings.HasPrefix(argv[i-1], "-")
	if !c.line {
		c.args = argv[i+1:]
	} else if words, ok := shellWords(argv[i]); ok && len(words) > 0 && words[0] == c.program {
		c.args = words[1:]
	}
	return c, true
}

// continueArgv is argv with the coding agent in it resumed (keeping an
// interpreter before it: node /usr/bin/claude; or the shell whose command
// line runs it: sh -c 'claude --model x').
func continueArgv(argv []string) (Launch, bool) {
	c, ok := findAgent(argv)
	if !ok {
		return Launch{}, false
	}
	args, resume, _ := resumeArgs(c.kind, c.args)
	how := resumedHow(c.kind, resume)
	if c.line {
		line := shellJoin(append([]string{c.program}, args...))
		return Launch{Argv: append(append([]string(nil), argv[:c.at]...), line), How: how}, true
	}
	return Launch{Argv: append(append([]string(nil), argv[:c.at+1]...), args...), How: how}, true
}

// resumedHow says how an agent was resumed, for the reminder.
func resumedHow(kind string, resume []string) string {
	return kind + ", resumed with " + strings.Join(resume, " ")
}

// agentIndex is where a coding agent's program is in argv (the program
// itself, the script an interpreter runs, or the command of sh -c), -1 when
// there is none.
func agentIndex(argv []string) int {
	for i := 0; i < len(argv) && i < 3; i++ {
		if f := strings.Fields(argv[i]); len(f) > 0 && agentstate.Kind(f[0]) != "" {
			return i
		}
	}
	return -1
}

// isMelAgent says argv is `melmux agent ...`: the melmux binary (self, or a
// program named melmux) running its agent verb, or melmux-agent, which
// `melmux agent` replaces itself with (so a foreground process shows it).
func isMelAgent(argv []string, self string) bool {
	if len(argv) < 2 || argv[1] != "agent" {
		return false
	}
	name := filepath.Base(argv[0])
	return argv[0] == self || name == "melmux" || name == "melmux-agent" || (self != "" && name == filepath.Base(self))
}

// resumeArgv is `self agent` with the flags of the first start that still
// apply (provider, model, endpoint, key variable, leg budget) and those that
// resume the conversation: the task, the id and --once are dropped, since
// the transcript has the task and a resumed agent waits for its next message.
func resumeArgv(self string, flags []string, a *Agent) []string {
	out := []string{self, "agent"}
	drop := map[string]bool{"task": true, "id": true, "resume": true, "role": true}
	for i := 0; i < len(flags); i++ {
		name, _, hasValue := strings.Cut(strings.TrimLeft(flags[i], "-"), "=")
		switch {
		case !strings.HasPrefix(flags[i], "-"):
			continue
		case name == "once":
			continue
		case drop[name]:
			if !hasValue {
				i++ // its value
			}
			continue
		}
		out = append(out, flags[i])
		if !hasValue && i+1 < len(flags) && !strings.HasPrefix(flags[i+1], "-") {
			out = append(out, flags[i+1])
			i++
		}
	}
	out = append(out, "--resume", a.ID)
	if a.Role != "" {
		out = append(out, "--role", a.Role)
	}
	return out
}

// isShellProgram says argv runs a shell.
func isShellProgram(argv []string) bool {
	if len(argv) == 0 {
		return false
	}
	switch strings.TrimPrefix(filepath.Base(argv[0]), "-") {
	case "sh", "bash", "zsh", "fish", "dash", "ksh", "mksh", "tcsh", "csh", "ash", "nu", "elvish", "xonsh":
		return true
	}
	return false
}

// isInteractiveShell says argv is a shell reading its commands from the
// terminal, not running a command line (sh -c) or a script.
func isInteractiveShell(argv []string) bool {
	if !isShellProgram(argv) {
		return false
	}
	for _, a := range argv[1:] {
		if a == "-c" || !strings.HasPrefix(a, "-") {
			return false
		}
	}
	return true
}

// shellJoin quotes argv for a POSIX shell's command line.
func shellJoin(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r == '/' || r == '-' || r == '_' || r == '.' || r == '=' || r == ':' || r == '+' || r == ',' ||
				r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
		}) < 0 {
			q[i] = a
			continue
		}
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}
