package serveverb

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/melmux/melmux/internal/agenthooks"
	"github.com/melmux/melmux/internal/cli"
)

// hooks shows, puts in and takes out melmux's hooks in the agent CLIs'
// own settings files (internal/agenthooks). It needs no session.
func init() {
	cli.Register(cli.HooksVerb(hooksVerb, false))
}

func hooksVerb(g *cli.Globals, args []string) error {
	if len(args) > 0 && (args[0] == "install" || args[0] == "remove") {
		return editHooks(g, args[0], args[1:])
	}
	fs := cli.NewFlags(g, "hooks")
	asJSON := fs.Bool("json", false, "print each agent's settings file and the hook events melmux's hooks are in, and missing from, as JSON")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.Usagef("hooks: unknown %q: hooks takes install or remove, then the agents (claude, codex, gemini, all)", fs.Arg(0))
	}
	return showHooks(g, *asJSON)
}

// hookStatus is one agent's row of `melmux hooks`.
type hookStatus struct {
	agenthooks.Status
	Error string `json:"error,omitempty"`
}

func showHooks(g *cli.Globals, asJSON bool) error {
	var rows []hookStatus
	for _, agent := range agenthooks.Agents {
		row := hookStatus{Status: agenthooks.Status{Agent: agent}}
		path, data, err := readSettings(agent)
		row.Path = path
		if err == nil {
			var st agenthooks.Status
			st, err = agenthooks.Check(agent, data)
			st.Path = path
			row.Status = st
		}
		if err != nil {
			row.Error = err.Error()
		}
		rows = append(rows, row)
	}
	if asJSON {
		enc := json.NewEncoder(g.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	tw := tabwriter.NewWriter(g.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "AGENT\tSETTINGS\tMELMUX HOOKS")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.Agent, r.Path, hooksWords(r))
	}
	return tw.Flush()
}

// hooksWords says what an agent's row means for the person.
func hooksWords(r hookStatus) string {
	started := "; melmux adds its own when it starts " + r.Agent
	if r.Agent == "gemini" {
		started = ""
	}
	switch {
	case r.Error != "":
		return "unreadable: " + firstLine(r.Error)
	case r.Complete() && len(r.Chained) > 0:
		return "installed (passing on to " + strings.Join(r.Chained, " ") + ")"
	case r.Complete():
		return "installed"
	case len(r.Installed) > 0:
		return "partly: none on " + strings.Join(r.Missing, ", ") + " (melmux hooks install " + r.Agent + ")"
	case !r.Exists:
		return "none, no file (melmux hooks install " + r.Agent + ")" + started
	}
	return "none (melmux hooks install " + r.Agent + ")" + started
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func readSettings(agent string) (path string, data []byte, err error) {
	if path, err = agenthooks.Path(agent, os.Getenv); err != nil {
		return "", nil, err
	}
	data, err = agenthooks.ReadFile(path)
	return path, data, err
}

func editHooks(g *cli.Globals, verb string, args []string) error {
	fs := cli.NewFlags(g, "hooks "+verb)
	dry := fs.Bool("dry-run", false, "print each file as it would be written, and write nothing")
	var self *string
	if verb == "install" {
		self = fs.String("melmux", "", "the melmux the hooks run (default: melmux where the one on $PATH is this one, else this one's full path)")
	}
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	agents, err := hookAgents(verb, fs.Args())
	if err != nil {
		return err
	}
	exe := ""
	if self != nil {
		if exe = *self; exe == "" {
			exe = hookProgram()
		}
	}
	var failed []string
	for _, agent := range agents {
		msg, err := editSettings(g.Stdout, verb, agent, exe, *dry)
		if err != nil {
			fmt.Fprintf(g.Stderr, "melmux: %s: %v\n", agent, err)
			failed = append(failed, agent)
			continue
		}
		fmt.Fprintf(g.Stderr, "melmux: %s: %s\n", agent, msg)
	}
	if len(failed) > 0 {
		return &cli.ExitError{Code: 1, Msg: fmt.Sprintf("hooks %s: %s left as it was (above)", verb, strings.Join(failed, ", "))}
	}
	return nil
}

func hookAgents(verb string, args []string) ([]string, error) {
	if len(args) == 0 {
		return nil, cli.Usagef("hooks %s needs the agents: claude, codex, gemini or all", verb)
	}
	var out []string
	for _, a := range args {
		switch {
		case a == "all":
			out = append(out, agenthooks.Agents...)
		case slices.Contains(agenthooks.Agents, a):
			out = append(out, a)
		default:
			return nil, cli.Usagef("hooks %s: unknown agent %q: melmux edits the settings of claude, codex and gemini (or all)", verb, a)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// editSettings installs or removes melmux's hooks in one agent's file and
// says what it did.
func editSettings(w io.Writer, verb, agent, self string, dry bool) (string, error) {
	path, data, err := readSettings(agent)
	if err != nil {
		return "", err
	}
	var out []byte
	var changed bool
	if verb == "install" {
		out, changed, err = agenthooks.Install(agent, data, self)
	} else {
		out, changed, err = agenthooks.Remove(agent, data)
	}
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	if !changed {
		if verb == "install" {
			return "melmux's hooks were already in " + path, nil
		}
		return "no hook of melmux's in " + path, nil
	}
	if dry {
		fmt.Fprintf(w, "# %s (not written: --dry-run)\n%s", path, out)
		if len(out) > 0 && out[len(out)-1] != '\n' {
			fmt.Fprintln(w)
		}
		return "would write " + path, nil
	}
	if err := agenthooks.WriteFile(path, out); err != nil {
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	if verb == "remove" {
		return "took melmux's hooks out of " + path, nil
	}
	what := "notify, running " + self
	if ev := agenthooks.Events(agent); ev != nil {
		what = strings.Join(ev, ", ") + ", running " + agenthooks.Command(self, agent)
	}
	msg := "put melmux's hooks in " + path + " (" + what + ")"
	if agent == "gemini" {
		msg += "; Gemini CLI runs hooks only in a folder it trusts"
	}
	return msg, nil
}

// hookProgram is the melmux a hook runs: "melmux" when the one on $PATH is
// the one beside this program (a hook keeps working across upgrades in
// place), else that one's full path. This program is melmux-server, which
// melmux hands the verb over to.
func hookProgram() string {
	exe, err := cli.FindBinary(cli.Binary, "the verb notify that the hooks run")
	if err != nil {
		return cli.Binary
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	if onPath, err := exec.LookPath(cli.Binary); err == nil {
		if real, err := filepath.EvalSymlinks(onPath); err == nil && sameFile(real, exe) {
			return cli.Binary
		}
	}
	return exe
}

func sameFile(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errors.Join(errA, errB) == nil && os.SameFile(fa, fb)
}
