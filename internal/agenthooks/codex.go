package agenthooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// Codex has one notify program, a top-level key of config.toml (an array:
// the program and its arguments, the event's JSON appended). melmux's
// takes its place and runs the person's after it (`--chain JSON`), as
// when melmux starts Codex itself.

// CodexNotify is the notify program that runs self as `notify --from
// codex`, passing on to chain (the person's own, nil for none).
func CodexNotify(self string, chain []string) []string {
	argv := []string{self, "notify", "--from", "codex"}
	if len(chain) > 0 {
		raw, _ := json.Marshal(chain)
		argv = append(argv, "--chain", string(raw))
	}
	return argv
}

// IsOursCodex says whether a Codex notify program is melmux's, and the
// program it chains to.
func IsOursCodex(argv []string) (chain []string, ours bool) {
	if len(argv) < 4 || !slices.Equal(argv[1:4], []string{"notify", "--from", "codex"}) {
		return nil, false
	}
	if len(argv) >= 6 && argv[4] == "--chain" {
		_ = json.Unmarshal([]byte(argv[5]), &chain)
	}
	return chain, true
}

func decodeCodex(data []byte) (map[string]any, []string, error) {
	doc := map[string]any{}
	if _, err := toml.Decode(string(data), &doc); err != nil {
		return nil, nil, fmt.Errorf("%w: it is not valid TOML (%v); add at its top, before any [table], by hand:\n  %s", ErrCannotEdit, err, notifyLine(CodexNotify("melmux", nil)))
	}
	v, ok := doc["notify"]
	if !ok {
		return doc, nil, nil
	}
	list, ok := v.([]any)
	argv := make([]string, 0, len(list))
	for _, a := range list {
		s, isString := a.(string)
		ok = ok && isString
		argv = append(argv, s)
	}
	if !ok {
		return nil, nil, fmt.Errorf("%w: its notify is %T, not a list of strings (the program and its arguments)", ErrCannotEdit, v)
	}
	return doc, argv, nil
}

func checkCodex(data []byte) (Status, error) {
	st := Status{Agent: "codex", Exists: data != nil}
	_, argv, err := decodeCodex(data)
	if err != nil {
		return st, err
	}
	if chain, ours := IsOursCodex(argv); ours {
		st.Installed, st.Chained = []string{"notify"}, chain
	} else {
		st.Missing, st.Own = []string{"notify"}, argv
	}
	return st, nil
}

func installCodex(data []byte, self string) ([]byte, bool, error) {
	doc, argv, err := decodeCodex(data)
	if err != nil {
		return nil, false, err
	}
	if _, ours := IsOursCodex(argv); ours {
		return data, false, nil
	}
	out, err := setNotify(data, doc, CodexNotify(self, argv))
	return out, err == nil, err
}

func removeCodex(data []byte) ([]byte, bool, error) {
	doc, argv, err := decodeCodex(data)
	if err != nil || data == nil {
		return data, false, err
	}
	chain, ours := IsOursCodex(argv)
	if !ours {
		return data, false, nil
	}
	out, err := setNotify(data, doc, chain)
	return out, err == nil, err
}

// notifyLine is the TOML line setting notify to argv.
func notifyLine(argv []string) string {
	var b bytes.Buffer
	_ = toml.NewEncoder(&b).Encode(map[string]any{"notify": argv})
	return strings.TrimSpace(b.String())
}

// setNotify is data with its top-level notify set to argv (nil: taken
// out): the lines of the old one replaced, or a line added at the top. It
// checks that every other key decodes as before, which an edit of lines
// could break (a notify in an unusual form), and refuses then.
func setNotify(data []byte, before map[string]any, argv []string) ([]byte, error) {
	lines := strings.SplitAfter(string(data), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	start, end := notifyLines(lines)
	var repl []string
	if argv != nil {
		repl = []string{notifyLine(argv) + "\n"}
	}
	var out []string
	if start < 0 {
		out = append(repl, lines...)
	} else {
		out = append(append(slices.Clone(lines[:start]), repl...), lines[end:]...)
	}
	res := []byte(strings.Join(out, ""))
	after, got, err := decodeCodex(res)
	delete(after, "notify")
	want := map[string]any{}
	for k, v := range before {
		if k != "notify" {
			want[k] = v
		}
	}
	if err != nil || !slices.Equal(got, argv) || !reflect.DeepEqual(after, want) {
		return nil, fmt.Errorf("%w: its notify is written in a form melmux does not edit; set it by hand, at the top before any [table]:\n  %s",
			ErrCannotEdit, notifyLine(argv))
	}
	return res, nil
}

// notifyLines finds the lines [start, end) of the top-level notify key,
// start -1 for none: from its `notify =` line before the first table to
// the first line that completes its value.
func notifyLines(lines []string) (start, end int) {
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "[") {
			break
		}
		if k, _, ok := strings.Cut(t, "="); !ok || strings.TrimSpace(k) != "notify" {
			continue
		}
		for j := i + 1; j <= len(lines); j++ {
			var v map[string]any
			if _, err := toml.Decode(strings.Join(lines[i:j], ""), &v); err == nil {
				return i, j
			}
		}
		return -1, -1
	}
	return -1, -1
}
