package agentstate

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// KindMelmux is the kind of a melmux agent registered for its pane.
const KindMelmux = "melmux"

// Proc is a process of a pane's foreground process group, as /proc shows
// it.
type Proc struct {
	PID  int
	Argv []string
	Exe  string // the executable's path, "" when unknown
}

// maxArgs bounds the arguments looked at for a script: the script comes
// first, after the launcher's own options.
const maxArgs = 8

// KindOfProcs finds the agent among processes listed outermost first (the
// group's leader, then its children): the first process that is one. It
// returns the kind and why, or "" for none.
func (r *Rules) KindOfProcs(procs []Proc) (string, string) {
	for _, p := range procs {
		if k, why := r.kindOfProc(p); k != "" {
			return k, fmt.Sprintf("process %d %q (%s)", p.PID, clip(strings.Join(p.Argv, " "), 80), why)
		}
	}
	return "", ""
}

// kindOfProc says whether one process is an agent: its program, its
// executable, or what a launcher (node, npx, python...) runs.
func (r *Rules) kindOfProc(p Proc) (string, string) {
	var words []string
	for i, a := range p.Argv {
		if i >= maxArgs {
			break
		}
		// A program that set its own title (npm exec, node) shows its
		// whole command line as one argument.
		words = append(words, strings.Fields(a)...)
	}
	if len(words) == 0 {
		return "", ""
	}
	prog := base(words[0])
	for _, k := range r.kinds {
		if slices.Contains(k.programs, prog) {
			return k.name, "program " + prog
		}
	}
	if p.Exe != "" {
		exe := base(p.Exe)
		for _, k := range r.kinds {
			if slices.Contains(k.programs, exe) {
				return k.name, "executable " + p.Exe
			}
		}
	}
	if !slices.Contains(r.launchers, strings.TrimRight(prog, "0123456789.")) {
		return "", ""
	}
	// What the launcher runs is its first word that is not an option, a
	// variable or a subcommand (npm exec, uv run): `sh -c "grep codex x"`
	// runs grep, not codex.
	for _, w := range words[1:] {
		if strings.HasPrefix(w, "-") || strings.Contains(w, "=") || launcherVerbs[w] {
			continue
		}
		for _, k := range r.kinds {
			if slices.Contains(k.programs, base(w)) {
				return k.name, prog + " runs " + w
			}
			for _, s := range k.scripts {
				if strings.Contains(w, s) {
					return k.name, prog + " runs " + w
				}
			}
		}
		break
	}
	return "", ""
}

// launcherVerbs are the subcommands of launchers that run a package.
var launcherVerbs = map[string]bool{"exec": true, "run": true, "x": true, "dlx": true, "tool": true}

func base(path string) string { return strings.ToLower(filepath.Base(path)) }

// KindOfApp is the kind whose program status reports carry app=name.
func (r *Rules) KindOfApp(app string) string {
	for _, k := range r.kinds {
		if slices.Contains(k.apps, app) {
			return k.name
		}
	}
	return ""
}

// KindOfScreen finds a kind's banner on the screen.
func (r *Rules) KindOfScreen(lines []string) (string, string) {
	for _, k := range r.kinds {
		if k.banner == nil {
			continue
		}
		for i, l := range lines {
			if k.banner.MatchString(l) {
				return k.name, fmt.Sprintf("banner %q on row %d", clip(strings.TrimSpace(l), 60), i+1)
			}
		}
	}
	return "", ""
}

// Kind returns the agent kind of a program (a path or a name, as in argv[0]
// or /proc/PID/comm) under the built-in rules, or "" when it is not a known
// coding agent.
func Kind(program string) string {
	k, _ := defaultRules().kindOfProc(Proc{Argv: []string{strings.TrimSpace(program)}})
	return k
}
