package toolexec

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParseArgs feeds arbitrary argument text to every tool's validation:
// it must never panic; what it accepts must be exactly what the schema
// allows (declared types, enums, required keys, size limits); and the
// accepted arguments, encoded again, must validate to the same values.
// docs/testing.md gives the command for a long run.
func FuzzParseArgs(f *testing.F) {
	defs := Definitions(RoleLead)
	for i, d := range defs {
		f.Add(uint8(i), exampleArgs(d))
		f.Add(uint8(i), "")
		f.Add(uint8(i), "null")
	}
	for _, seed := range []string{
		`{"path":"a.txt","offset":3,"limit":10.0}`, `{"path":"a.txt","offset":"3"}`, `{"pane":1e3,"text":"x"}`,
		`{"layout":"sideways","task":"t"}`, `{"replace_all":null,"path":"p","old_string":"a","new_string":"b"}`,
		`{"path":"\u0000"}`, `{"a":1}{"b":2}`, `[1,2]`, `{"pattern":"` + strings.Repeat("x", 5000) + `"}`,
		`{"path":"x","path":"y"}`, `{"limit":9223372036854775808}`, `{"limit":-1e400}`, "{\"path\":\"\xff\"}",
	} {
		f.Add(uint8(0), seed)
		f.Add(uint8(14), seed)
	}
	f.Fuzz(func(t *testing.T, tool uint8, arguments string) {
		def := defs[int(tool)%len(defs)]
		a, err := parseArgs(def, arguments)
		if err != nil {
			msg := err.Error()
			if !strings.HasPrefix(msg, def.Name+": ") {
				t.Fatalf("error does not name the tool: %q", msg)
			}
			// Errors quote a prefix of what was sent, never all of it.
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
