package client

import (
	"fmt"
	"strings"
	"time"

	"github.com/melmux/melmux/internal/proto"
)

// The texts below are what a model reads after spawn_agent, send_agent and
// read_agent: what happened, what to call next, and the screen or the reply,
// framed so it can tell where they start and end. The CLI prints them too,
// so each is made Visible: a reply or a screen may hold control characters.

// SpawnText renders a spawn_agent result.
func SpawnText(r proto.SpawnAgentResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "spawned worker agent %s in pane %d (layout %s, tab %d, %dx%d)", r.AgentID, r.ID, r.Layout, r.Tab, r.Cols, r.Rows)
	writeHost(&b, r.Host)
	if r.Note != "" {
		fmt.Fprintf(&b, "; note: %s", r.Note)
	}
	if r.Worktree != "" {
		fmt.Fprintf(&b, "\nit works in its own git worktree %s on branch %s (its commits stay there; melmux diff -t %d shows its changes)", r.Worktree, r.Branch, r.ID)
	}
	fmt.Fprintf(&b, "\nits task is turn 1; read_agent(%d) waits for its reply, send_agent(%d) gives it more\n", r.ID, r.ID)
	writeScreen(&b, r.Lines)
	return Visible(b.String())
}

// writeHost says where a new pane runs, when the result names a host.
func writeHost(b *strings.Builder, host string) {
	switch host {
	case "":
	case "local":
		b.WriteString(" on this machine")
	default:
		fmt.Fprintf(b, " on host %s", host)
	}
}

// SendAgentText renders a send_agent result.
func SendAgentText(r proto.SendAgentResult) string {
	if r.Kind == "melmux" {
		ahead := ""
		switch {
		case r.Ahead == 1:
			ahead = " (1 turn ahead)"
		case r.Ahead > 1:
			ahead = fmt.Sprintf(" (%d turns ahead)", r.Ahead)
		}
		return fmt.Sprintf("queued as turn %d for the agent in pane %d%s; read_agent(%d) waits for its reply\n", r.Turn, r.Pane, ahead, r.Pane)
	}
	var b strings.Builder
	if r.Delivered {
		fmt.Fprintf(&b, "delivered to pane %d: %s\n", r.Pane, r.Note)
	} else {
		fmt.Fprintf(&b, "not delivered: %s; send_keys(%d, \"<Enter>\") presses Enter again, read_pane(%d) shows more\n", r.Note, r.Pane, r.Pane)
	}
	writeScreen(&b, r.Lines)
	return Visible(b.String())
}

// ReadAgentText renders a read_agent result: a melmux agent's state, counters
// and reply; for any other pane the state detected on screen and the screen.
func ReadAgentText(r proto.ReadAgentResult) string {
	return Visible(readAgentText(r))
}

