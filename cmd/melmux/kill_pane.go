package main

import (
	"context"
	"fmt"

	"github.com/melmux/melmux/internal/cli"
	"github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
)

func init() {
	cli.Register(&cli.Verb{
		Name:    "kill-pane",
		Usage:   "-t PANE [--worktree [--force]]",
		Summary: "end a pane's process and remove the pane (the last one ends the session); --worktree removes its worktree too",
		Run: func(g *cli.Globals, args []string) error {
			fs := cli.NewFlags(g, "kill-pane")
			target := fs.String("t", "", "the pane")
			withWorktree := fs.Bool("worktree", false, "remove the pane's git worktree too, when it holds no uncommitted work (its branch stays if it has commits not merged)")
			force := fs.Bool("force", false, "with --worktree: remove it even with uncommitted work, which is lost")
			if err := cli.ParseFlags(fs, args); err != nil {
				return err
			}
			if fs.NArg() > 0 {
				return cli.Usagef("kill-pane takes no arguments besides its flags, got %q", fs.Arg(0))
			}
			if *force && !*withWorktree {
				return cli.Usagef("kill-pane: --force goes with --worktree (it removes a worktree holding uncommitted work)")
			}
			id, err := paneFlag(g, "kill-pane", *target)
			if err != nil {
				return err
			}
			c, err := dial(g)
			if err != nil {
				return err
			}
			defer c.Close()
			params := proto.KillPaneParams{Pane: id, Worktree: *withWorktree, Force: *force}
			var res proto.KillPaneWorktreeResult
			if err := c.Call(context.Background(), "kill_pane", params, &res); err != nil {
				return err
			}
			if *withWorktree && res.Note != "" {
				if !res.WorktreeRemoved {
					err = &cli.ExitError{Code: 1, Msg: client.VisibleLine(res.Note)}
				} else {
					fmt.Fprintf(g.Stderr, "melmux: %s\n", client.VisibleLine(res.Note))
				}
			}
			if res.SessionEnded {
				if werr := waitGone(c.Done()); err == nil {
					err = werr
				}
			}
			return err
		},
	})
}
