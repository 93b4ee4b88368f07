package main

import (
	"github.com/melmux/melmux/internal/cli"
	"github.com/melmux/melmux/internal/proto"
)

func init() {
	cli.Register(&cli.Verb{
		Name:    "open-pane",
		Usage:   "[--layout right|down|tab] [-t PANE] [--cwd DIR] [--title T] [--worktree [NAME]] [--host DEST] [--focus] [--json] [-- CMD...]",
		Summary: "open a pane running CMD (default $SHELL); prints the new pane id",
		Run: func(g *cli.Globals, args []string) error {
			fs := cli.NewFlags(g, "open-pane")
			lay := fs.String("layout", "", "where the pane goes, `right|down|tab` (default tab; anything else is a tab, with a note)")
			target := fs.String("t", "", "the `PANE` to split (default: this pane inside melmux, else the focused one)")
			cwd := fs.String("cwd", "", "start in `DIR` (default: with -t, the split pane's directory; else the current directory)")
			title := fs.String("title", "", "the pane's `TITLE`, shown in its border and in list-panes")
			focus := fs.Bool("focus", false, "give the new pane the focus and show its tab (default: the focus stays where it is)")
			asJSON := fs.Bool("json", false, "print the result as JSON")
			host := fs.String("host", "", "run the pane on `DEST` over ssh (an ssh alias, user@host, host:port; docs/remote.md); --cwd is then a directory there")
			var wt worktreeFlag
			fs.Var(&wt, "worktree", "start in a new git worktree on branch melmux/NAME (NAME: pane-ID unless given)")
			if err := parseWorktreeFlags(fs, &wt, args); err != nil {
				return err
			}
			t, dir, err := placement(g, "open-pane", *target, *cwd)
			if err != nil {
				return err
			}
			p := proto.OpenPaneParams{Layout: *lay, Cwd: dir, Title: *title, Argv: fs.Args(), NoWait: !*asJSON, Target: t,
				Worktree: wt.on, WorktreeName: wt.name, Focus: *focus, Host: *host}
			if *host != "" {
				p.Cwd = *cwd // a directory on the host, as given
			}
			if len(p.Argv) == 1 {
				p.Command, p.Argv = p.Argv[0], nil
			}
			var res proto.OpenPaneResult
			if err := call(g, "open_pane", p, &res); err != nil {
				return err
			}
			return printPlaced(g, *asJSON, res, res.ID, res.Note)
		},
	})
}
