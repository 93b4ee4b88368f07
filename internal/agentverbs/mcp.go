package agentverbs

import (
	"os"
	"strings"

	"github.com/melmux/melmux/internal/cli"
	"github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/mcpserver"
	"github.com/melmux/melmux/toolexec"
)

func init() {
	cli.Register(cli.AgentVerb("mcp", func(g *cli.Globals, args []string) error {
		fs := cli.NewFlags(g, "mcp")
		base := fs.Bool("base-tools", false, "also serve the base tools (files, grep, run_command...) in the current directory")
		if err := cli.ParseFlags(fs, args); err != nil {
			return err
		}
		if fs.NArg() > 0 {
			return cli.Usagef("mcp takes no arguments, got %q", strings.Join(fs.Args(), " "))
		}
		wd, err := os.Getwd()
		if err != nil {
			return err
		}
		ex := &toolexec.Executor{Root: wd, Role: toolexec.RoleLead, Panes: sessionPaneTools(g, wd)}
		defer ex.Close()
		tools := append([]string(nil), client.AvailablePaneTools...)
		if *base {
			for _, d := range toolexec.Definitions(toolexec.RoleWorker) {
				tools = append(tools, d.Name)
			}
		}
		srv, err := mcpserver.New(mcpserver.Options{Executor: ex, Tools: tools, Version: cli.Version,
			NotServed: "melmux mcp --base-tools also serves the file, command and memory tools"})
		if err != nil {
			return err
		}
		ctx, _, stop := cancelOnSignal()
		defer stop()
		return mcpserver.Serve(ctx, srv, g.Stdin, g.Stdout)
	}, false))
}
