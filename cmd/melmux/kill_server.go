package main

import (
	"context"
	"fmt"
	"time"

	"github.com/melmux/melmux/internal/cli"
	"github.com/melmux/melmux/internal/proto"
)

func init() {
	cli.Register(&cli.Verb{
		Name:    "kill-server",
		Usage:   "[--keep]",
		Summary: "end the session and its panes (--keep: keeping its state for melmux restore)",
		Run: func(g *cli.Globals, args []string) error {
			fs := cli.NewFlags(g, "kill-server")
			keep := fs.Bool("keep", false, "keep the session's state file, so that melmux restore brings the session back as it was (default: it goes with the session)")
			if err := cli.ParseFlags(fs, args); err != nil {
				return err
			}
			if fs.NArg() > 0 {
				return cli.Usagef("kill-server takes no arguments, got %q", fs.Arg(0))
			}
			c, err := dial(g)
			if err != nil {
				return err
			}
			defer c.Close()
			if err := c.Call(context.Background(), "kill_server", proto.KillServerParams{Keep: *keep}, nil); err != nil {
				return err
			}
			if err := waitGone(c.Done()); err != nil {
				return err
			}
			if *keep {
				fmt.Fprintf(g.Stderr, "melmux: session %s stopped, its state kept: `melmux restore %s` brings it back\n", c.Session, c.Session)
			}
			return nil
		},
	})
}

// waitGone returns once the server closed the connection: the session and its
// panes are gone when the verb returns, so the next command sees that.
func waitGone(done <-chan struct{}) error {
	select {
	case <-done:
		return nil
	case <-time.After(15 * time.Second):
		return fmt.Errorf("the session did not end within 15s")
	}
}
