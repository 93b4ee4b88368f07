package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/melmux/melmux/internal/proto"
)

func init() {
	register(&verb{
		name:    "spawn-agent",
		usage:   "[--layout right|down|tab] [--model M] [--provider P] [--base-url U] [--key-env VAR] [--max-legs N] [-t PANE] [--cwd DIR] [--worktree [NAME]] [--json] --task TEXT",
		summary: "open a pane running a melmux worker agent on TEXT; prints the new pane id",
		run: func(g *globals, args []string) error {
			fs := newFlags(g, "spawn-agent")
			lay := fs.String("layout", "", "right, down or tab (anything else means tab)")
			task := fs.String("task", "", "the worker's task, self-contained (required)")
			model := fs.String("model", "", "the worker's model (default: its provider's)")
			provider := fs.String("provider", "", "relay, openai or anthropic (default: the worker's config and environment)")
			baseURL := fs.String("base-url", "", "the provider's endpoint")
			keyEnv := fs.String("key-env", "", "the variable holding the API key")
			maxLegs := fs.Int("max-legs", 0, "legs (paid calls) per turn; 0 = the worker's default")
			target := fs.String("t", "", "the pane to split (default: this pane inside melmux, else the focused one)")
			cwd := fs.String("cwd", "", "working directory (default: the current directory)")
			asJSON := fs.Bool("json", false, "print the result as JSON")
			var wt worktreeFlag
			fs.Var(&wt, "worktree", "start in a new git worktree on branch melmux/NAME (NAME: agent-ID unless given)")
			if err := parseWorktreeFlags(fs, &wt, args); err != nil {
				return err
			}
			if fs.NArg() > 0 {
				return usagef("spawn-agent takes no arguments besides flags, got %q (give the task with --task)", strings.Join(fs.Args(), " "))
			}
			if strings.TrimSpace(*task) == "" {
				return usagef("spawn-agent: --task TEXT is required (the worker's task)")
			}
			if *maxLegs < 0 {
				return usagef("spawn-agent: --max-legs %d: give a number of legs >= 1, or 0 for the default", *maxLegs)
			}
			t, dir, err := placement(g, "spawn-agent", *target, *cwd)
			if err != nil {
				return err
			}
			p := proto.SpawnAgentParams{Layout: *lay, Task: *task, Model: *model, Target: t, Cwd: dir,
				Provider: *provider, BaseURL: *baseURL, KeyEnv: *keyEnv, MaxLegs: *maxLegs,
				Env: providerEnv(os.Environ(), *keyEnv), Worktree: wt.on, WorktreeName: wt.name}
			var res proto.SpawnAgentResult
			if err := call(g, "spawn_agent", p, &res); err != nil {
				return err
			}
			return printPlaced(g, *asJSON, res, res.ID, res.Note)
		},
	})
}

// printPlaced prints a new pane: its id (and the placement note on stderr),
// or the whole result as JSON.
func printPlaced(g *globals, asJSON bool, res any, id int, note string) error {
	if asJSON {
		return printJSON(g.stdout, res)
	}
	if note != "" {
		fmt.Fprintf(g.stderr, "melmux: %s\n", note)
	}
	_, err := fmt.Fprintln(g.stdout, id)
	return err
}

// placement resolves where a new pane goes: -t PANE, else the pane this runs
// in, else the focused one (0); and its directory, a relative one being the
// caller's.
func placement(g *globals, verb, target, cwd string) (int, string, error) {
	t := envPane(g)
	if target != "" {
		id, err := paneFlag(g, verb, target)
		if err != nil {
			return 0, "", err
		}
		t = id
	}
	if abs, err := filepath.Abs(cwd); err == nil {
		cwd = abs
	}
	return t, cwd, nil
}

// providerPrefixes are the variables a worker's provider may read: they go
// with spawn-agent, so the worker talks to the model its caller would, even
// when the session's daemon was started elsewhere.
var providerPrefixes = []string{"MELMUX_RELAY_URL=", "MELMUX_RELAY_TOKEN=", "OPENAI_", "ANTHROPIC_", "OLLAMA_HOST=", "MELMUX_AGENT_"}

// providerEnv picks the provider variables out of environ, and the one named
// by keyEnv.
func providerEnv(environ []string, keyEnv string) []string {
	var out []string
	for _, kv := range environ {
		keep := keyEnv != "" && strings.HasPrefix(kv, keyEnv+"=")
		for _, p := range providerPrefixes {
			keep = keep || strings.HasPrefix(kv, p)
		}
		if keep {
			out = append(out, kv)
		}
	}
	return out
}
