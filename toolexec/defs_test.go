package toolexec

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// documentTools is the product document's ToolDef list (tool-definitions.txt),
// in its order: the definitions must match it in names, parameter names,
// types, required lists and enums.
const documentTools = `[
{"name":"read_file",  "parameters":{"type":"object","required":["path"],
  "properties":{"path":{"type":"string"},"offset":{"type":"integer"},"limit":{"type":"integer"}}}},
{"name":"list_dir",   "parameters":{"type":"object","properties":{"path":{"type":"string"}}}},
{"name":"grep",       "parameters":{"type":"object","required":["pattern"],"properties":{"pattern":{"type":"string"}}}},
{"name":"find_files", "parameters":{"type":"object","required":["pattern"],"properties":{"pattern":{"type":"string"}}}},
{"name":"write_file", "parameters":{"type":"object","required":["path","content"],
  "properties":{"path":{"type":"string"},"content":{"type":"string"}}}},
{"name":"edit_file",  "parameters":{"type":"object","required":["path","old_string","new_string"],
  "properties":{"path":{"type":"string"},"old_string":{"type":"string"},
    "new_string":{"type":"string"},"replace_all":{"type":"boolean"}}}},
{"name":"run_command","parameters":{"type":"object","required":["command"],"properties":{"command":{"type":"string"}}}},
{"name":"web_search", "parameters":{"type":"object","required":["query"],"properties":{"query":{"type":"string"}}}},
{"name":"write_plan", "parameters":{"type":"object","required":["title","markdown"],
  "properties":{"title":{"type":"string"},"markdown":{"type":"string"}}}},
{"name":"create_pdf", "parameters":{"type":"object","required":["content","output_path"],
  "properties":{"content":{"type":"string"},"output_path":{"type":"string"},"title":{"type":"string"}}}},
{"name":"remember","parameters":{"type":"object","required":["note"],"properties":{"note":{"type":"string"}}}},
{"name":"recall",  "parameters":{"type":"object","properties":{}}},
{"name":"open_pane",  "parameters":{"type":"object","required":["layout"],
  "properties":{"layout":{"type":"string","enum":["right","down","tab"]},"command":{"type":"string"}}}},
{"name":"spawn_agent","parameters":{"type":"object","required":["layout","task"],
  "properties":{"layout":{"type":"string","enum":["right","down","tab"]},"model":{"type":"string"},"task":{"type":"string"}}}},
{"name":"send_keys", "parameters":{"type":"object","required":["pane","text"],
  "properties":{"pane":{"type":"integer"},"text":{"type":"string"}}}},
{"name":"send_agent","parameters":{"type":"object","required":["pane","text"],
  "properties":{"pane":{"type":"integer"},"text":{"type":"string"}}}},
{"name":"read_pane", "parameters":{"type":"object","required":["pane"],"properties":{"pane":{"type":"integer"}}}},
{"name":"read_agent","parameters":{"type":"object","required":["pane"],"properties":{"pane":{"type":"integer"}}}},
{"name":"list_panes","parameters":{"type":"object","properties":{}}}
]`

// stripDescriptions reduces marshalled definitions to the document's
// fields, checking on the way that every description is present.
func stripDescriptions(t *testing.T, defs []ToolDef) []any {
	t.Helper()
	data, err := json.Marshal(defs)
	if err != nil {
		t.Fatal(err)
	}
	var list []map[string]any
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatal(err)
	}
	out := make([]any, len(list))
	for i, d := range list {
		desc, _ := d["description"].(string)
		if len(desc) < 40 {
			t.Errorf("%v: description too thin for a model to act on: %q", d["name"], desc)
		}
		delete(d, "description")
		params := d["parameters"].(map[string]any)
		for name, p := range params["properties"].(map[string]any) {
			pm := p.(map[string]any)
			if pm["description"] == nil {
				t.Errorf("%v.%s has no description", d["name"], name)
			}
			delete(pm, "description")
		}
		out[i] = d
	}
	return out
}

