package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/melmux/melmux/internal/proto"
)

// PaneTools runs the lead agent's pane tools against a session and renders
// each result as the text a model reads next: the screen after the keys, the
// new pane's first screen, so the model never needs a second call to look.
type PaneTools struct {
	Socket string
	// Target is the pane new panes split by default: the pane the agent
	// runs in ($MELMUX_PANE), 0 for the focused pane.
	Target int
	// Cwd is where new panes start: the agent's workspace.
	Cwd string
	// Spawn holds the defaults of spawn_agent that the model does not give:
	// the provider settings a lead passes on to its workers (provider,
	// base_url, key_env, model, max_legs, env). The tool's model argument
	// overrides Model; Target and Cwd come from the fields above.
	Spawn proto.SpawnAgentParams
}

// AvailablePaneTools are the pane tools this build runs: every orchestration
// tool.
var AvailablePaneTools = []string{"open_pane", "spawn_agent", "send_keys", "send_agent", "read_pane", "read_agent", "list_panes"}

// ErrOwnPane is returned (wrapped) when an agent aims send_agent, read_agent
// or send_keys at the pane it runs in: a message to itself would queue behind
// its own turn, waiting for its own turn to end would wait out the bound, and
// keys typed at its own prompt would be its next message, a turn it gave
// itself (and could give again, without end).
var ErrOwnPane = errors.New("that is the caller's own pane")

// Call runs one tool. args were validated against the tool's schema. The
// text is made Visible: it carries what panes show and say, and is printed
// on terminals (`melmux tool`, the agent's REPL) as well as read by models.
func (pt *PaneTools) Call(ctx context.Context, name string, args json.RawMessage) (string, error) {
	out, err := pt.call(ctx, name, args)
	return Visible(out), err
}

