package transcript

import "fmt"

// Last is the reply of the last turn in the session file at path, for an
// agent whose hooks name the file they belong to (Gemini CLI's
// transcript_path): Text "" when that turn has no answer yet.
func Last(kind, path string) (Reply, error) {
	if kind != "gemini" {
		return Reply{}, fmt.Errorf("transcript: Last reads Gemini CLI's session files: %w %q", ErrUnknownKind, kind)
	}
	turns, err := parseGemini(path)
	if err != nil {
		return Reply{}, fmt.Errorf("transcript: %w", err)
	}
	if len(turns) == 0 {
		return Reply{}, fmt.Errorf("transcript: %w: %s has no prompt", ErrNoTurn, path)
	}
	t := turns[len(turns)-1]
	return Reply{Text: t.Text, File: path, Done: t.Done}, nil
}