func TestDefinitionsMatchDocument(t *testing.T) {
	var doc []any
	if err := json.Unmarshal([]byte(documentTools), &doc); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		role Role
		n    int
	}{{RoleBase, 10}, {RoleWorker, 12}, {RoleLead, 19}, {"orchestrator", 19}, {"", 19}} {
		got := stripDescriptions(t, Definitions(tc.role))
		if !reflect.DeepEqual(got, doc[:tc.n]) {
			g, _ := json.Marshal(got)
			t.Errorf("role %q: definitions differ from the document:\n got %s\nwant %s", tc.role, g, mustJSON(doc[:tc.n]))
		}
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestSchemaMarshalShape(t *testing.T) {
	defs := Definitions(RoleLead)
	data, err := json.Marshal(defs[0])
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	// Key order follows the document: name, description, parameters; then
	// type, required, properties; properties in document order.
	for _, ordered := range [][]string{
		{`"name"`, `"description"`, `"parameters"`},
		{`"type":"object"`, `"required":["path"]`, `"properties"`},
		{`"path"`, `"offset"`, `"limit"`},
	} {
		last := -1
		for _, k := range ordered {
			i := strings.Index(s, k)
			if i <= last {
				t.Errorf("%s out of order in %s", k, s)
			}
			last = i
		}
	}
	recall, _ := json.Marshal(defs[11])
	if !strings.Contains(string(recall), `"parameters":{"type":"object","properties":{}}`) {
		t.Errorf("recall parameters: %s", recall)
	}
	// Round trip.
	var back []ToolDef
	all, _ := json.Marshal(defs)
	if err := json.Unmarshal(all, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, defs) {
		t.Errorf("round trip changed the definitions")
	}
}

func TestParseRole(t *testing.T) {
	for in, want := range map[string]Role{"base": RoleBase, "worker": RoleWorker, "lead": RoleLead,
		"orchestrator": RoleLead, " Lead ": RoleLead} {
		got, err := ParseRole(in)
		if err != nil || got != want {
			t.Errorf("ParseRole(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "admin", "leader"} {
		_, err := ParseRole(bad)
		if !errors.Is(err, ErrUnknownRole) || !strings.Contains(err.Error(), "base, worker, lead, orchestrator") {
			t.Errorf("ParseRole(%q) error = %v", bad, err)
		}
	}
}

func TestRoleGating(t *testing.T) {
	w := newWorkspace(t)
	w.write("a.txt", "hello\n")
	w.ex.Role = RoleBase
	w.fails("remember", obj{"note": "x"}, "remember is not allowed for role base", "read_file", "create_pdf")
	w.fails("open_pane", obj{"layout": "tab"}, "not allowed for role base")
	w.ok("read_file", obj{"path": "a.txt"})

	w2 := newWorkspace(t)
	w2.ex.Role = RoleWorker
	text := w2.fails("list_panes", "", "list_panes is not allowed for role worker")
	mustContain(t, text, "remember", "recall")
	if strings.Contains(text, "open_pane") {
		t.Errorf("worker refusal lists a lead tool: %s", text)
	}
	w2.ok("recall", "")

	w3 := newWorkspace(t)
	w3.ex.Role = "admin"
	w3.fails("read_file", obj{"path": "x"}, "unknown tool role", "base, worker, lead")
}

func TestArgumentValidation(t *testing.T) {
	w := newWorkspace(t)
	w.write("a.txt", "one\ntwo\n")
	cases := []struct {
		name, tool, args string
		want             []string
	}{
		{"unknown tool", "rm_rf", `{}`, []string{`unknown tool "rm_rf"`, "read_file", "list_panes"}},
		{"not json", "read_file", `{path: a.txt}`, []string{"arguments must be a JSON object", `{"path":"..."}`}},
		{"array", "read_file", `["a.txt"]`, []string{"arguments must be a JSON object"}},
		{"null means no arguments", "read_file", `null`, []string{`missing required argument "path"`}},
		{"trailing text", "read_file", `{"path":"a.txt"} {}`, []string{"extra text"}},
		{"missing required", "read_file", `{}`, []string{`missing required argument "path"`}},
		{"missing with empty string", "edit_file", ``, []string{`missing required argument "path"`, "path, old_string, new_string"}},
		{"wrong type string", "read_file", `{"path":12}`, []string{`"path" must be a string`, "number 12"}},
		{"wrong type integer", "read_file", `{"path":"a.txt","offset":"3"}`, []string{`"offset" must be an integer`, `string "3"`}},
		{"fraction", "read_file", `{"path":"a.txt","limit":1.5}`, []string{`"limit" must be an integer`, "1.5"}},
		{"wrong type bool", "edit_file", `{"path":"a.txt","old_string":"a","new_string":"b","replace_all":"yes"}`, []string{`"replace_all" must be true or false`}},
		{"unknown argument", "grep", `{"pattern":"x","path":"src"}`, []string{`unknown argument "path"`, "arguments: pattern"}},
		{"unknown argument no params", "recall", `{"project":"x"}`, []string{`unknown argument "project"`, "arguments: none"}},
		{"required null", "grep", `{"pattern":null}`, []string{`missing required argument "pattern"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w.t = t
			w.fails(tc.tool, tc.args, tc.want...)
		})
	}
	w.t = t
	// Whole floats and null optionals are accepted.
	mustContain(t, w.ok("read_file", `{"path":"a.txt","offset":1.0,"limit":null}`), "2\ttwo")
}

type fakePanes struct {
	calls []string
	err   error
}

func (f *fakePanes) Call(_ context.Context, name string, args json.RawMessage) (string, error) {
	f.calls = append(f.calls, name+" "+string(args))
	if f.err != nil {
		return "", f.err
	}
	return "pane 7", nil
}

func TestPaneTools(t *testing.T) {
	w := newWorkspace(t)
	w.fails("open_pane", obj{"layout": "right"}, "need a melmux session", "MELMUX_SOCKET")
	f := &fakePanes{}
	w.ex.Panes = f
	if got := w.ok("open_pane", obj{"layout": "right", "command": "htop"}); got != "pane 7" {
		t.Errorf("open_pane result %q", got)
	}
	w.ok("send_keys", `{"pane":3,"text":"ls\n"}`)
	w.ok("list_panes", "")
	want := []string{`open_pane {"command":"htop","layout":"right"}`, `send_keys {"pane":3,"text":"ls\n"}`, `list_panes {}`}
	if !reflect.DeepEqual(f.calls, want) {
		t.Errorf("calls = %q, want %q", f.calls, want)
	}
	// Validation happens before the call.
	w.fails("send_keys", `{"pane":"3","text":"x"}`, `"pane" must be an integer`)
	if len(f.calls) != 3 {
		t.Errorf("an invalid call reached PaneTools: %q", f.calls)
	}
	// The layout enum is advisory: a stray value reaches the session, which
	// opens a tab and says so; any other enum would be refused here.
	w.ok("open_pane", obj{"layout": "left"})
	if last := f.calls[len(f.calls)-1]; last != `open_pane {"layout":"left"}` {
		t.Errorf("a stray layout did not reach the session: %q", last)
	}
	w.fails("open_pane", obj{"layout": 3}, `"layout" must be a string`)
	// A pane id below 1 is the model's mistake, said in its argument's words
	// before the session is asked.
	before := len(f.calls)
	for _, d := range paneToolDefs {
		if _, ok := d.Parameters.property("pane"); ok {
			w.fails(d.Name, obj{"pane": -1}, d.Name+`: argument "pane" must be a pane id, 1 or more (list_panes shows them), got -1`)
			w.fails(d.Name, obj{"pane": 0}, "got 0")
		}
	}
	if len(f.calls) != before {
		t.Errorf("a pane id below 1 reached PaneTools: %q", f.calls[before:])
	}
	// An error that already names the tool is not prefixed twice.
	f.err = errors.New(`read_pane: parameter "pane" is bad`)
	if got := w.fails("read_pane", obj{"pane": 4}); strings.Count(got, "read_pane:") != 1 {
		t.Errorf("error names the tool twice: %q", got)
	}
	f.err = errors.New("pane 9 does not exist (panes: 1, 3)")
	w.fails("read_pane", obj{"pane": 9}, "read_pane: pane 9 does not exist (panes: 1, 3)")
}

type panicPanes struct{}

func (panicPanes) Call(context.Context, string, json.RawMessage) (string, error) { panic("boom") }

func TestRunNeverPanics(t *testing.T) {
	w := newWorkspace(t)
	w.ex.Panes = panicPanes{}
	w.fails("list_panes", "", "internal error", "boom")
}

// The pane tools say what waits and what does not, the only way a model
// learns it without spending calls to find out.
func TestPaneToolsSayWhatWaits(t *testing.T) {
	for name, wants := range map[string][]string{
		"send_agent": {"return at once, without waiting for the reply", "turn id", "waiting on a question", "keys"},
		"read_agent": {"Wait (up to a bound)", "claude, codex or gemini", "whole reply", "question", "send_keys"},
		"send_keys":  {"answer an agent's question", "whether the question went away"},
		"open_pane":  {"drawn that screen, ready for send_agent"},
	} {
		d, ok := lookup(name)
		if !ok {
			t.Fatalf("no tool %s", name)
		}
		for _, w := range wants {
			if !strings.Contains(d.Description, w) {
				t.Errorf("%s's description lacks %q: %s", name, w, d.Description)
			}
		}
	}
}
