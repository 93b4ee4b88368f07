package main

import (
	"context"
	"fmt"
	"time"
)

func init() {
	register(&verb{
		name:    "kill-server",
		usage:   "",
		summary: "end the session and its panes",
		run: func(g *globals, args []string) error {
			fs := newFlags(g, "kill-server")
			if err := parseFlags(fs, args); err != nil {
				return err
			}
			if fs.NArg() > 0 {
				return usagef("kill-server takes no arguments, got %q", fs.Arg(0))
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
