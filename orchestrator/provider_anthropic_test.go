package orchestrator

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/melmux/melmux/internal/modeltest"
	"github.com/melmux/melmux/toolexec"
)

// anEvents renders Anthropic events: each argument is "name data".
func anEvents(evs ...string) string {
	var b strings.Builder
	for _, e := range evs {
		name, data, _ := strings.Cut(e, " ")
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", name, data)
	}
	return b.String()
}

const (
	anStart = `message_start {"type":"message_start","message":{"id":"m","usage":{"input_tokens":20,"cache_read_input_tokens":5,"output_tokens":1}}}`
	anStop  = `message_stop {"type":"message_stop"}`
	anPing  = `ping {"type":"ping"}`
)

func anToolUseEvents(index int, id, name string, pieces ...string) []string {
	evs := []string{fmt.Sprintf(`content_block_start {"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":%q,"name":%q,"input":{}}}`, index, id, name)}
	for _, p := range pieces {
		q, _ := json.Marshal(p)
		evs = append(evs, fmt.Sprintf(`content_block_delta {"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":%s}}`, index, q))
	}
	return append(evs, fmt.Sprintf(`content_block_stop {"type":"content_block_stop","index":%d}`, index))
}

func anText(index int, pieces ...string) []string {
	evs := []string{fmt.Sprintf(`content_block_start {"type":"content_block_start","index":%d,"content_block":{"type":"text","text":""}}`, index)}
	for _, p := range pieces {
		q, _ := json.Marshal(p)
		evs = append(evs, fmt.Sprintf(`content_block_delta {"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":%s}}`, index, q))
	}
	return append(evs, fmt.Sprintf(`content_block_stop {"type":"content_block_stop","index":%d}`, index))
}

func anDelta(stop string, output int) string {
	return fmt.Sprintf(`message_delta {"type":"message_delta","delta":{"stop_reason":%q},"usage":{"output_tokens":%d}}`, stop, output)
}

// anStream renders events given one by one or in slices.
func anStream(parts ...any) string {
	var evs []string
	for _, p := range parts {
		switch v := p.(type) {
		case string:
			evs = append(evs, v)
		case []string:
			evs = append(evs, v...)
		}
	}
	return anEvents(evs...)
}

func TestAnthropicStreams(t *testing.T) {
	runStreamCases(t, ProviderAnthropic, "", []streamCase{
		{
			name: "text, then a call whose input comes in pieces after an empty first one; pings anywhere",
			stream: anStream(anStart, anPing, anText(0, "Let me ", "look."), anPing,
				anToolUseEvents(1, "toolu_1", "read_file", "", `{"path": `, `"a.txt"}`), anDelta("tool_use", 40), anStop),
			text: "Let me look.", calls: []ToolCall{{ID: "toolu_1", Name: "read_file", Arguments: `{"path": "a.txt"}`}},
			usage: Usage{InputTokens: 25, OutputTokens: 40},
		},
		{
			name:   "a call with no input pieces means {}",
			stream: anStream(anStart, anToolUseEvents(0, "toolu_1", "list_panes"), anDelta("tool_use", 9), anStop),
			calls:  []ToolCall{{ID: "toolu_1", Name: "list_panes", Arguments: "{}"}},
			usage:  Usage{25, 9},
		},
		{
			name:   "only empty pieces mean {}",
			stream: anStream(anStart, anToolUseEvents(0, "toolu_1", "recall", ""), anDelta("tool_use", 9), anStop),
			calls:  []ToolCall{{ID: "toolu_1", Name: "recall", Arguments: "{}"}},
			usage:  Usage{25, 9},
		},
		{
			name: "two calls in block order",
			stream: anStream(anStart, anToolUseEvents(0, "toolu_a", "grep", `{"pattern":"x"}`),
				anToolUseEvents(1, "toolu_b", "grep", `{"pattern":"y"}`), anDelta("tool_use", 9), anStop),
			calls: []ToolCall{{ID: "toolu_a", Name: "grep", Arguments: `{"pattern":"x"}`}, {ID: "toolu_b", Name: "grep", Arguments: `{"pattern":"y"}`}},
			usage: Usage{25, 9},
		},
		{
			// message_delta's usage is the running total: 1 then 30 is 30,
			// not 31; a second message_delta replaces it again.
			name:   "output usage is overwritten, not added",
			stream: anStream(anStart, anText(0, "hi"), anDelta("", 12), anDelta("end_turn", 30), anStop),
			text:   "hi", usage: Usage{25, 30},
		},
		{
			name:   "a clean end after stop_reason, without message_stop",
			stream: anStream(anStart, anText(0, "hi"), anDelta("end_turn", 2)),
			text:   "hi", usage: Usage{25, 2},
		},
		{
			name: "thinking blocks and unknown events ignored",
			stream: anStream(anStart, `content_block_start {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}`,
				`content_block_delta {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hmm"}}`,
				`content_block_stop {"type":"content_block_stop","index":0}`, `future_event not-json`,
				anText(1, "hi"), anDelta("end_turn", 2), anStop),
			text: "hi", usage: Usage{25, 2},
		},
	})
}

