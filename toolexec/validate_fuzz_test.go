package toolexec

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzArguments feeds arbitrary argument text to every tool's validation,
// and the accepted calls of the read-only tools to the executor: never a
// panic; what is accepted is exactly what the schema allows (declared
// types, enums, required keys, size limits); accepted arguments, encoded
// again, validate to the same values; an error names the tool and quotes
// at most a short prefix of what was sent. docs/testing.md gives the
// command for a long run.
func FuzzArguments(f *testing.F) {
	defs := Definitions(RoleLead)
	for i, d := range defs {
		f.Add(uint8(i), exampleArgs(d))
		f.Add(uint8(i), "")
		f.Add(uint8(i), "null")
	}
	for _, seed := range []string{
		`{"path":"a.txt","offset":3,"limit":10.0}`, `{"path":"a.txt","offset":"3"}`, `{"pane":1e3,"text":"x"}`,
		`{"layout":"sideways","task":"t"}`, `{"replace_all":1e400,"path":"p","old_string":"a","new_string":"b"}`,
		`{"path":"\u0000"}`, `{"a":1}{"b":2}`, `[1,2]`, `{"pattern":"` + strings.Repeat("x", 5000) + `"}`,
		`{"path":"x","path":"y"}`, `{"limit":9223372036854775808}`, `{"limit":-1e400}`, "{\"path\":\"\xff\"}",
		`{"pattern":"(a|b)*\\b"}`, `{"pattern":"**/{a,b}[x-"}`, `{"path":null}`,
	} {
		for _, tool := range []string{"read_file", "grep", "find_files", "list_dir", "edit_file", "send_keys", "spawn_agent"} {
			f.Add(uint8(slices.IndexFunc(defs, func(d ToolDef) bool { return d.Name == tool })), seed)
		}
	}
	root := f.TempDir()
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("one\ntwo\n"), 0o644)
	ex := &Executor{Root: root, Role: RoleBase}
	f.Fuzz(func(t *testing.T, tool uint8, arguments string) {
		def := defs[int(tool)%len(defs)]
		a, err := parseArgs(def, arguments)
		if err != nil {
			msg := err.Error()
			if !strings.HasPrefix(msg, def.Name+": ") {
				t.Fatalf("error does not name the tool: %q", msg)
			}
			if len(msg) > 1000 {
				t.Fatalf("error of %d bytes for %d bytes of arguments", len(msg), len(arguments))
			}
			return
		}
		checkArgs(t, def, a)
		again, err := json.Marshal(map[string]any(a))
		if err != nil {
			t.Fatalf("accepted arguments do not encode: %v", err)
		}
		b, err := parseArgs(def, string(again))
		if err != nil {
			t.Fatalf("%s: accepted %q, but not its re-encoding %s: %v", def.Name, arguments, again, err)
		}
		if !reflect.DeepEqual(a, b) && utf8.ValidString(arguments) {
			t.Fatalf("%s: %q gave %v, its re-encoding %v", def.Name, arguments, a, b)
		}
		switch def.Name {
		case "read_file", "list_dir", "grep", "find_files":
			ex.Run(context.Background(), def.Name, arguments)
		}
	})
}

// checkArgs asserts that validated arguments obey the schema.
func checkArgs(t *testing.T, def ToolDef, a args) {
	t.Helper()
	for key, v := range a {
		p, ok := def.Parameters.property(key)
		if !ok {
			t.Fatalf("%s: accepted unknown argument %q", def.Name, key)
		}
		switch p.Type {
		case "string":
			s, ok := v.(string)
			if !ok {
				t.Fatalf("%s.%s: %T, want a string", def.Name, key, v)
			}
			if limit := argLimits[def.Name+"."+key]; len(s) > limit {
				t.Fatalf("%s.%s: %d bytes accepted, limit %d", def.Name, key, len(s), limit)
			}
			if len(p.Enum) > 0 && !advisoryEnum[def.Name+"."+key] && !contains(p.Enum, s) {
				t.Fatalf("%s.%s: %q accepted outside the enum", def.Name, key, s)
			}
		case "integer":
			if _, ok := v.(int64); !ok {
				t.Fatalf("%s.%s: %T, want int64", def.Name, key, v)
			}
		case "boolean":
			if _, ok := v.(bool); !ok {
				t.Fatalf("%s.%s: %T, want bool", def.Name, key, v)
			}
		}
	}
	for _, req := range def.Parameters.Required {
		if _, ok := a[req]; !ok {
			t.Fatalf("%s: accepted without required %q", def.Name, req)
		}
	}
}
