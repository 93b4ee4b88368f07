package transcript

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// claudeDir is Claude Code's configuration directory for p.
func claudeDir(p Proc) string {
	if d := p.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return d
	}
	if h := p.Getenv("HOME"); h != "" {
		return filepath.Join(h, ".claude")
	}
	return ""
}

var notAlnum = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-zA-Z0-9]`) })

// claudeProjectNameMax is how long a project directory's name may be before
// Claude Code cuts it and adds a hash of the path.
const claudeProjectNameMax = 200

// claudeProjectNameOK is what CLAUDE_CODE_PROJECT_DIR_NAME must look like to
// be taken. Both patterns are compiled when first used, not in the start
// of every process that links the package.
var claudeProjectNameOK = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`) })

// claudeFiles are the candidate session files of p: the one its
// sessions/PID.json names first, then the project's newest.
func claudeFiles(p Proc, since time.Time) ([]string, error) {
	dir := claudeDir(p)
	if dir == "" {
		return nil, noTranscript("Claude Code", since, []string{"(neither CLAUDE_CONFIG_DIR nor HOME is set)"})
	}
	projects := filepath.Join(dir, "projects")
	var first, where []string
	if p.PID > 0 {
		pidFile := filepath.Join(dir, "sessions", strconv.Itoa(p.PID)+".json")
		var s struct {
			SessionID string `json:"sessionId"`
		}
		if raw, err := os.ReadFile(pidFile); err == nil && json.Unmarshal(raw, &s) == nil && s.SessionID != "" && !strings.ContainsAny(s.SessionID, `/\*?[`) {
			first, _ = filepath.Glob(filepath.Join(projects, "*", s.SessionID+".jsonl"))
		}
		where = append(where, pidFile)
	}
	var names []string
	if n := p.Getenv("CLAUDE_CODE_PROJECT_DIR_NAME"); claudeProjectNameOK().MatchString(n) {
		names = append(names, n)
	}
	for _, cwd := range p.cwds() {
		names = append(names, notAlnum().ReplaceAllString(cwd, "-"))
	}
	var all []string
	for _, name := range names {
		pattern := filepath.Join(projects, name, "*.jsonl")
		if len(name) > claudeProjectNameMax {
			// The name is cut and a hash of the path added, which is not
			// worth reproducing: every directory of that prefix.
			pattern = filepath.Join(projects, name[:claudeProjectNameMax]+"-*", "*.jsonl")
		}
		m, _ := filepath.Glob(pattern)
		all = append(all, m...)
		where = append(where, filepath.Dir(pattern))
	}
	files, stale := recent(since, first, all)
	if len(files) == 0 && stale != "" {
		return nil, notYet("Claude Code", since, stale)
	}
	if len(files) == 0 {
		return nil, noTranscript("Claude Code", since, where)
	}
	return files, nil
}

type claudeEntry struct {
	Type        string `json:"type"`
	Subtype     string `json:"subtype"`
	UUID        string `json:"uuid"`
	Timestamp   string `json:"timestamp"`
	IsMeta      bool   `json:"isMeta"`
	IsSidechain bool   `json:"isSidechain"`
	IsCompact   bool   `json:"isCompactSummary"`
	Message     struct {
		ID         string          `json:"id"`
		Content    json.RawMessage `json:"content"`
		StopReason string          `json:"stop_reason"`
	} `json:"message"`
}

type claudeBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// blocks returns the message's content as blocks: a string is one text
// block.
func (e *claudeEntry) blocks() []claudeBlock {
	var s string
	if json.Unmarshal(e.Message.Content, &s) == nil {
		return []claudeBlock{{Type: "text", Text: s}}
	}
	var bs []claudeBlock
	_ = json.Unmarshal(e.Message.Content, &bs)
	return bs
}

// Claude Code's user entries that are no prompt of the person's.
var (
	claudeLocalOutput = []string{"<local-command-stdout>", "<local-command-stderr>", "<bash-stdout>", "<bash-stderr>"}
	claudeLocalInput  = []string{"<command-name>", "<bash-input>"}
	claudeInterrupted = "[Request interrupted by user"
)

// parseClaude reads Claude Code's session file: one JSON entry a line. A
// turn starts at a user entry the person wrote (not a tool's result, not
// meta, not a sidechain's); its reply is the text of the last assistant
// message (Claude Code writes one entry per content block, each with the
// message's id); it is done once a system turn_duration entry follows, the
// person interrupted it, or the last message ended the turn (stop_reason
// end_turn).
func parseClaude(path string) ([]turn, error) {
	var turns []turn
	var entries []claudeEntry // the current turn's assistant and tool-result entries
	local := false            // the current turn is a local command (/clear, !ls): no model turn
	seen := map[string]bool{}
	finish := func() {
		if len(turns) == 0 {
			return
		}
		t := &turns[len(turns)-1]
		t.Text, t.Done = claudeReply(entries, t.Done)
		if local && t.Text == "" {
			turns = turns[:len(turns)-1]
		}
	}
	err := eachLine(path, func(line []byte) {
		if !bytes.Contains(line, []byte(`"user"`)) && !bytes.Contains(line, []byte(`"assistant"`)) && !bytes.Contains(line, []byte(`"turn_duration"`)) {
			return
		}
		var e claudeEntry
		if json.Unmarshal(line, &e) != nil || e.IsSidechain {
			return
		}
		if e.UUID != "" {
			if seen[e.UUID] {
				return
			}
			seen[e.UUID] = true
		}
		switch e.Type {
		case "system":
			if e.Subtype == "turn_duration" && len(turns) > 0 {
				turns[len(turns)-1].Done = true
			}
		case "assistant":
			if len(turns) > 0 {
				entries = append(entries, e)
			}
		case "user":
			if e.IsMeta || e.IsCompact {
				return
			}
			var texts []string
			tool := false
			for _, b := range e.blocks() {
				switch b.Type {
				case "text":
					texts = append(texts, b.Text)
				case "tool_result":
					tool = true
				}
			}
			text := strings.TrimSpace(strings.Join(texts, "\n"))
			switch {
			case tool:
				entries = append(entries, e)
			case strings.HasPrefix(text, claudeInterrupted):
				if len(turns) > 0 {
					turns[len(turns)-1].Done = true
				}
			case text == "" || hasAnyPrefix(text, claudeLocalOutput):
			default:
				finish()
				entries = entries[:0]
				local = hasAnyPrefix(text, claudeLocalInput)
				turns = append(turns, turn{At: stamp(e.Timestamp), Prompt: text})
			}
		}
	})
	finish()
	return turns, err
}

// claudeReply is the text of the last assistant message among a turn's
// entries, and whether the turn is done (done already, or that message
// ended the turn).
func claudeReply(entries []claudeEntry, done bool) (string, bool) {
	last := -1
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].Type == "assistant" {
			last = i
			break
		}
	}
	if last < 0 {
		return "", done
	}
	if last == len(entries)-1 {
		switch entries[last].Message.StopReason {
		case "end_turn", "stop_sequence":
			done = true
		}
	}
	id := entries[last].Message.ID
	var texts []string
	for i := last; i >= 0; i-- {
		e := &entries[i]
		if e.Type != "assistant" || (id != "" && e.Message.ID != id) || (id == "" && i != last) {
			break
		}
		var t []string
		for _, b := range e.blocks() {
			if b.Type == "text" && strings.TrimSpace(b.Text) != "" {
				t = append(t, strings.TrimSpace(b.Text))
			}
		}
		texts = append(t, texts...)
	}
	return strings.Join(texts, "\n\n"), done
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
