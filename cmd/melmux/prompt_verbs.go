package main

import (
	"sort"

	"github.com/melmux/melmux/internal/cli"
)

// notFromPrompt are the verbs the attached ":" prompt does not offer: they
// need the terminal (attach, the agent's REPL) or stdio (mcp), which a verb
// run from the prompt does not have.
var notFromPrompt = map[string]bool{"attach": true, "agent": true, "mcp": true}

// promptVerbs lists what the ":" prompt completes its first word to.
func promptVerbs() []string {
	var out []string
	for _, n := range append(cli.Names(), "help", "version") {
		if !notFromPrompt[n] {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}
