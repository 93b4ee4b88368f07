package main

import (
	"slices"
	"testing"

	"github.com/melmux/melmux/internal/cli"
)

// notFromPrompt are the verbs the attached ":" prompt does not offer: they
// need the terminal (attach, the agent's REPL) or stdio (mcp), which a verb
// run from the prompt does not have.
var notFromPrompt = []string{"attach", "agent", "mcp"}

// The daemon completes the ":" prompt from cli.PromptVerbs, written out
// because melmux-server does not link the verbs: it must name every verb
// melmux has, but those the prompt cannot run.
func TestPromptVerbsAreMelmuxs(t *testing.T) {
	var want []string
	for _, n := range append(cli.Names(), "help", "version") {
		if !slices.Contains(notFromPrompt, n) {
			want = append(want, n)
		}
	}
	slices.Sort(want)
	if !slices.Equal(cli.PromptVerbs, want) {
		t.Errorf("cli.PromptVerbs = %q\nmelmux's verbs for the prompt: %q", cli.PromptVerbs, want)
	}
}
