package transcript

import (
	"bufio"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// codexDir is Codex's home for p.
func codexDir(p Proc) string {
	if d := p.Getenv("CODEX_HOME"); d != "" {
		return d
	}
	if h := p.Getenv("HOME"); h != "" {
		return filepath.Join(h, ".codex")
	}
	return ""
}

// isRollout reports a Codex session file: sessions/YYYY/MM/DD/rollout-*.jsonl.
func isRollout(path string) bool {
	base := filepath.Base(path)
	return strings.HasPrefix(base, "rollout-") && strings.HasSuffix(base, ".jsonl") &&
		strings.Contains(filepath.ToSlash(path), "/sessions/")
}

// codexFiles are the candidate session files of p: the rollout files it
// holds open first, then those under sessions/ whose session_meta names
// p's working directory, newest first.
func codexFiles(p Proc, since time.Time) ([]string, error) {
	var open []string
	for _, f := range p.Open {
		if isRollout(f) {
			open = append(open, f)
		}
	}
	dir := codexDir(p)
	if dir == "" && len(open) == 0 {
		return nil, noTranscript("Codex", since, []string{"(neither CODEX_HOME nor HOME is set)"})
	}
	from := since.Add(-Slack)
	cwds := p.cwds()
	ours := func(path string) bool {
		cwd := codexCwd(path)
		return cwd != "" && (slices.Contains(cwds, cwd) || sameDir(cwd, p.Cwd))
	}
	type rollout struct {
		path string
		mod  time.Time
	}
	var rollouts []rollout
	sessions := filepath.Join(dir, "sessions")
	if dir != "" {
		_ = filepath.WalkDir(sessions, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && isRollout(path) {
				if info, err := d.Info(); err == nil {
					rollouts = append(rollouts, rollout{path, info.ModTime()})
				}
			}
			return nil
		})
	}
	slices.SortFunc(rollouts, func(a, b rollout) int { return b.mod.Compare(a.mod) })
	var all []string
	staleOurs, staleLooked := "", 0
	for _, r := range rollouts {
		if !r.mod.Before(from) {
			if ours(r.path) {
				all = append(all, r.path)
			}
			continue
		}
		// Only to say which file was not written since: a few of the
		// newest are enough.
		if staleLooked++; staleLooked > 32 {
			break
		}
		if ours(r.path) {
			staleOurs = r.path
			break
		}
	}
	files, stale := recent(since, open, all)
	if stale == "" {
		stale = staleOurs
	}
	if len(files) == 0 && stale != "" {
		return nil, notYet("Codex", since, stale)
	}
	if len(files) == 0 {
		return nil, noTranscript("Codex", since, []string{sessions + " (rollout-*.jsonl of cwd " + p.Cwd + ")"})
	}
	return files, nil
}

// codexCwd is the working directory a rollout file's first line, its
// session_meta, records.
func codexCwd(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(f, 64<<10).ReadBytes('\n')
	if err != nil {
		return ""
	}
	var e struct {
		Type    string `json:"type"`
		Payload struct {
			Cwd string `json:"cwd"`
		} `json:"payload"`
	}
	if json.Unmarshal(line, &e) != nil || e.Type != "session_meta" {
		return ""
	}
	return filepath.Clean(e.Payload.Cwd)
}

type codexEntry struct {
	Timestamp string `json:"timestamp"`
	Type      string `json:"type"`
	Payload   struct {
		Type             string  `json:"type"`
		TurnID           string  `json:"turn_id"`
		Message          string  `json:"message"`            // event_msg user_message, agent_message
		LastAgentMessage *string `json:"last_agent_message"` // event_msg task_complete
		Role             string  `json:"role"`               // response_item message
		Content          []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		Item *struct { // event_msg item_completed
			Type    string `json:"type"`
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		} `json:"item"`
		Meta *struct {
			TurnID string `json:"turn_id"`
		} `json:"internal_chat_message_metadata_passthrough"`
	} `json:"payload"`
}

// parseCodex reads a Codex rollout file: JSON lines of
// {timestamp, type, payload}. A turn runs from event_msg task_started to
// task_complete (done, its last_agent_message the reply) or turn_aborted
// (done); the person's prompt is an item_completed UserMessage (older
// releases: event_msg user_message), the agent's messages item_completed
// AgentMessage, event_msg agent_message or a response_item message of role
// assistant, each carrying the turn's id where the release writes one.
func parseCodex(path string) ([]turn, error) {
	var turns []*turn
	byID := map[string]*turn{}
	var cur *turn
	at := func(id string) *turn {
		if t, ok := byID[id]; ok && id != "" {
			return t
		}
		if cur == nil {
			cur = &turn{}
			turns = append(turns, cur)
		}
		return cur
	}
	err := eachLine(path, func(line []byte) {
		var e codexEntry
		if json.Unmarshal(line, &e) != nil {
			return
		}
		pl := &e.Payload
		turnID := pl.TurnID
		if turnID == "" && pl.Meta != nil {
			turnID = pl.Meta.TurnID
		}
		prompt := func(text string) {
			t := at(turnID)
			if t.Prompt == "" {
				t.At = stamp(e.Timestamp)
				t.Prompt = text
			} else {
				t.Prompt += "\n" + text
			}
		}
		switch {
		case e.Type == "event_msg" && pl.Type == "task_started":
			cur = &turn{}
			turns = append(turns, cur)
			if turnID != "" {
				byID[turnID] = cur
			}
		case e.Type == "event_msg" && pl.Type == "task_complete":
			t := at(turnID)
			t.Done = true
			if pl.LastAgentMessage != nil {
				t.Text = *pl.LastAgentMessage
			}
		case e.Type == "event_msg" && pl.Type == "turn_aborted":
			at(turnID).Done = true
		case e.Type == "event_msg" && pl.Type == "user_message":
			prompt(pl.Message)
		case e.Type == "event_msg" && pl.Type == "agent_message":
			at(turnID).Text = pl.Message
		case e.Type == "event_msg" && pl.Type == "item_completed" && pl.Item != nil:
			var text strings.Builder
			for _, c := range pl.Item.Content {
				text.WriteString(c.Text)
			}
			switch pl.Item.Type {
			case "UserMessage":
				prompt(text.String())
			case "AgentMessage":
				at(turnID).Text = text.String()
			}
		case e.Type == "response_item" && pl.Type == "message" && pl.Role == "assistant":
			var text strings.Builder
			for _, c := range pl.Content {
				if c.Type == "output_text" {
					text.WriteString(c.Text)
				}
			}
			at(turnID).Text = text.String()
		}
	})
	// A turn with no prompt of the person's (compaction, a review) has no
	// time and so is never one since.
	out := make([]turn, len(turns))
	for i, t := range turns {
		out[i] = *t
		out[i].Text = strings.TrimSpace(t.Text)
	}
	return out, err
}
