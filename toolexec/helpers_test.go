package toolexec

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// workspace is a temporary workspace with an executor over it whose
// environment is a private map, so tests never read the process's.
type workspace struct {
	t    *testing.T
	root string
	env  map[string]string
	ex   *Executor
}

func newWorkspace(t *testing.T) *workspace {
	t.Helper()
	root := t.TempDir()
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	w := &workspace{t: t, root: real, env: map[string]string{}}
	w.ex = &Executor{
		Root:       real,
		Role:       RoleLead,
		MemoryPath: filepath.Join(t.TempDir(), "memory.db"),
		Getenv:     func(k string) string { return w.env[k] },
	}
	t.Cleanup(func() { w.ex.Close() })
	return w
}

// write creates files given as path, content pairs.
func (w *workspace) write(pathContent ...string) {
	w.t.Helper()
	for i := 0; i+1 < len(pathContent); i += 2 {
		p := filepath.Join(w.root, filepath.FromSlash(pathContent[i]))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			w.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(pathContent[i+1]), 0o644); err != nil {
			w.t.Fatal(err)
		}
	}
}

func (w *workspace) read(p string) string {
	w.t.Helper()
	data, err := os.ReadFile(filepath.Join(w.root, filepath.FromSlash(p)))
	if err != nil {
		w.t.Fatal(err)
	}
	return string(data)
}

// run calls a tool with arguments given as a Go value (marshalled) or a raw
// JSON string.
func (w *workspace) run(name string, arguments any) Result {
	w.t.Helper()
	var s string
	switch v := arguments.(type) {
	case string:
		s = v
	case nil:
		s = ""
	default:
		b, err := json.Marshal(v)
		if err != nil {
			w.t.Fatal(err)
		}
		s = string(b)
	}
	return w.ex.Run(context.Background(), name, s)
}

// ok asserts a successful result and returns its text.
func (w *workspace) ok(name string, arguments any) string {
	w.t.Helper()
	r := w.run(name, arguments)
	if r.IsError {
		w.t.Fatalf("%s %s: unexpected error result: %s", name, clip(fmt.Sprint(arguments), 300), clip(r.Text, 2000))
	}
	return r.Text
}

// fails asserts an error result containing every fragment.
func (w *workspace) fails(name string, arguments any, fragments ...string) string {
	w.t.Helper()
	r := w.run(name, arguments)
	if !r.IsError {
		w.t.Fatalf("%s %s: want an error result, got: %s", name, clip(fmt.Sprint(arguments), 300), clip(r.Text, 2000))
	}
	for _, f := range fragments {
		if !strings.Contains(r.Text, f) {
			w.t.Errorf("%s %s: error %q does not mention %q", name, clip(fmt.Sprint(arguments), 300), clip(r.Text, 2000), f)
		}
	}
	return r.Text
}

func mustContain(t *testing.T, text string, fragments ...string) {
	t.Helper()
	for _, f := range fragments {
		if !strings.Contains(text, f) {
			t.Errorf("result does not contain %q:\n%s", f, text)
		}
	}
}

type obj = map[string]any
