package toolexec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

// args are a call's arguments after validation against the tool's schema:
// each value is a string, an int64 or a bool, as the schema says.
type args map[string]any

func (a args) str(name string) string {
	s, _ := a[name].(string)
	return s
}

func (a args) integer(name string, def int64) int64 {
	if n, ok := a[name].(int64); ok {
		return n
	}
	return def
}

func (a args) boolean(name string) bool {
	b, _ := a[name].(bool)
	return b
}

// parseArgs checks a model's JSON-encoded arguments against the tool's schema:
// an object, no unknown keys, every required key present, each value of its
// declared type (and in its enum). "" and null mean {} (no arguments: MCP
// clients send null); a null value counts as absent.
func parseArgs(def ToolDef, arguments string) (args, error) {
	if len(arguments) > MaxArgumentsBytes {
		return nil, fmt.Errorf("%s: arguments are %d bytes, over the limit of %s", def.Name, len(arguments), HumanBytes(MaxArgumentsBytes))
	}
	trimmed := strings.TrimSpace(arguments)
	if trimmed == "" || trimmed == "null" {
		trimmed = "{}"
	}
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(strings.NewReader(trimmed))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil || raw == nil {
		return nil, fmt.Errorf("%s: arguments must be a JSON object such as %s, got %s (%v)",
			def.Name, exampleArgs(def), clip(trimmed, 80), describeJSONError(err, raw == nil))
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: arguments must be a single JSON object, got extra text after it", def.Name)
	}
	out := args{}
	for key, val := range raw {
		p, ok := def.Parameters.property(key)
		if !ok {
			allowed := "none"
			if names := def.Parameters.propertyNames(); len(names) > 0 {
				allowed = strings.Join(names, ", ")
			}
			return nil, fmt.Errorf("%s: unknown argument %s (arguments: %s)", def.Name, quoteArg(key), allowed)
		}
		if bytes.Equal(bytes.TrimSpace(val), []byte("null")) {
			continue
		}
		qualified := def.Name + "." + p.Name
		v, err := decodeValue(p, val, advisoryEnum[qualified], argLimits[qualified])
		if err == nil {
			err = checkMinimum(qualified, v)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: argument %q %w", def.Name, key, err)
		}
		out[key] = v
	}
	for _, req := range def.Parameters.Required {
		if _, ok := out[req]; !ok {
			return nil, fmt.Errorf("%s: missing required argument %q (required: %s)",
				def.Name, req, strings.Join(def.Parameters.Required, ", "))
		}
	}
	return out, nil
}

// advisoryEnum names the arguments whose enum guides the model but is not
// enforced here: the session treats an unknown layout as "tab" and says so in
// the result, the product document's safety net for models that stray.
var advisoryEnum = map[string]bool{"open_pane.layout": true, "spawn_agent.layout": true}

// decodeValue decodes one argument as its property says. limit bounds a
// string's length in bytes; 0 means no limit.
func decodeValue(p Property, val json.RawMessage, advisory bool, limit int) (any, error) {
	switch p.Type {
	case "string":
		var s string
		if err := json.Unmarshal(val, &s); err != nil {
			return nil, fmt.Errorf("must be a string, got %s", jsonKind(val))
		}
		if limit > 0 && len(s) > limit {
			return nil, tooLong(s, limit)
		}
		if len(p.Enum) > 0 && !advisory {
			for _, e := range p.Enum {
				if s == e {
					return s, nil
				}
			}
			return nil, fmt.Errorf("must be one of %s, got %s", strings.Join(p.Enum, ", "), quoteArg(s))
		}
		return s, nil
	case "integer":
		var n json.Number
		d := json.NewDecoder(bytes.NewReader(val))
		d.UseNumber()
		// json.Number would also take a quoted number; the schema says integer.
		if v := bytes.TrimSpace(val); len(v) == 0 || v[0] == '"' || d.Decode(&n) != nil {
			return nil, fmt.Errorf("must be an integer, got %s", jsonKind(val))
		}
		if i, err := n.Int64(); err == nil {
			return i, nil
		}
		// Models sometimes write 10.0; accept a float that is a whole number.
		f, err := n.Float64()
		if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return nil, fmt.Errorf("must be an integer, got %s", clip(string(n), 40))
		}
		return int64(f), nil
	case "boolean":
		var b bool
		if err := json.Unmarshal(val, &b); err != nil {
			return nil, fmt.Errorf("must be true or false, got %s", jsonKind(val))
		}
		return b, nil
	}
	return nil, fmt.Errorf("has unsupported schema type %q", p.Type)
}

func jsonKind(val json.RawMessage) string {
	v := bytes.TrimSpace(val)
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '"':
		return "a string " + clip(string(v), 40)
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean " + string(v)
	case 'n':
		return "null"
	}
	return "the number " + clip(string(v), 40)
}

func describeJSONError(err error, isNull bool) string {
	if err == nil && isNull {
		return "null is not an object"
	}
	if err == nil {
		return "not an object"
	}
	return err.Error()
}

// exampleArgs renders the required arguments as a short JSON example.
func exampleArgs(def ToolDef) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, req := range def.Parameters.Required {
		if i > 0 {
			b.WriteByte(',')
		}
		p, _ := def.Parameters.property(req)
		fmt.Fprintf(&b, "%q:", req)
		switch p.Type {
		case "integer":
			b.WriteString("1")
		case "boolean":
			b.WriteString("true")
		default:
			if len(p.Enum) > 0 {
				fmt.Fprintf(&b, "%q", p.Enum[0])
			} else {
				b.WriteString(`"..."`)
			}
		}
	}
	b.WriteByte('}')
	return b.String()
}

// clip shortens s to at most n bytes (at a rune boundary) with an ellipsis.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
