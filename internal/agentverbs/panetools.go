package agentverbs

import (
	"os"

	"github.com/melmux/melmux/internal/cli"
	"github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/config"
	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/toolexec"
)

// The pane tools of `melmux tool` run against the session over its socket;
// new panes split the pane the tool runs in and start in its directory.
func init() {
	paneTools = func(g *cli.Globals) toolexec.PaneTools {
		cwd, _ := os.Getwd()
		return sessionPaneTools(g, cwd)
	}
}

// sessionPaneTools are the pane tools of `melmux tool` and `melmux mcp`:
// new panes split the pane this runs in and start in cwd, workers from
// spawn_agent get the provider variables of this process's environment and
// with `[agent] worktrees = true` a worktree each. A config that does not
// load is the server's to report; its defaults apply here.
func sessionPaneTools(g *cli.Globals, cwd string) *client.PaneTools {
	cfg, _ := config.Load()
	return &client.PaneTools{Socket: proto.SocketPath(g.Session), Target: cli.EnvPane(g), Cwd: cwd,
		Spawn: proto.SpawnAgentParams{Env: cli.ProviderEnv(os.Environ(), ""), Worktree: cfg.Agent.Worktrees}}
}
