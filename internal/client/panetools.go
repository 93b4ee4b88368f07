package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

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
}

// AvailablePaneTools are the pane tools this build runs (the agent tools,
// spawn_agent, send_agent and read_agent, come with the Mel agent).
var AvailablePaneTools = []string{"open_pane", "send_keys", "read_pane", "list_panes"}

// ErrNotAvailable marks a tool this build of melmux does not run.
var ErrNotAvailable = errors.New("not available")

// Call runs one tool. args were validated against the tool's schema.
func (pt *PaneTools) Call(ctx context.Context, name string, args json.RawMessage) (string, error) {
	switch name {
	case "spawn_agent", "send_agent", "read_agent":
		return "", fmt.Errorf("%s: %w in this build: the Mel agent worker is not part of it yet; use open_pane with a command (for example \"claude\" or \"codex\") and send_keys/read_pane instead", name, ErrNotAvailable)
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
		if err := c.Call(ctx, "open_pane", proto.OpenPaneParams{Layout: a.Layout, Command: a.Command, Target: pt.Target, Cwd: pt.Cwd}, &r); err != nil {
			return "", err
		}
		var b strings.Builder
		fmt.Fprintf(&b, "opened pane %d (layout %s, tab %d, %dx%d)", r.ID, r.Layout, r.Tab, r.Cols, r.Rows)
		if r.Note != "" {
			fmt.Fprintf(&b, "; note: %s", r.Note)
		}
		b.WriteString("\n")
		writeScreen(&b, r.Lines)
		return b.String(), nil
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
		fmt.Fprintf(&b, "sent %d bytes to pane %d (%s, %s)\n", r.Bytes, r.Pane, r.Status, state)
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
				fmt.Fprintf(&b, ", %s", p.Activity)
				if p.Activity == "idle" {
					fmt.Fprintf(&b, " for %s", (time.Duration(p.IdleMS) * time.Millisecond).Round(time.Second))
				}
			}
			if p.Focused {
				b.WriteString(", focused")
			}
			fmt.Fprintf(&b, ", command %q", p.Command)
			if p.Title != "" {
				fmt.Fprintf(&b, ", title %q", p.Title)
			}
			b.WriteString("\n")
		}
		return b.String(), nil
	}
	return "", fmt.Errorf("%q is not a pane tool (pane tools: open_pane, send_keys, read_pane, list_panes)", name)
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

// writeScreen frames the screen so a model can tell where it starts and ends.
func writeScreen(b *strings.Builder, lines []string) {
	b.WriteString("--- screen ---\n")
	for _, l := range lines {
		b.WriteString(l)
		b.WriteString("\n")
	}
	b.WriteString("--- end ---\n")
}

func trimBlankTail(lines []string) []string {
	n := len(lines)
	for n > 0 && lines[n-1] == "" {
		n--
	}
	return lines[:n]
}