func TestAnthropicStreamFailures(t *testing.T) {
	runFailCases(t, ProviderAnthropic, "", []failCase{
		{"broken before message_stop: no calls",
			anStream(anStart, anToolUseEvents(0, "toolu_1", "recall", "{}")), "the stream ended before message_stop"},
		{"error event", anStream(anStart, anText(0, "hi"), `error {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`),
			"the stream reported overloaded_error: Overloaded"},
	})
}

// The request: the system prompt on top, tools with input_schema, calls as
// tool_use blocks with parsed input, all results of a turn in one user
// message of tool_result blocks, the key and version headers.
func TestAnthropicRequestShape(t *testing.T) {
	srv, p, _ := fakeEndpoint(t, modeltest.Anthropic, modeltest.Leg{Text: "ok"})
	req := conversation(toolexec.RoleBase)
	req.Messages = append(req.Messages[:1:1], append([]Message{{Role: "system", Content: "second part"}}, req.Messages[1:]...)...)
	req.Messages = append(req.Messages, Message{Role: "assistant", ToolCalls: []ToolCall{{ID: "c3", Name: "grep", Arguments: "not json"}}},
		Message{Role: "tool", ToolCallID: "c3", Content: "bad arguments"})
	if _, _, err := runLeg(t, p, req); err != nil {
		t.Fatal(err)
	}
	got := srv.Requests()[0]
	if got.Path != "/v1/messages" || got.Header.Get("X-Api-Key") != "sk-test" || got.Header.Get("Anthropic-Version") != "2023-06-01" ||
		got.Header.Get("Authorization") != "" {
		t.Errorf("path %s, headers %v", got.Path, got.Header)
	}
	body, _ := json.Marshal(got.Body)
	for _, want := range []string{
		`"max_tokens":8192`, `"stream":true`, `"system":"you are mel\n\nsecond part"`,
		`{"content":[{"text":"reading","type":"text"},{"id":"c1","input":{"path":"a.txt"},"name":"read_file","type":"tool_use"},{"id":"c2","input":{"path":"b.txt"},"name":"read_file","type":"tool_use"}],"role":"assistant"}`,
		`{"content":[{"content":"alpha","tool_use_id":"c1","type":"tool_result"},{"content":"beta","tool_use_id":"c2","type":"tool_result"},{"text":"and now?","type":"text"}],"role":"user"}`,
		// Arguments that are not an object go back as {}; no empty text block.
		`{"content":[{"id":"c3","input":{},"name":"grep","type":"tool_use"}],"role":"assistant"}`,
		`"tools":[{"description":"Read a text file`, `"input_schema":{"properties":{"limit"`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("body lacks %s\n%s", want, body)
		}
	}
	if strings.Contains(string(body), `"role":"system"`) || strings.Contains(string(body), `"role":"tool"`) {
		t.Errorf("a system or tool role in the messages: %s", body)
	}
}

// A base URL given with /v1, as some write it, still reaches /v1/messages.
func TestAnthropicBaseWithV1(t *testing.T) {
	srv := modeltest.New(t, modeltest.Anthropic, []modeltest.Leg{{Text: "ok"}})
	p := against(t, ProviderAnthropic, srv.URL()+"/v1/", RetryPolicy{})
	if _, _, err := runLeg(t, p, Request{Messages: []Message{{Role: "user", Content: "hi"}}}); err != nil {
		t.Fatal(err)
	}
}
