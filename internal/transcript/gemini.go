package transcript

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// geminiDir is Gemini CLI's runtime directory for p: $GEMINI_CLI_HOME/.gemini
// or $HOME/.gemini.
func geminiDir(p Proc) string {
	home := p.Getenv("GEMINI_CLI_HOME")
	if home == "" {
		home = p.Getenv("HOME")
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".gemini")
}

// geminiFiles are the candidate session files of p: chats/session-*.jsonl
// (older releases: .json) in the project's directory under tmp/, newest
// first. The project's directory is the short id projects.json maps its
// path to, or the one whose .project_root names it, or (before the short
// ids) the SHA-256 of the path.
func geminiFiles(p Proc, since time.Time) ([]string, error) {
	dir := geminiDir(p)
	if dir == "" {
		return nil, noTranscript("Gemini CLI", since, []string{"(neither GEMINI_CLI_HOME nor HOME is set)"})
	}
	tmp := filepath.Join(dir, "tmp")
	cwds := p.cwds()
	var ids []string
	var registry struct {
		Projects map[string]string `json:"projects"`
	}
	if raw, err := os.ReadFile(filepath.Join(dir, "projects.json")); err == nil && json.Unmarshal(raw, &registry) == nil {
		for _, c := range cwds {
			if id := registry.Projects[c]; id != "" && !strings.ContainsAny(id, `/\`) && id != ".." {
				ids = append(ids, id)
			}
		}
	}
	roots, _ := filepath.Glob(filepath.Join(tmp, "*", ".project_root"))
	for _, r := range roots {
		raw, err := os.ReadFile(r)
		if err != nil {
			continue
		}
		owner := filepath.Clean(strings.TrimSpace(string(raw)))
		for _, c := range cwds {
			if owner == c {
				ids = append(ids, filepath.Base(filepath.Dir(r)))
			}
		}
	}
	for _, c := range cwds {
		sum := sha256.Sum256([]byte(c))
		ids = append(ids, hex.EncodeToString(sum[:]))
	}
	var all, where []string
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		chats := filepath.Join(tmp, id, "chats")
		for _, ext := range []string{".jsonl", ".json"} {
			m, _ := filepath.Glob(filepath.Join(chats, "session-*"+ext))
			all = append(all, m...)
		}
		where = append(where, chats)
	}
	files, stale := recent(since, nil, all)
	if len(files) == 0 && stale != "" {
		return nil, notYet("Gemini CLI", since, stale)
	}
	if len(files) == 0 {
		return nil, noTranscript("Gemini CLI", since, where)
	}
	return files, nil
}

type geminiMessage struct {
	ID             string          `json:"id"`
	Timestamp      string          `json:"timestamp"`
	Type           string          `json:"type"`
	Content        json.RawMessage `json:"content"`
	DisplayContent json.RawMessage `json:"displayContent"`
	ToolCalls      []any           `json:"toolCalls"`
}

// text is the text of a message's content: a string, a part, or a list of
// parts of which the text ones count.
func geminiText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	type part struct {
		Text *string `json:"text"`
	}
	var parts []part
	if json.Unmarshal(raw, &parts) != nil {
		var one part
		if json.Unmarshal(raw, &one) != nil {
			return ""
		}
		parts = []part{one}
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Text != nil {
			b.WriteString(*p.Text)
		}
	}
	return b.String()
}

// geminiRecord is one line of a session file: a message (it has an id; a
// later one with the same id replaces it in place), {"$rewindTo": ID}
// (drops that message and all after it), {"$set": {...}} (metadata, or all
// the messages anew), or the metadata the file starts with.
type geminiRecord struct {
	geminiMessage
	RewindTo *string `json:"$rewindTo"`
	Set      *struct {
		Messages *[]geminiMessage `json:"messages"`
	} `json:"$set"`
	Messages *[]geminiMessage `json:"messages"`
}

// geminiConversation replays a session file to its messages, in order, as
// Gemini CLI loads it to resume.
func geminiConversation(path string) ([]geminiMessage, error) {
	var order []string
	msgs := map[string]geminiMessage{}
	reset := func(list []geminiMessage) {
		order, msgs = nil, map[string]geminiMessage{}
		for _, m := range list {
			if m.ID != "" {
				if _, ok := msgs[m.ID]; !ok {
					order = append(order, m.ID)
				}
				msgs[m.ID] = m
			}
		}
	}
	apply := func(r geminiRecord) {
		switch {
		case r.RewindTo != nil:
			for i, id := range order {
				if id == *r.RewindTo {
					for _, gone := range order[i:] {
						delete(msgs, gone)
					}
					order = order[:i]
					return
				}
			}
			reset(nil)
		case r.ID != "":
			if _, ok := msgs[r.ID]; !ok {
				order = append(order, r.ID)
			}
			msgs[r.ID] = r.geminiMessage
		case r.Set != nil && r.Set.Messages != nil:
			reset(*r.Set.Messages)
		case r.Messages != nil:
			reset(*r.Messages)
		}
	}
	var err error
	if strings.HasSuffix(path, ".json") {
		// Before JSON lines: one object with all the messages.
		var raw []byte
		if raw, err = os.ReadFile(path); err == nil {
			var r geminiRecord
			if err = json.Unmarshal(raw, &r); err == nil {
				apply(r)
			}
		}
	} else {
		err = eachLine(path, func(line []byte) {
			var r geminiRecord
			if json.Unmarshal(line, &r) == nil {
				apply(r)
			}
		})
	}
	out := make([]geminiMessage, 0, len(order))
	for _, id := range order {
		out = append(out, msgs[id])
	}
	return out, err
}

// parseGemini reads Gemini CLI's session file. A turn starts at a user
// message with text (not a tool's functionResponse, not the
// <session_context> the session opens with); its reply is the content of
// the last gemini message. Gemini CLI writes no end of a turn: it counts as
// done when that message has text and no tool calls (it records a
// message's tool calls only once they ran, so a message that announces a
// call awaiting the person's approval reads as done until then).
func parseGemini(path string) ([]turn, error) {
	msgs, err := geminiConversation(path)
	var turns []turn
	for _, m := range msgs {
		switch m.Type {
		case "user":
			text := strings.TrimSpace(geminiText(m.Content))
			if text == "" || strings.HasPrefix(text, "<session_context>") || strings.HasPrefix(text, "<hook_context>") {
				continue
			}
			if shown := strings.TrimSpace(geminiText(m.DisplayContent)); shown != "" && shown != text {
				text = shown + "\n" + text
			}
			turns = append(turns, turn{At: stamp(m.Timestamp), Prompt: text})
		case "gemini":
			if len(turns) == 0 {
				continue
			}
			t := &turns[len(turns)-1]
			t.Text = strings.TrimSpace(geminiText(m.Content))
			t.Done = t.Text != "" && len(m.ToolCalls) == 0
		}
	}
	return turns, err
}
