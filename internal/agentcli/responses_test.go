package agentcli

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestResponsesTextCallAndAside(t *testing.T) {
	m := newEndpoint(t)
	m.AddRule(Rule{Match: "say hello", Text: "Hello there."})
	m.AddRule(Rule{Match: "run it", Command: "touch done", Text: "It ran."})
	user := func(text string) string {
		return `{"type":"message","role":"user","content":[{"type":"input_text","text":` + mustJSON(text) + `}]}`
	}

	names, data := sseEvents(t, post(t, m.URL()+"/v1/responses", `{"model":"m","stream":true,"input":[`+
		user("<environment_context>x</environment_context>")+`,`+user("please say hello")+`]}`))
	if got := strings.Join(names, " "); got != "response.created response.output_item.added response.output_text.delta response.output_text.delta response.output_text.delta response.output_item.done response.completed" {
		t.Fatalf("events: %s", got)
	}
	var text strings.Builder
	for _, d := range data {
		if d["type"] == "response.output_text.delta" {
			text.WriteString(d["delta"].(string))
		}
	}
	if text.String() != "Hello there." {
		t.Errorf("streamed %q", text.String())
	}

	_, data = sseEvents(t, post(t, m.URL()+"/v1/responses", `{"model":"m","stream":true,"input":[`+user("run it")+`]}`))
	call := data[len(data)-2]["item"].(map[string]any)
	var args map[string]string
	if err := json.Unmarshal([]byte(call["arguments"].(string)), &args); err != nil {
		t.Fatal(err)
	}
	if call["type"] != "function_call" || call["name"] != "exec_command" || args["cmd"] != "touch done" || args["sandbox_permissions"] != "require_escalated" {
		t.Fatalf("call %v", call)
	}
	id := call["call_id"].(string)
	var resp struct {
		Output []struct {
			Content []struct{ Text string }
		}
	}
	out := post(t, m.URL()+"/v1/responses", `{"model":"m","input":[`+user("run it")+`,
		{"type":"function_call","call_id":"`+id+`","name":"exec_command","arguments":"{}"},
		{"type":"function_call_output","call_id":"`+id+`","output":"ok"}]}`)
	if err := json.NewDecoder(out.Body).Decode(&resp); err != nil || resp.Output[0].Content[0].Text != "It ran." {
		t.Fatalf("after the call's output: %+v %v", resp, err)
	}

	out = post(t, m.URL()+"/v1/responses", `{"model":"m","input":[`+user("say hello, name this thread")+`],
		"text":{"format":{"type":"json_schema","schema":{"required":["title"]}}}}`)
	if err := json.NewDecoder(out.Body).Decode(&resp); err != nil || resp.Output[0].Content[0].Text != `{"title":"Scripted title"}` {
		t.Fatalf("aside: %+v %v", resp, err)
	}
	reqs := m.Requests()
	if len(reqs) != 4 || reqs[0].Prompt != "please say hello" || reqs[2].ToolUseID != id || !reqs[3].Aside || reqs[1].API != "responses" {
		t.Errorf("recorded %+v", reqs)
	}
}

func mustJSON(v any) string {
	raw, _ := json.Marshal(v)
	return string(raw)
}
