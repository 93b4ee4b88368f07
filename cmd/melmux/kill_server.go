package main

import (
	"context"
	"fmt"
	"time"

	"github.com/melmux/melmux/internal/cli"
)

func init() {
	cli.Register(&cli.Verb{
		Name:    "kill-server",
		Usage:   "",
		Summary: "end the session and its panes",
		Run: func(g *cli.Globals, args []string) error {
			fs := cli.NewFlags(g, "kill-server")
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
			if err := c.Call(context.Background(), "kill_server", nil, nil); err != nil {
				return err
			}
			return waitGone(c.Done())
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
