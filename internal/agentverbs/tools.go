package agentverbs

import (
	"encoding/json"

	"github.com/melmux/melmux/internal/cli"
	"github.com/melmux/melmux/toolexec"
)

func init() {
	cli.Register(cli.AgentVerb("tools", func(g *cli.Globals, args []string) error {
		fs := cli.NewFlags(g, "tools")
		roleName := fs.String("role", "lead", "tool role: base, worker, lead (or orchestrator)")
		if err := cli.ParseFlags(fs, args); err != nil {
			return err
		}
		if fs.NArg() > 0 {
			return cli.Usagef("tools takes no arguments besides --role, got %q", fs.Args())
		}
		role, err := toolexec.ParseRole(*roleName)
		if err != nil {
			return cli.Usagef("tools: %v", err)
		}
		enc := json.NewEncoder(g.Stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(toolexec.Definitions(role))
	}, false))
}
