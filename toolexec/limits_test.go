package toolexec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every string argument of every tool has a size limit.
func TestEveryStringArgumentHasALimit(t *testing.T) {
	seen := map[string]bool{}
	for _, d := range Definitions(RoleLead) {
		for _, p := range d.Parameters.Properties {
			key := d.Name + "." + p.Name
			seen[key] = true
			if p.Type == "string" && argLimits[key] == 0 {
				t.Errorf("%s has no size limit", key)
			}
		}
	}
	for key := range argLimits {
		if !seen[key] {
			t.Errorf("argLimits names %s, which is no argument", key)
		}
	}
}

// An oversized argument is refused before any work, and the error quotes a
// short prefix of it, never the whole.
func TestOversizedArgumentsAreRefusedBriefly(t *testing.T) {
	w := newWorkspace(t)
	w.write("a.txt", "x\n")
	huge := strings.Repeat("(a", 5<<20) // 10 MB
	long := strings.Repeat("p", 1<<20)
	for _, tc := range []struct {
		tool  string
		args  obj
		wants []string
	}{
		{"grep", obj{"pattern": huge}, []string{`argument "pattern" is 10485760 bytes, over the limit of 4 KiB`, `"(a(a(a`}},
		{"find_files", obj{"pattern": long}, []string{`"pattern" is 1048576 bytes, over the limit of 4 KiB`}},
		{"read_file", obj{"path": long}, []string{`"path" is 1048576 bytes, over the limit of 4 KiB`}},
		{"write_file", obj{"path": "b.txt", "content": strings.Repeat("c", MaxContentBytes+1)}, []string{`"content" is 33554433 bytes, over the limit of 32 MiB`}},
		{"run_command", obj{"command": strings.Repeat("e", 200<<10)}, []string{`"command" is 204800 bytes, over the limit of 131071 bytes`}},
		{"send_keys", obj{"pane": 1, "text": long}, []string{`over the limit of 256 KiB`}},
		// A worker's task travels in one environment variable (not its
		// world-readable command line), which Linux bounds at 128 KiB.
		{"spawn_agent", obj{"layout": "tab", "task": strings.Repeat("t", 200<<10)}, []string{`"task" is 204800 bytes, over the limit of 131053 bytes`}},
		{"read_file", obj{long: 1}, []string{`unknown argument "pppp`, `(1048576 bytes)`}},
		{"open_pane", obj{"layout": huge[:5000]}, []string{`over the limit of 2 KiB`}},
	} {
		text := w.fails(tc.tool, tc.args, tc.wants...)
		if len(text) > 600 {
			t.Errorf("%s: the error is %d bytes: %s", tc.tool, len(text), clip(text, 300))
		}
	}
	if _, err := os.Stat(filepath.Join(w.root, "b.txt")); err == nil {
		t.Error("an oversized write_file wrote")
	}
	// A grep pattern within the limit still gets a short error from the
	// regexp compiler, which quotes the expression it rejects.
	text := w.fails("grep", obj{"pattern": strings.Repeat("(a", 2000)}, "invalid RE2 pattern", "missing closing )")
	if len(text) > 600 {
		t.Errorf("regexp error is %d bytes: %s", len(text), clip(text, 300))
	}
	r := w.ex.Run(t.Context(), "write_file", `{"path":"x","content":"`+strings.Repeat("x", MaxArgumentsBytes)+`"}`)
	mustContain(t, r.Text, "arguments are 100663321 bytes, over the limit of 96 MiB")
}

func TestEditFileSizeLimits(t *testing.T) {
	w := newWorkspace(t)
	big := filepath.Join(w.root, "big.txt")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	// Sparse: no disk is used, but the size is over the limit.
	if err := f.Truncate(MaxEditFileBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	w.fails("edit_file", obj{"path": "big.txt", "old_string": "a", "new_string": "b"},
		"edit_file: big.txt is 64.0 MiB: too big to edit (edit_file changes files up to 64 MiB", "run_command")

	// replace_all that would multiply a file past the limit is refused
	// before the new content is built.
	w.write("many.txt", strings.Repeat("a\n", 1000))
	w.fails("edit_file", obj{"path": "many.txt", "old_string": "a", "new_string": strings.Repeat("b", 100<<10), "replace_all": true},
		"the edited many.txt would be 97.7 MiB, over the 64 MiB edit_file writes")
	if got := w.read("many.txt"); got != strings.Repeat("a\n", 1000) {
		t.Error("a refused edit changed the file")
	}
	mustContain(t, w.ok("edit_file", obj{"path": "many.txt", "old_string": "a", "new_string": "b", "replace_all": true}),
		"1000 replacements, at lines 1, 2, 3", "20, … (980 more)")
}