func readAgentText(r proto.ReadAgentResult) string {
	var b strings.Builder
	a := r.Agent
	if a == nil || a.Kind != "melmux" {
		fmt.Fprintf(&b, "pane %d: ", r.Pane)
		if a == nil {
			b.WriteString("no agent detected")
		} else {
			fmt.Fprintf(&b, "%s agent, %s", a.Kind, a.State)
		}
		if r.Turn > 0 {
			fmt.Fprintf(&b, ", turn %d", r.Turn)
			if r.TurnDone {
				b.WriteString(" done")
			}
		}
		fmt.Fprintf(&b, " (pane %s, %s)\n", r.Status, activityText(r.Activity, r.IdleMS))
		if r.WaitNote != "" {
			b.WriteString(r.WaitNote + "\n")
		}
		if a != nil && a.Evidence != "" {
			fmt.Fprintf(&b, "because: %s\n", a.Evidence)
		}
		for _, e := range r.Earlier {
			if e.Error != "" {
				fmt.Fprintf(&b, "--- turn %d (not read before): %s ---\n", e.Turn, e.Error)
			}
			if e.Reply != "" {
				fmt.Fprintf(&b, "--- reply to turn %d (not read before; from %s) ---\n%s\n", e.Turn, sourceWords(e.Source), strings.TrimRight(e.Reply, "\n"))
			}
		}
		if r.Question != nil {
			writeQuestion(&b, r.Pane, r.Question)
		}
		if r.Error != "" {
			fmt.Fprintf(&b, "error: %s\n", r.Error)
		}
		if r.Reply != "" {
			fmt.Fprintf(&b, "--- reply to turn %d (from %s) ---\n%s\n--- end ---\n", r.Turn, sourceWords(r.Source), strings.TrimRight(r.Reply, "\n"))
		}
		if r.Reply == "" || r.Question != nil {
			writeScreen(&b, r.Lines)
		}
		return b.String()
	}
	fmt.Fprintf(&b, "pane %d: melmux %s agent %s, %s", r.Pane, a.Role, a.ID, agentStateText(a))
	if r.TurnDone && a.Turn > 0 {
		b.WriteString(" (turn done)")
	}
	fmt.Fprintf(&b, "; %d legs, %d input / %d output tokens", a.Legs, a.InputTokens, a.OutputTokens)
	if a.Pending > 0 {
		fmt.Fprintf(&b, "; %d messages queued", a.Pending)
	}
	b.WriteString("\n")
	if r.WaitNote != "" {
		b.WriteString(r.WaitNote + "\n")
	}
	// What earlier turns told comes first, in turn order, before the
	// current turn's failure and the latest reply.
	for _, e := range r.Earlier {
		if e.Error != "" {
			fmt.Fprintf(&b, "--- turn %d failed (not read before): %s ---\n", e.Turn, e.Error)
		}
		if e.Reply != "" {
			fmt.Fprintf(&b, "--- reply to turn %d (not read before) ---\n%s\n", e.Turn, strings.TrimRight(e.Reply, "\n"))
		}
	}
	if r.Error != "" {
		fmt.Fprintf(&b, "error: %s\n", r.Error)
	}
	if r.Reply == "" {
		b.WriteString("no reply yet\n")
		return b.String()
	}
	b.WriteString("--- reply ---\n")
	b.WriteString(strings.TrimRight(r.Reply, "\n"))
	b.WriteString("\n--- end ---\n")
	return b.String()
}

// agentStateText says what a melmux agent does, with the turn it concerns.
func agentStateText(a *proto.AgentInfo) string {
	switch {
	case a.Turn == 0:
		return a.State + ", no turn yet"
	case a.State == "working":
		return fmt.Sprintf("working on turn %d", a.Turn)
	case a.State == "waiting":
		return fmt.Sprintf("waiting for its next message after turn %d", a.Turn)
	}
	return fmt.Sprintf("%s after turn %d", a.State, a.Turn)
}

func activityText(activity string, idleMS int64) string {
	if activity == "idle" {
		return fmt.Sprintf("idle for %s", (time.Duration(idleMS) * time.Millisecond).Round(time.Second))
	}
	return activity
}

// sourceWords says where an agent CLI's reply came from.
func sourceWords(source string) string {
	switch source {
	case "hook":
		return "its hook"
	case "transcript":
		return "its session transcript"
	case "screen":
		return "its screen: the end of a long reply may be all there is"
	}
	return source
}

// writeQuestion renders what an agent asks, with the keys that answer it.
func writeQuestion(b *strings.Builder, pane int, q *proto.Question) {
	fmt.Fprintf(b, "--- question (waiting on a person since %s) ---\n%s\n", q.Since.Format("15:04:05"), q.Text)
	if q.Tool != "" || q.Input != "" {
		fmt.Fprintf(b, "it wants to use %s: %s\n", orWord(q.Tool, "a tool"), q.Input)
	}
	for _, o := range q.Options {
		fmt.Fprintf(b, "  key %q: %s\n", o.Key, o.Label)
	}
	if len(q.Options) > 0 {
		fmt.Fprintf(b, "answer with send_keys(%d, KEY) using one key above, or leave it to the person\n", pane)
	}
	b.WriteString("--- end of question ---\n")
}

func orWord(s, instead string) string {
	if s == "" {
		return instead
	}
	return s
}