func (pt *PaneTools) call(ctx context.Context, name string, args json.RawMessage) (string, error) {
	if name == "send_agent" || name == "read_agent" || name == "send_keys" {
		var a struct {
			Pane int `json:"pane"`
		}
		if decodeArgs(args, &a) == nil && pt.Target > 0 && a.Pane == pt.Target {
			return "", fmt.Errorf("%s: pane %d: %w (list_panes shows the others)", name, a.Pane, ErrOwnPane)
		}
	}
	c, err := Dial(pt.Socket)
	if err != nil {
		return "", err
	}
	defer c.Close()
	switch name {
	case "open_pane":
		var a struct {
			Layout  string `json:"layout"`
			Command string `json:"command"`
		}
		if err := decodeArgs(args, &a); err != nil {
			return "", err
		}
		var r proto.OpenPaneResult
		if err := c.Call(ctx, "open_pane", proto.OpenPaneParams{Layout: a.Layout, Command: a.Command, Target: pt.Target, Cwd: pt.Cwd, Place: true}, &r); err != nil {
			return "", err
		}
		var b strings.Builder
		fmt.Fprintf(&b, "opened pane %d (layout %s, tab %d, %dx%d)", r.ID, r.Layout, r.Tab, r.Cols, r.Rows)
		writeHost(&b, r.Host)
		if r.Note != "" {
			fmt.Fprintf(&b, "; note: %s", r.Note)
		}
		b.WriteString("\n")
		writeScreen(&b, r.Lines)
		return b.String(), nil
	case "spawn_agent":
		var a struct {
			Layout string `json:"layout"`
			Task   string `json:"task"`
			Model  string `json:"model"`
		}
		if err := decodeArgs(args, &a); err != nil {
			return "", err
		}
		p := pt.Spawn
		p.Env = append([]string(nil), pt.Spawn.Env...)
		p.Layout, p.Task, p.Target, p.Cwd = a.Layout, a.Task, pt.Target, pt.Cwd
		p.Place = true // where is the session's config's to say (docs/remote.md)
		if a.Model != "" {
			p.Model = a.Model
		}
		var r proto.SpawnAgentResult
		if err := c.Call(ctx, "spawn_agent", p, &r); err != nil {
			return "", err
		}
		return SpawnText(r), nil
	case "send_agent":
		var a struct {
			Pane int    `json:"pane"`
			Text string `json:"text"`
		}
		if err := decodeArgs(args, &a); err != nil {
			return "", err
		}
		var r proto.SendAgentResult
		if err := c.Call(ctx, "send_agent", proto.SendAgentParams{Pane: a.Pane, Text: a.Text}, &r); err != nil {
			return "", err
		}
		return SendAgentText(r), nil
	case "read_agent":
		var a struct {
			Pane int `json:"pane"`
		}
		if err := decodeArgs(args, &a); err != nil {
			return "", err
		}
		var r proto.ReadAgentResult
		if err := c.Call(ctx, "read_agent", proto.ReadAgentParams{Pane: a.Pane}, &r); err != nil {
			return "", err
		}
		return ReadAgentText(r), nil
	case "send_keys":
		var a struct {
			Pane int    `json:"pane"`
			Text string `json:"text"`
		}
		if err := decodeArgs(args, &a); err != nil {
			return "", err
		}
		var r proto.SendKeysResult
		if err := c.Call(ctx, "send_keys", proto.SendKeysParams{Pane: a.Pane, Text: a.Text}, &r); err != nil {
			return "", err
		}
		var b strings.Builder
		state := "output settled"
		if !r.Settled {
			state = "still printing when the wait ended; read_pane later for more"
		}
		if r.Running != "" {
			state += fmt.Sprintf("; %s is still running in the foreground", r.Running)
		}
		fmt.Fprintf(&b, "sent %d bytes to pane %d (%s, %s)\n", r.Bytes, r.Pane, r.Status, state)
		if r.Question != nil {
			if r.QuestionGone {
				fmt.Fprintf(&b, "the question %q was answered: it is gone; read_agent(%d) waits for the rest of the turn\n", r.Question.Text, r.Pane)
			} else {
				fmt.Fprintf(&b, "the question %q is still there: %s\n", r.Question.Text, r.Question.Keys)
			}
		}
		writeScreen(&b, r.Lines)
		return b.String(), nil
	case "read_pane":
		var a struct {
			Pane int `json:"pane"`
		}
		if err := decodeArgs(args, &a); err != nil {
			return "", err
		}
		var r proto.ReadPaneResult
		if err := c.Call(ctx, "read_pane", proto.ReadPaneParams{Pane: a.Pane}, &r); err != nil {
			return "", err
		}
		var b strings.Builder
		status := r.Status
		if r.ExitCode != nil {
			status += fmt.Sprintf(" with code %d", *r.ExitCode)
		}
		fmt.Fprintf(&b, "pane %d (%s, %dx%d, cursor at column %d row %d)", r.ID, status, r.Cols, r.Rows, r.Cursor.X, r.Cursor.Y)
		if r.Title != "" {
			fmt.Fprintf(&b, " title %q", r.Title)
		}
		b.WriteString("\n")
		writeScreen(&b, trimBlankTail(r.Lines))
		return b.String(), nil
	case "list_panes":
		var panes []proto.PaneInfo
		if err := c.Call(ctx, "list_panes", nil, &panes); err != nil {
			return "", err
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%d panes\n", len(panes))
		for _, p := range panes {
			fmt.Fprintf(&b, "pane %d: tab %d, %dx%d, %s", p.ID, p.Tab, p.Cols, p.Rows, p.Status)
			switch {
			case p.Signal != nil:
				fmt.Fprintf(&b, " (%s)", *p.Signal)
			case p.ExitCode != nil:
				fmt.Fprintf(&b, " (code %d)", *p.ExitCode)
			}
			if p.Status == "running" {
				fmt.Fprintf(&b, ", %s", activityText(p.Activity, p.IdleMS))
			}
			if p.Focused {
				b.WriteString(", focused")
			}
			fmt.Fprintf(&b, ", command %q", p.Command)
			if p.Title != "" {
				fmt.Fprintf(&b, ", title %q", p.Title)
			}
			if a := p.Agent; a != nil && a.Kind == "melmux" {
				fmt.Fprintf(&b, ", melmux %s agent %s", a.Role, agentStateText(a))
			} else if a != nil {
				fmt.Fprintf(&b, ", %s agent %s", a.Kind, a.State)
			}
			b.WriteString("\n")
		}
		return b.String(), nil
	}
	return "", fmt.Errorf("%q is not a pane tool (pane tools: %s)", name, strings.Join(AvailablePaneTools, ", "))
}

func decodeArgs(args json.RawMessage, v any) error {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	if err := json.Unmarshal(args, v); err != nil {
		return fmt.Errorf("arguments: %w", err)
	}
	return nil
}

// blankRun is the shortest run of blank rows written as one line: a full
// screen app (an agent's TUI, a worker's footer on the last row) leaves
// dozens of them between its top and bottom, each a token for nothing.
const blankRun = 3

// Bounds of a screen in one tool result. A 200x50 screen is 10 KB at most,
// but a session may be thousands of columns wide and tall: a 2000x1000
// screen came back as 2 MB, flooding the model's context. The bottom rows,
// where the latest output and the prompt are, are the ones kept.
const (
	maxScreenBytes = 48 << 10
	maxRowBytes    = 2 << 10
)

// writeScreen frames the screen so a model can tell where it starts and
// ends; runs of blank rows are written as one line that counts them, so row
// numbers stay computable, as does a line saying how many rows at the top
// were left out to keep the screen within maxScreenBytes.
func writeScreen(b *strings.Builder, lines []string) {
	type entry struct {
		text string
		rows int
	}
	var entries []entry
	for i := 0; i < len(lines); i++ {
		j := i
		for j < len(lines) && strings.TrimSpace(lines[j]) == "" {
			j++
		}
		if j-i >= blankRun {
			entries = append(entries, entry{fmt.Sprintf("(%d blank rows)", j-i), j - i})
			i = j - 1
			continue
		}
		entries = append(entries, entry{clipRow(lines[i]), 1})
	}
	first, size, left := len(entries), 0, 0
	for first > 0 && size+len(entries[first-1].text)+1 <= maxScreenBytes {
		first--
		size += len(entries[first].text) + 1
	}
	for _, e := range entries[:first] {
		left += e.rows
	}
	b.WriteString("--- screen ---\n")
	if left > 0 {
		fmt.Fprintf(b, "(%d rows above left out: the screen is larger than a tool result may be)\n", left)
	}
	for _, e := range entries[first:] {
		b.WriteString(e.text)
		b.WriteString("\n")
	}
	b.WriteString("--- end ---\n")
}

// clipRow cuts a row longer than maxRowBytes (at a rune boundary), saying
// how much was cut.
func clipRow(row string) string {
	if len(row) <= maxRowBytes {
		return row
	}
	cut := maxRowBytes
	for cut > 0 && !utf8.RuneStart(row[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d more bytes)", row[:cut], len(row)-cut)
}

func trimBlankTail(lines []string) []string {
	n := len(lines)
	for n > 0 && lines[n-1] == "" {
		n--
	}
	return lines[:n]
}
