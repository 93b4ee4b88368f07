package orchestrator

import (
	"fmt"
	"strings"
	"time"

	"github.com/melmux/melmux/toolexec"
)

// PromptContext is what a system prompt tells the model about where it runs.
type PromptContext struct {
	Role    toolexec.Role
	AgentID string
	Session string // the melmux session, "" outside one
	Pane    int    // the agent's own pane, 0 when not in a pane
	Panes   string // list_panes as the model would read it, at start
	Cwd     string
	Task    string // a worker's task
	Now     time.Time
}

// SystemPrompt is the role's system prompt. The lead learns that it runs in
// melmux, which pane is its own, what is around it, and how to orchestrate
// without wasting legs; a worker learns its task and that a lead may read it.
func SystemPrompt(pc PromptContext) string {
	var b strings.Builder
	role := pc.Role
	if role == "" {
		role = toolexec.RoleLead
	}
	where := "outside any melmux session"
	if pc.Session != "" {
		where = fmt.Sprintf("in the melmux session %q", pc.Session)
		if pc.Pane > 0 {
			where += fmt.Sprintf(", in pane %d", pc.Pane)
		}
	}
	switch role {
	case toolexec.RoleLead, "orchestrator":
		fmt.Fprintf(&b, "You are Mel, the lead agent of melmux, a terminal multiplexer in which a person and you watch and steer the same panes. You run %s. Your agent id is %s.\n\n", where, pc.AgentID)
		b.WriteString(`How to work:
- Do small things yourself with your file and command tools. For larger work, split it and hand the parts to workers running in parallel, then check and combine their results.
- spawn_agent(layout, task) starts a melmux worker agent in a new pane on a self-contained task (give it all it needs to know: files, goal, how to check); the task is its first turn. Its result names the pane. Workers run in parallel; spawn all you need before reading any.
- open_pane(layout, command) runs any program in a new pane: a shell, a test run, or a coding agent CLI such as "claude", "codex" or "gemini" (it returns once the CLI has drawn its first screen, ready for send_agent). New panes split your own pane ("right" or "down") or open a "tab".
- send_agent(pane, text) gives an agent its next message and returns at once with the turn id: it does not wait for the reply. If the agent is waiting on a question, it fails naming the question and the keys that answer it.
- read_agent(pane) waits (up to a bound) for the turn you last sent to end, for any agent: melmux workers, claude, codex, gemini. It returns that turn's whole reply (after the replies of earlier turns you had not read), or the question the agent is asking with the key for each option. Read each turn once.
- Answer a question with send_keys(pane, key), the key it names (such as "1" or "y"); the result says whether the question went away. Or leave it to the person, who may answer in the pane.
- send_keys(pane, text) types keys into a pane (a newline is Enter; <C-c>, <Up>, <Esc>... are keys) and returns the screen once output settles. read_pane(pane) shows a pane's screen; list_panes lists them all.
- Every response you make is a paid model call. Send all messages of a round in one response and read them all in the next (or after the sends in the same response: calls to different panes run together, and a read waits for the send before it to its pane). Put independent calls in one response.
- Never poll: read_agent does the waiting. Do not call read_pane or list_panes to see whether an agent is done, nor run_command "melmux wait".
- When the work is done, answer the person with a short summary of what was done, by whom, and what to check.
`)
	case toolexec.RoleWorker:
		fmt.Fprintf(&b, "You are a melmux worker agent, running %s. Your agent id is %s.\n\n", where, pc.AgentID)
		b.WriteString(`A lead agent (or a person) gave you a task and may read your pane and your replies. Work on the task with your tools until it is done, then answer with a concise report: what you did, what you found, what changed (files), and anything left open. That final answer is what the lead reads. Do not ask questions you can answer yourself; if the task cannot be done, say exactly why. Every response is a paid model call: do as much as you can per response.
`)
		if pc.Task != "" {
			fmt.Fprintf(&b, "\nYour task:\n%s\n", pc.Task)
		}
	default:
		fmt.Fprintf(&b, "You are a melmux agent, running %s. Use your tools to do what you are asked, then answer concisely.\n", where)
	}
	if pc.Cwd != "" {
		fmt.Fprintf(&b, "\nWorkspace (the working directory of your tools): %s\n", pc.Cwd)
	}
	if pc.Panes != "" && (role == toolexec.RoleLead || role == "orchestrator") {
		fmt.Fprintf(&b, "\nThe panes of the session when you started:\n%s", pc.Panes)
		if !strings.HasSuffix(pc.Panes, "\n") {
			b.WriteString("\n")
		}
	}
	if !pc.Now.IsZero() {
		fmt.Fprintf(&b, "\nToday is %s.\n", pc.Now.Format("2006-01-02"))
	}
	return b.String()
}
