package orchestrator

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/melmux/melmux/internal/modeltest"
	"github.com/melmux/melmux/toolexec"
)

// chunks renders OpenAI chunk data lines; each argument is one chunk's
// JSON (a bare delta object is wrapped in a choice).
func chunks(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		if strings.HasPrefix(p, `{"choices"`) || strings.HasPrefix(p, `{"error"`) {
			fmt.Fprintf(&b, "data: %s\n\n", p)
			continue
		}
		fmt.Fprintf(&b, "data: {\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":null}]}\n\n", p)
	}
	return b.String()
}

const (
	oaFinishTools = `{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`
	oaFinishStop  = `{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`
	oaUsage       = `{"choices":[],"usage":{"prompt_tokens":11,"completion_tokens":3,"total_tokens":14}}`
	oaDone        = "data: [DONE]\n\n"
)

// The pitfalls of the servers that speak chat completions, each a stream
// that a naive reader gets wrong.
func TestOpenAIStreamPitfalls(t *testing.T) {
	bigArg := strings.Repeat("y", 100<<10)
	runStreamCases(t, ProviderOpenAI, "/v1", []streamCase{
		{
			name: "arguments split into pieces",
			stream: chunks(`{"role":"assistant","content":"ok"}`,
				`{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"read_file","arguments":""}}]}`,
				`{"tool_calls":[{"index":0,"function":{"arguments":"{\"pa"}}]}`,
				`{"tool_calls":[{"index":0,"function":{"arguments":"th\": \"x\"}"}}]}`,
				oaFinishTools, oaUsage) + oaDone,
			text: "ok", calls: []ToolCall{{ID: "a", Name: "read_file", Arguments: `{"path": "x"}`}}, usage: Usage{11, 3},
		},
		{
			name: "fragments of two calls interleaved",
			stream: chunks(
				`{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"read_file","arguments":"{\"path\""}}]}`,
				`{"tool_calls":[{"index":1,"id":"b","type":"function","function":{"name":"grep","arguments":"{\"pattern\""}}]}`,
				`{"tool_calls":[{"index":0,"function":{"arguments":":\"a\"}"}}]}`,
				`{"tool_calls":[{"index":1,"function":{"arguments":":\"b\"}"}}]}`,
				oaFinishTools) + oaDone,
			calls: []ToolCall{{ID: "a", Name: "read_file", Arguments: `{"path":"a"}`}, {ID: "b", Name: "grep", Arguments: `{"pattern":"b"}`}},
		},
		{
			name: "no ids: synthesised, and unique",
			stream: chunks(
				`{"tool_calls":[{"index":0,"type":"function","function":{"name":"list_panes","arguments":"{}"}}]}`,
				`{"tool_calls":[{"index":1,"type":"function","function":{"name":"recall","arguments":"{}"}}]}`,
				oaFinishTools) + oaDone,
			calls: []ToolCall{{Name: "list_panes", Arguments: "{}"}, {Name: "recall", Arguments: "{}"}},
		},
		{
			name: `"" arguments mean {}`,
			stream: chunks(`{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"list_panes","arguments":""}}]}`,
				oaFinishTools) + oaDone,
			calls: []ToolCall{{ID: "a", Name: "list_panes", Arguments: "{}"}},
		},
		{
			name: "finish_reason stop with calls still wants the tools",
			stream: chunks(`{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"recall","arguments":"{}"}}]}`,
				oaFinishStop) + oaDone,
			calls: []ToolCall{{ID: "a", Name: "recall", Arguments: "{}"}},
		},
		{
			name: "Ollama: no index, each call whole",
			stream: chunks(
				`{"tool_calls":[{"id":"o1","function":{"name":"read_file","arguments":"{\"path\":\"a\"}"}}]}`,
				`{"tool_calls":[{"id":"o2","function":{"name":"read_file","arguments":"{\"path\":\"b\"}"}}]}`,
				oaFinishStop) + oaDone,
			calls: []ToolCall{{ID: "o1", Name: "read_file", Arguments: `{"path":"a"}`}, {ID: "o2", Name: "read_file", Arguments: `{"path":"b"}`}},
		},
		{
			name: "Ollama: index 0 for every call",
			stream: chunks(
				`{"tool_calls":[{"index":0,"id":"o1","function":{"name":"read_file","arguments":"{\"path\":\"a\"}"}}]}`,
				`{"tool_calls":[{"index":0,"id":"o2","function":{"name":"grep","arguments":"{\"pattern\":\"b\"}"}}]}`,
				oaFinishStop) + oaDone,
			calls: []ToolCall{{ID: "o1", Name: "read_file", Arguments: `{"path":"a"}`}, {ID: "o2", Name: "grep", Arguments: `{"pattern":"b"}`}},
		},
		{
			name: "index 0 for every call and no ids, in one chunk",
			stream: chunks(
				`{"tool_calls":[{"index":0,"function":{"name":"read_file","arguments":"{\"path\":\"a\"}"}},{"index":0,"function":{"name":"read_file","arguments":"{\"path\":\"b\"}"}}]}`,
				oaFinishStop) + oaDone,
			calls: []ToolCall{{Name: "read_file", Arguments: `{"path":"a"}`}, {Name: "read_file", Arguments: `{"path":"b"}`}},
		},
		{
			name: "id and name repeated on every piece",
			stream: chunks(
				`{"tool_calls":[{"index":0,"id":"a","function":{"name":"read_file","arguments":""}}]}`,
				`{"tool_calls":[{"index":0,"id":"a","function":{"name":"read_file","arguments":"{\"path\":"}}]}`,
				`{"tool_calls":[{"index":0,"id":"a","function":{"name":"read_file","arguments":"\"a\"}"}}]}`,
				oaFinishTools) + oaDone,
			calls: []ToolCall{{ID: "a", Name: "read_file", Arguments: `{"path":"a"}`}},
		},
		{
			name: "arguments sent as an object",
			stream: chunks(`{"tool_calls":[{"index":0,"id":"a","function":{"name":"grep","arguments":{"pattern":"x"}}}]}`,
				oaFinishTools) + oaDone,
			calls: []ToolCall{{ID: "a", Name: "grep", Arguments: `{"pattern":"x"}`}},
		},
		{
			name: "CRLF, comments, and arguments on a line over 64 KiB",
			stream: strings.ReplaceAll(": OPENROUTER PROCESSING\n\n"+chunks(
				`{"tool_calls":[{"index":0,"id":"a","function":{"name":"write_file","arguments":"{\"content\":\"`+bigArg+`\"}"}}]}`,
				oaFinishTools)+oaDone, "\n", "\r\n"),
			calls: []ToolCall{{ID: "a", Name: "write_file", Arguments: `{"content":"` + bigArg + `"}`}},
		},
		{
			name:   "usage only in the last chunk, with empty choices",
			stream: chunks(`{"content":"hi"}`, oaFinishStop, oaUsage) + oaDone,
			text:   "hi", usage: Usage{11, 3},
		},
		{
			name:   "a clean end after finish_reason, without [DONE]",
			stream: chunks(`{"content":"hi"}`, oaFinishStop),
			text:   "hi",
		},
	})
}

