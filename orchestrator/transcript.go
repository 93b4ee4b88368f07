package orchestrator

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// A transcript is an agent's conversation as JSON lines, one record per
// line, appended as it happens so a crash loses at most the line being
// written: a "meta" record first, then "message", "leg" and "turn" records.
// --resume reads it back and appends to it.

// ErrNoTranscript is returned (wrapped) when no transcript matches an id.
var ErrNoTranscript = errors.New("no such agent transcript")

// Meta describes the agent a transcript belongs to.
type Meta struct {
	ID       string    `json:"id"`
	Role     string    `json:"role"`
	Provider string    `json:"provider,omitempty"`
	Model    string    `json:"model,omitempty"`
	Task     string    `json:"task,omitempty"`
	Cwd      string    `json:"cwd,omitempty"`
	Created  time.Time `json:"created"`
}

type record struct {
	Type    string   `json:"type"` // meta | message | leg | turn
	Meta    *Meta    `json:"meta,omitempty"`
	Message *Message `json:"message,omitempty"`
	Leg     int      `json:"leg,omitempty"`
	Usage   *Usage   `json:"usage,omitempty"`
	Turn    int      `json:"turn,omitempty"`
	Reply   string   `json:"reply,omitempty"`
	Error   string   `json:"error,omitempty"`
	At      string   `json:"at,omitempty"`
}

// Transcript appends records to one agent's file. Its methods may be called
// on a nil *Transcript (no transcript kept).
type Transcript struct {
	Path string

	mu  sync.Mutex // guards f and err
	f   *os.File
	err error // the first write error; later writes are skipped
}

// TranscriptDir is $XDG_STATE_HOME/melmux/agents (~/.local/state/...).
func TranscriptDir(getenv func(string) string) (string, error) {
	base := getenv("XDG_STATE_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home := getenv("HOME")
		if home == "" {
			return "", errors.New("transcripts: neither $XDG_STATE_HOME nor $HOME is set")
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "melmux", "agents"), nil
}

// CreateTranscript starts DIR/ID.jsonl with its meta record.
func CreateTranscript(dir string, m Meta) (*Transcript, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	p := filepath.Join(dir, m.ID+".jsonl")
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	t := &Transcript{Path: p, f: f}
	t.write(record{Type: "meta", Meta: &m})
	return t, t.Err()
}

// Restored is a conversation read back from a transcript.
type Restored struct {
	Meta      Meta
	Messages  []Message
	Legs      int
	Usage     Usage
	Turns     int
	LastReply string
	// Repaired lists the calls that had no result when the transcript
	// ended (the agent stopped while running them): each got a result
	// saying it may not have run, and none is run again.
	Repaired []string
}

// FindTranscript resolves an id or a unique prefix of one to its file.
func FindTranscript(dir, id string) (string, error) {
	id = strings.TrimSpace(id)
	if id == "" || strings.ContainsAny(id, `/\`) {
		return "", fmt.Errorf("%w: %q is not an agent id", ErrNoTranscript, id)
	}
	exact := filepath.Join(dir, id+".jsonl")
	if _, err := os.Stat(exact); err == nil {
		return exact, nil
	}
	matches, _ := filepath.Glob(filepath.Join(dir, id+"*.jsonl"))
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		return "", fmt.Errorf("%w: %q in %s (its files are named <agent id>.jsonl)", ErrNoTranscript, id, dir)
	}
	names := make([]string, len(matches))
	for i, m := range matches {
		names[i] = strings.TrimSuffix(filepath.Base(m), ".jsonl")
	}
	return "", fmt.Errorf("agent id %q is ambiguous: %s", id, strings.Join(names, ", "))
}

// OpenTranscript reads the transcript at path and opens it for appending.
// A torn last line (a crash mid-write) is skipped; the conversation is
// repaired so every call has exactly one result.
func OpenTranscript(path string) (*Transcript, *Restored, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			err = fmt.Errorf("%w: %s", ErrNoTranscript, path)
		}
		return nil, nil, fmt.Errorf("resume: %w", err)
	}
	r := &Restored{}
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	sc.Buffer(nil, len(data)+1)
	for sc.Scan() {
		var rec record
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			continue
		}
		switch rec.Type {
		case "meta":
			if rec.Meta != nil {
				r.Meta = *rec.Meta
			}
		case "message":
			if rec.Message != nil {
				r.Messages = append(r.Messages, *rec.Message)
			}
		case "leg":
			r.Legs = max(r.Legs, rec.Leg)
			if rec.Usage != nil {
				r.Usage = r.Usage.Add(*rec.Usage)
			}
		case "turn":
			r.Turns = max(r.Turns, rec.Turn)
			r.LastReply = rec.Reply
		}
	}
	if r.Meta.ID == "" {
		return nil, nil, fmt.Errorf("resume: %s has no meta record: not an agent transcript", path)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("resume: %w", err)
	}
	t := &Transcript{Path: path, f: f}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		// A torn line: end it, so the next record starts on its own line.
		locked(&t.mu, func() { _, t.err = t.f.Write([]byte("\n")) })
	}
	for _, m := range repairCalls(r) {
		t.message(m)
	}
	return t, r, t.Err()
}

// repairCalls appends a result for every call of the last assistant message
// that has none, and returns what it appended.
func repairCalls(r *Restored) []Message {
	last := -1
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "assistant" {
			last = i
			break
		}
	}
	if last < 0 {
		return nil
	}
	answered := map[string]bool{}
	for _, m := range r.Messages[last+1:] {
		if m.Role == "tool" {
			answered[m.ToolCallID] = true
		}
	}
	var added []Message
	for _, c := range r.Messages[last].ToolCalls {
		if answered[c.ID] {
			continue
		}
		m := Message{Role: "tool", ToolCallID: c.ID, Content: "unknown outcome: the agent stopped while this call ran; it was not run again. Check its effect before repeating it."}
		r.Messages = append(r.Messages, m)
		r.Repaired = append(r.Repaired, c.Name)
		added = append(added, m)
	}
	return added
}

func (t *Transcript) message(m Message) {
	if t != nil {
		t.write(record{Type: "message", Message: &m})
	}
}

func (t *Transcript) leg(n int, u Usage) {
	if t != nil {
		t.write(record{Type: "leg", Leg: n, Usage: &u})
	}
}

// TurnEnd records how a turn ended.
func (t *Transcript) TurnEnd(turn int, reply string, err error) {
	if t == nil {
		return
	}
	rec := record{Type: "turn", Turn: turn, Reply: reply}
	if err != nil {
		rec.Error = err.Error()
	}
	t.write(rec)
}

func (t *Transcript) write(rec record) {
	rec.At = time.Now().UTC().Format(time.RFC3339Nano)
	b, err := json.Marshal(rec)
	if err != nil {
		return
	}
	b = append(b, '\n')
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil || t.f == nil {
		return
	}
	// One write per record: with O_APPEND a line is never interleaved.
	if _, err := t.f.Write(b); err != nil {
		t.err = fmt.Errorf("transcript %s: %w", t.Path, err)
	}
}

// Err is the first write error, if any.
func (t *Transcript) Err() error {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// Close closes the file.
func (t *Transcript) Close() error {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.f == nil {
		return nil
	}
	err := t.f.Close()
	t.f = nil
	return err
}
