package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sort"
	"strings"

	"github.com/melmux/melmux/internal/proto"
)

// Command is one entry of the command table.
type Command struct {
	Name string
	// Run executes the command. It returns a JSON-encodable result or an error;
	// a *proto.Error keeps its code, any other error becomes code "failed".
	Run func(ctx context.Context, s *Server, params json.RawMessage) (any, error)
	// Alias marks an old name still answered but no longer listed.
	Alias bool
}

var commands = map[string]*Command{}

// thenResult is a result with something to do once the caller has it: ending
// the session must not close the connection before the reply is written.
type thenResult struct {
	result any
	then   func()
}

// register adds a command; a duplicate name is a programming error caught at start.
func register(c *Command) {
	if _, dup := commands[c.Name]; dup {
		panic("server: command registered twice: " + c.Name)
	}
	commands[c.Name] = c
}

// CommandNames lists the table, sorted.
func CommandNames() []string {
	names := make([]string, 0, len(commands))
	for n, c := range commands {
		if !c.Alias {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// decodeParams decodes params strictly into v: unknown fields and wrong types
// are errors that name the field and what was expected.
func decodeParams(method string, raw json.RawMessage, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		raw = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		var se *json.SyntaxError
		switch {
		case errors.As(err, &te):
			return proto.Errorf(proto.CodeBadParams, "%s: parameter %q must be %s, not %s", method, te.Field, jsonKind(te.Type.Kind().String()), te.Value)
		case errors.As(err, &se):
			return proto.Errorf(proto.CodeBadParams, "%s: params are not valid JSON: %v", method, err)
		case strings.HasPrefix(err.Error(), "json: unknown field"):
			return proto.Errorf(proto.CodeBadParams, "%s: %s (allowed: %s)", method, strings.TrimPrefix(err.Error(), "json: "), fieldNames(v))
		default:
			return proto.Errorf(proto.CodeBadParams, "%s: params must be a JSON object: %v", method, err)
		}
	}
	return nil
}

func jsonKind(k string) string {
	switch k {
	case "int", "int64", "int32", "uint", "uint16":
		return "an integer"
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice":
		return "an array"
	case "struct", "map":
		return "an object"
	}
	return k
}

// paneParam checks a required pane id.
func paneParam(method string, id int) error {
	if id <= 0 {
		return proto.Errorf(proto.CodeBadParams, "%s: parameter \"pane\" is required and must be a positive pane id", method)
	}
	return nil
}

func fieldNames(v any) string {
	names := structJSONNames(v)
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func errorf(code, format string, args ...any) *proto.Error {
	return proto.Errorf(code, format, args...)
}

func unknownMethod(name string) *proto.Error {
	return errorf(proto.CodeUnknownMethod, "unknown method %q (methods: %s)", name, strings.Join(CommandNames(), ", "))
}
