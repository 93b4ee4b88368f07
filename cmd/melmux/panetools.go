package main

import (
	"os"

	"github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/toolexec"
)

// The pane tools of `melmux tool` run against the session over its socket;
// new panes split the pane the tool runs in and start in its directory.
func init() {
	paneTools = func(g *globals) toolexec.PaneTools {
		cwd, _ := os.Getwd()
		return &client.PaneTools{Socket: proto.SocketPath(g.session), Target: envPane(g), Cwd: cwd}
	}
}