func TestOpenAIStreamFailures(t *testing.T) {
	runFailCases(t, ProviderOpenAI, "/v1", []failCase{
		{"broken before [DONE]: no calls",
			chunks(`{"tool_calls":[{"index":0,"id":"a","function":{"name":"recall","arguments":"{}"}}]}`),
			"the stream ended before [DONE]"},
		{"an error chunk", chunks(`{"content":"hi"}`, `{"error":{"message":"context length exceeded"}}`), "context length exceeded"},
		{"a call without a name", chunks(`{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}`, oaFinishTools) + oaDone, "a tool call came without a name"},
	})
}

// The request: POST {base}/chat/completions with stream and usage asked
// for, tools wrapped as functions, calls and results in OpenAI's shape.
func TestOpenAIRequestShape(t *testing.T) {
	srv, p, _ := fakeEndpoint(t, modeltest.OpenAI, modeltest.Leg{Text: "ok"})
	req := conversation(toolexec.RoleLead)
	req.Messages = append(req.Messages, Message{Role: "assistant", ToolCalls: []ToolCall{{ID: "c3", Name: "recall", Arguments: "{}"}}},
		Message{Role: "tool", ToolCallID: "c3", Content: "none"})
	if _, _, err := runLeg(t, p, req); err != nil {
		t.Fatal(err)
	}
	got := srv.Requests()[0]
	if got.Path != "/v1/chat/completions" || got.Header.Get("Authorization") != "Bearer sk-test" || got.Role != "lead" {
		t.Errorf("path %s, auth %q, role %s", got.Path, got.Header.Get("Authorization"), got.Role)
	}
	body, _ := json.Marshal(got.Body)
	for _, want := range []string{
		`"stream":true`, `"stream_options":{"include_usage":true}`,
		`{"content":"reading","role":"assistant","tool_calls":[{"function":{"arguments":"{\"path\":\"a.txt\"}","name":"read_file"},"id":"c1","type":"function"}`,
		`{"content":"alpha","role":"tool","tool_call_id":"c1"}`,
		// An assistant message that only calls tools has null content.
		`{"content":null,"role":"assistant","tool_calls":[{"function":{"arguments":"{}","name":"recall"},"id":"c3","type":"function"}]}`,
		`"tools":[{"function":{"description":"Read a text file`, `"required":["path"],"type":"object"}},"type":"function"}`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("body lacks %s\n%s", want, body)
		}
	}
}
