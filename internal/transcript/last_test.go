package transcript

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestLastGemini: the reply of a session file's last turn, as a Gemini CLI
// hook that names its file reads it; a turn with no answer yet has none.
func TestLastGemini(t *testing.T) {
	path := filepath.Join("testdata", "gemini.jsonl")
	r, err := Last("gemini", path)
	if err != nil || r.Text != "The build ran." || !r.Done || r.File != path {
		t.Fatalf("Last = %+v, %v; want the last turn's reply, done", r, err)
	}

	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	asked := filepath.Join(t.TempDir(), "session.jsonl")
	raw = append(raw, `{"id":"u9","timestamp":"2026-12-01T14:33:10.000Z","type":"user","content":[{"text":"one more"}]}`+"\n"...)
	if err := os.WriteFile(asked, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	if r, err := Last("gemini", asked); err != nil || r.Text != "" || r.Done {
		t.Errorf("a prompt with no answer yet: %+v, %v", r, err)
	}

	empty := filepath.Join(t.TempDir(), "empty.jsonl")
	if err := os.WriteFile(empty, []byte(`{"sessionId":"x"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Last("gemini", empty); !errors.Is(err, ErrNoTurn) {
		t.Errorf("no prompt: %v, want ErrNoTurn", err)
	}
	if _, err := Last("gemini", filepath.Join(t.TempDir(), "missing.jsonl")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("no file: %v, want ErrNotExist", err)
	}
	if _, err := Last("claude", path); !errors.Is(err, ErrUnknownKind) {
		t.Errorf("claude: %v, want ErrUnknownKind", err)
	}
}
