package main

import (
	"github.com/melmux/melmux/internal/cli"
)

// hooks is melmux-server's (internal/serveverb), which links the TOML
// parser that editing Codex's config.toml needs and a melmux process does
// without; the stand-in hands over to it as config does.
func init() {
	cli.Register(cli.HooksVerb(func(g *cli.Globals, args []string) error {
		return handOver(g, cli.ServerBinary, serverHolds+", and the verb hooks", "hooks", args)
	}, true))
}
