package orchestrator

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/melmux/melmux/internal/modeltest"
	"github.com/melmux/melmux/toolexec"
)

// The request is the relay protocol's bytes: headers, and a body whose
// tools are the definitions verbatim.
func TestRelayRequestBytes(t *testing.T) {
	var got *http.Request
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Clone(r.Context())
		body, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: done\ndata: {}\n\n")
	}))
	defer srv.Close()
	p := against(t, ProviderRelay, srv.URL+"/v1/agent", RetryPolicy{})
	req := conversation(toolexec.RoleLead)
	if _, _, err := runLeg(t, p, req); err != nil {
		t.Fatal(err)
	}
	if got.Method != "POST" || got.URL.Path != "/v1/agent" || got.Header.Get("Content-Type") != "application/json" ||
		got.Header.Get("Accept") != "text/event-stream" || got.Header.Get("Authorization") != "Bearer sk-test" {
		t.Errorf("%s %s with headers %v", got.Method, got.URL.Path, got.Header)
	}
	var decoded struct {
		Model    string            `json:"model"`
		ToolRole string            `json:"tool_role"`
		Messages []Message         `json:"messages"`
		Tools    []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(body, &decoded); err != nil {
		t.Fatal(err)
	}
	if decoded.Model != "test-model" || decoded.ToolRole != "lead" || len(decoded.Messages) != len(req.Messages) {
		t.Errorf("body %s", body)
	}
	wantTool, _ := json.Marshal(req.Tools[0])
	if string(decoded.Tools[0]) != string(wantTool) {
		t.Errorf("first tool %s, want the definition verbatim %s", decoded.Tools[0], wantTool)
	}
	if !strings.Contains(string(body), `{"role":"tool","content":"alpha","tool_call_id":"c1"}`) ||
		!strings.Contains(string(body), `"tool_calls":[{"id":"c1","name":"read_file","arguments":"{\"path\":\"a.txt\"}"}`) {
		t.Errorf("messages not in the wire shape: %s", body)
	}
}

func TestRelayNoTokenNoAuthorization(t *testing.T) {
	srv := modeltest.New(t, modeltest.Relay, []modeltest.Leg{{Text: "hi"}})
	p, err := NewProvider(Settings{Provider: ProviderRelay, Model: "m", BaseURL: srv.URL()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := runLeg(t, p, Request{}); err != nil {
		t.Fatal(err)
	}
	if h := srv.Requests()[0].Header.Get("Authorization"); h != "" {
		t.Errorf("Authorization %q sent without a token", h)
	}
}

func TestRelayStreamShapes(t *testing.T) {
	runStreamCases(t, ProviderRelay, "", []streamCase{
		{
			name: "events named by their type field",
			stream: "data: {\"type\":\"delta\",\"text\":\"he\"}\n\n" +
				"data: {\"type\":\"delta\",\"text\":\"llo\"}\n\n" +
				"data: {\"type\":\"done\",\"usage\":{\"input_tokens\":3,\"output_tokens\":4}}\n\n",
			text: "hello", usage: Usage{3, 4},
		},
		{
			name: "unknown events and comments ignored",
			stream: ": keep-alive\n\nevent: ping\ndata: not json\n\nevent: status\ndata: {\"text\":\"no\"}\n\n" +
				"data: {\"type\":\"thinking\",\"text\":\"no\"}\n\nevent: delta\ndata: {\"text\":\"yes\"}\n\nevent: done\ndata: {}\n\n",
			text: "yes",
		},
		{
			name: "empty arguments, missing ids, OpenAI-style usage",
			stream: "event: tool_calls\ndata: {\"calls\":[{\"name\":\"list_panes\",\"arguments\":\"\"},{\"name\":\"recall\"}," +
				"{\"id\":\"x\",\"name\":\"read_file\",\"arguments\":\"{\\\"path\\\":\\\"a\\\"}\"}],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":2}}\n\n",
			calls: []ToolCall{{Name: "list_panes", Arguments: "{}"}, {Name: "recall", Arguments: "{}"}, {ID: "x", Name: "read_file", Arguments: `{"path":"a"}`}},
			usage: Usage{9, 2},
		},
		{
			name:   "arguments sent as an object",
			stream: "event: tool_calls\ndata: {\"calls\":[{\"id\":\"x\",\"name\":\"grep\",\"arguments\":{\"pattern\":\"a\"}}]}\n\n",
			calls:  []ToolCall{{ID: "x", Name: "grep", Arguments: `{"pattern":"a"}`}},
		},
		{
			name:   "CRLF",
			stream: "event: delta\r\ndata: {\"text\":\"a\"}\r\n\r\nevent: done\r\ndata: {}\r\n\r\n",
			text:   "a",
		},
	})
}

func TestRelayStreamFailures(t *testing.T) {
	runFailCases(t, ProviderRelay, "", []failCase{
		{"error event", "event: delta\ndata: {\"text\":\"hi\"}\n\nevent: error\ndata: {\"message\":\"quota exceeded for today\"}\n\n", "the relay reported an error: quota exceeded for today"},
		{"error named by type", "data: {\"type\":\"error\",\"message\":\"bad tools\"}\n\n", "bad tools"},
		{"no done", "event: delta\ndata: {\"text\":\"hi\"}\n\n", "the stream ended before its done or tool_calls event"},
		{"a known event that is not JSON", "event: delta\ndata: hi\n\n", `event "delta": data is not JSON`},
	})
}
