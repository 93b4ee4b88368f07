package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/melmux/melmux/internal/cli"
	"github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
)

func init() {
	cli.Register(&cli.Verb{
		Name:    "spawn-agent",
		Usage:   "[--layout right|down|tab] [--model M] [--provider P] [--base-url U] [--key-env VAR] [--max-legs N] [-t PANE] [--cwd DIR] [--worktree [NAME]] [--host DEST] [--focus] [--json] --task TEXT",
		Summary: "open a pane running a melmux worker agent on TEXT; prints the new pane id",
		Run: func(g *cli.Globals, args []string) error {
			fs := cli.NewFlags(g, "spawn-agent")
			lay := fs.String("layout", "", "where the pane goes, `right|down|tab` (default tab; anything else is a tab, with a note)")
			task := fs.String("task", "", "the worker's `TASK`, self-contained (required)")
			model := fs.String("model", "", "the worker's `MODEL` (default: its provider's)")
			provider := fs.String("provider", "", "the model `PROVIDER`: relay, openai or anthropic (default: the worker's config and environment)")
			baseURL := fs.String("base-url", "", "the provider's endpoint `URL`")
			keyEnv := fs.String("key-env", "", "the environment `VAR`iable holding the API key")
			maxLegs := fs.Int("max-legs", 0, "`N` legs (paid calls) per turn; 0 = the worker's default")
			target := fs.String("t", "", "the `PANE` to split (default: this pane inside melmux, else the focused one)")
			cwd := fs.String("cwd", "", "start in `DIR` (default: with -t, the split pane's directory; else the current directory)")
			focus := fs.Bool("focus", false, "give the new pane the focus and show its tab (default: the focus stays where it is)")
			asJSON := fs.Bool("json", false, "print the result as JSON")
			host := fs.String("host", "", "run the worker on `DEST` over ssh (docs/remote.md); --cwd is then a directory there")
			var wt worktreeFlag
			fs.Var(&wt, "worktree", "start in a new git worktree on branch melmux/NAME (NAME: agent-ID unless given)")
			if err := parseWorktreeFlags(fs, &wt, args); err != nil {
				return err
			}
			if fs.NArg() > 0 {
				return cli.Usagef("spawn-agent takes no arguments besides flags, got %q (give the task with --task)", strings.Join(fs.Args(), " "))
			}
			if strings.TrimSpace(*task) == "" {
				return cli.Usagef("spawn-agent: --task TEXT is required (the worker's task)")
			}
			if *maxLegs < 0 {
				return cli.Usagef("spawn-agent: --max-legs %d: give a number of legs >= 1, or 0 for the default", *maxLegs)
			}
			localCwd := *cwd
			if *host != "" {
				localCwd = "" // a directory of the host's, nothing of this machine's
			}
			t, dir, err := placement(g, "spawn-agent", *target, localCwd)
			if err != nil {
				return err
			}
			if *host != "" {
				dir = *cwd
			}
			p := proto.SpawnAgentParams{Layout: *lay, Task: *task, Model: *model, Target: t, Cwd: dir,
				Provider: *provider, BaseURL: *baseURL, KeyEnv: *keyEnv, MaxLegs: *maxLegs,
				Env: cli.ProviderEnv(os.Environ(), *keyEnv), Worktree: wt.on, WorktreeName: wt.name, Focus: *focus, Host: *host}
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
func printPlaced(g *cli.Globals, asJSON bool, res any, id int, note string) error {
	if asJSON {
		return printJSON(g.Stdout, res)
	}
	if note != "" {
		fmt.Fprintf(g.Stderr, "melmux: %s\n", client.VisibleLine(note))
	}
	_, err := fmt.Fprintln(g.Stdout, id)
	return err
}

// placement resolves where a new pane goes: -t PANE, else the pane this runs
// in, else the focused one (0); and its directory, a relative one being the
// caller's. With -t and no --cwd the directory is left to the server, which
// starts the pane (and makes its worktree) in the split pane's directory:
// a script run from another checkout must not put a worktree there.
func placement(g *cli.Globals, verb, target, cwd string) (int, string, error) {
	t := cli.EnvPane(g)
	if target != "" {
		id, err := paneFlag(g, verb, target)
		if err != nil {
			return 0, "", err
		}
		t = id
		if cwd == "" {
			return t, "", nil
		}
	}
	if abs, err := filepath.Abs(cwd); err == nil {
		cwd = abs
	}
	return t, cwd, nil
}
