package main

import (
	"github.com/melmux/melmux/internal/cli"
)

// config is melmux-server's (internal/serveverb), which links the config
// parser that a melmux process does without; the stand-in hands over to it
// as __serve does.
func init() {
	cli.Register(cli.ConfigVerb(func(g *cli.Globals, args []string) error {
		return handOver(g, cli.ServerBinary, serverHolds+", and the verb config", "config", args)
	}, true))
}
