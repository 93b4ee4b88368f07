package main

import (
	"encoding/json"

	"github.com/melmux/melmux/toolexec"
)

func init() {
	register(&verb{
		name:    "tools",
		usage:   "[--role base|worker|lead|orchestrator]",
		summary: "print the tool definitions sent to the model for a role, as JSON",
		run: func(g *globals, args []string) error {
			fs := newFlags(g, "tools")
			roleName := fs.String("role", "lead", "tool role: base, worker, lead (or orchestrator)")
			if err := parseFlags(fs, args); err != nil {
				return err
			}
			if fs.NArg() > 0 {
				return usagef("tools takes no arguments besides --role, got %q", fs.Args())
			}
			role, err := toolexec.ParseRole(*roleName)
			if err != nil {
				return usagef("tools: %v", err)
			}
			enc := json.NewEncoder(g.stdout)
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			return enc.Encode(toolexec.Definitions(role))
		},
	})
}
