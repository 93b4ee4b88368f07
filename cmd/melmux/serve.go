package main

import (
	"github.com/melmux/melmux/internal/cli"
)

// serverHolds says what melmux-server is for, in the error when it is
// missing.
const serverHolds = "the session server that `melmux new` starts"

// The session daemon is melmux-server's (internal/serveverb): the server,
// the emulator, the UI and the config parser would cost every melmux process
// their package inits and pages. `melmux new` starts melmux-server directly
// (spawnDaemon); `melmux __serve` typed by hand hands over to it, telling it
// which melmux the ":" prompt runs.
func init() {
	cli.Register(cli.ServeVerb(func(g *cli.Globals, args []string) error {
		self, err := selfPath()
		if err != nil {
			return err
		}
		return handOver(g, cli.ServerBinary, serverHolds, "__serve", append([]string{"--cli", self}, args...))
	}, true))
}
