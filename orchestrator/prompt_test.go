package orchestrator

import (
	"strings"
	"testing"

	"github.com/melmux/melmux/toolexec"
)

// The lead is told exactly what waits and what does not, since every call
// it makes to find out costs a leg: send_agent returns at once, read_agent
// waits for any agent's turn and brings its reply or its question, a
// question is answered with send_keys, and nothing is polled.
func TestLeadPromptSaysWhatWaits(t *testing.T) {
	p := SystemPrompt(PromptContext{Role: toolexec.RoleLead, AgentID: "a1"})
	for _, want := range []string{
		"returns at once with the turn id: it does not wait for the reply",
		"read_agent(pane) waits (up to a bound) for the turn you last sent to end, for any agent: melmux workers, claude, codex, gemini",
		"whole reply",
		"the question the agent is asking with the key for each option",
		"send_keys(pane, key)",
		"Send all messages of a round in one response and read them all in the next",
		"Never poll",
		`run_command "melmux wait"`,
	} {
		if !strings.Contains(p, want) {
			t.Errorf("lead prompt lacks %q:\n%s", want, p)
		}
	}
	if w := SystemPrompt(PromptContext{Role: toolexec.RoleWorker, AgentID: "w1", Task: "t"}); strings.Contains(w, "read_agent") {
		t.Errorf("worker prompt speaks of the lead's tools:\n%s", w)
	}
}
