package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/modeltest"
	"github.com/melmux/melmux/toolexec"
)

// sleeps is an injected RetryPolicy.Sleep that records each wait and
// returns at once, so retry tests check the waits, not the clock.
type sleeps struct {
	mu  sync.Mutex // guards got
	got []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.got = append(s.got, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) waits() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.got...)
}

// testRetry is the policy of the provider tests: the real defaults with
// the waits recorded instead of slept.
func testRetry(s *sleeps) RetryPolicy {
	return RetryPolicy{Sleep: s.sleep}
}

// against builds the provider for proto pointed at url.
func against(t *testing.T, proto, url string, retry RetryPolicy) Provider {
	t.Helper()
	s := Settings{Provider: proto, Model: "test-model", BaseURL: url, KeyEnv: defaultKeyEnv(proto), Key: "sk-test"}
	p, err := NewProvider(s, nil, WithRetry(retry))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// fakeEndpoint starts a modeltest server for proto and the provider pointed
// at it.
func fakeEndpoint(t *testing.T, proto string, legs ...modeltest.Leg) (*modeltest.Server, Provider, *sleeps) {
	t.Helper()
	srv := modeltest.New(t, proto, legs)
	sl := &sleeps{}
	return srv, against(t, proto, srv.URL(), testRetry(sl)), sl
}

// rawStream serves body as an event stream to every request.
func rawStream(t *testing.T, body string) string {
	t.Helper()
	return rawAnswer(t, "text/event-stream", body)
}

// rawAnswer serves body with status 200 and contentType to every request.
func rawAnswer(t *testing.T, contentType, body string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// streamCase is a raw stream and what a provider must read from it.
type streamCase struct {
	name, stream string
	text         string
	calls        []ToolCall
	usage        Usage
}

// runStreamCases serves each case's stream to proto's provider (at the
// server's URL plus path) and checks the reply.
func runStreamCases(t *testing.T, proto, path string, cases []streamCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := against(t, proto, rawStream(t, c.stream)+path, RetryPolicy{})
			reply, _, err := runLeg(t, p, Request{})
			if err != nil {
				t.Fatal(err)
			}
			if reply.Text != c.text || reply.Usage != c.usage {
				t.Errorf("text %q usage %+v", reply.Text, reply.Usage)
			}
			wantCalls(t, reply.Calls, c.calls...)
			if len(reply.Calls) > 1 && reply.Calls[0].ID == reply.Calls[1].ID {
				t.Errorf("call ids are not unique: %v", reply.Calls)
			}
		})
	}
}

// failCase is a raw stream a provider must fail on, saying says.
type failCase struct{ name, stream, says string }

func runFailCases(t *testing.T, proto, path string, cases []failCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := against(t, proto, rawStream(t, c.stream)+path, RetryPolicy{})
			_, _, err := runLeg(t, p, Request{})
			wantLegError(t, err, 0, c.says)
		})
	}
}

// textSink gathers what a leg streams to onText.
type textSink struct{ pieces []string }

func (s *textSink) add(t string) { s.pieces = append(s.pieces, t) }

func runLeg(t *testing.T, p Provider, req Request) (Reply, *textSink, error) {
	t.Helper()
	sink := &textSink{}
	reply, err := p.Leg(context.Background(), req, sink.add)
	if err == nil && strings.Join(sink.pieces, "") != reply.Text {
		t.Errorf("streamed %q but the reply's text is %q", sink.pieces, reply.Text)
	}
	if err != nil && len(reply.Calls) > 0 {
		t.Errorf("a failed leg returned calls %v", reply.Calls)
	}
	return reply, sink, err
}

func wantCalls(t *testing.T, got []ToolCall, want ...ToolCall) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d calls %v, want %d %v", len(got), got, len(want), want)
	}
	for i := range want {
		g, w := got[i], want[i]
		if w.ID == "" { // a synthesised id: any, but there must be one
			if !strings.HasPrefix(g.ID, "call_") {
				t.Errorf("call %d: id %q was not synthesised", i, g.ID)
			}
			g.ID = ""
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("call %d: got %+v, want %+v", i, got[i], w)
		}
	}
}

func wantLegError(t *testing.T, err error, status int, parts ...string) *LegError {
	t.Helper()
	var le *LegError
	if !errors.As(err, &le) || !errors.Is(err, ErrProvider) {
		t.Fatalf("err = %v (%T), want a *LegError wrapping ErrProvider", err, err)
	}
	if le.Status != status {
		t.Errorf("status %d, want %d (%v)", le.Status, status, err)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not say %q", err, p)
		}
	}
	return le
}

// conversation is a request with history of every kind: a system prompt, a
// user message, an assistant message calling two tools, their results, and
// another user message.
func conversation(role toolexec.Role) Request {
	return Request{
		Role: role,
		Messages: []Message{
			{Role: "system", Content: "you are mel"},
			{Role: "user", Content: "read a.txt and b.txt"},
			{Role: "assistant", Content: "reading", ToolCalls: []ToolCall{
				{ID: "c1", Name: "read_file", Arguments: `{"path":"a.txt"}`},
				{ID: "c2", Name: "read_file", Arguments: `{"path":"b.txt"}`},
			}},
			{Role: "tool", ToolCallID: "c1", Content: "alpha"},
			{Role: "tool", ToolCallID: "c2", Content: "beta"},
			{Role: "user", Content: "and now?"},
		},
		Tools: toolexec.Definitions(role),
	}
}

// Every provider plays the same script the same way: text, then calls
// (with the arguments as sent and the server's ids), then the final answer.
func TestProvidersPlayAScript(t *testing.T) {
	for _, proto := range providers {
		t.Run(proto, func(t *testing.T) {
			srv, p, _ := fakeEndpoint(t, proto,
				modeltest.Leg{Role: "worker", Expect: []string{"and now?", "beta"}, Text: "Let me look — ünïcode.",
					Calls: []modeltest.Call{{Name: "read_file", Arguments: `{"path":"c.txt"}`, ID: "k1"}, {Name: "recall"}}},
				modeltest.Leg{Role: "worker", Text: "done", Usage: &modeltest.Usage{InputTokens: 120, OutputTokens: 7}},
			)
			if p.Name() != proto {
				t.Errorf("Name() = %q", p.Name())
			}
			req := conversation(toolexec.RoleWorker)
			reply, sink, err := runLeg(t, p, req)
			if err != nil {
				t.Fatal(err)
			}
			if reply.Text != "Let me look — ünïcode." || len(sink.pieces) < 2 {
				t.Errorf("text %q in pieces %q, want it streamed in several", reply.Text, sink.pieces)
			}
			if len(reply.Calls) != 2 || reply.Calls[0] != (ToolCall{ID: "k1", Name: "read_file", Arguments: `{"path":"c.txt"}`}) ||
				reply.Calls[1].Name != "recall" || reply.Calls[1].Arguments != "{}" || reply.Calls[1].ID == "" {
				t.Errorf("calls %+v", reply.Calls)
			}
			if reply.Usage != (Usage{InputTokens: 10, OutputTokens: 5}) {
				t.Errorf("usage %+v, want the script's default 10/5", reply.Usage)
			}

			req.Messages = append(req.Messages, Message{Role: "assistant", Content: reply.Text, ToolCalls: reply.Calls},
				Message{Role: "tool", ToolCallID: reply.Calls[0].ID, Content: "gamma"},
				Message{Role: "tool", ToolCallID: reply.Calls[1].ID, Content: "no notes"})
			reply, _, err = runLeg(t, p, req)
			if err != nil {
				t.Fatal(err)
			}
			if reply.Text != "done" || reply.Calls != nil || reply.Usage != (Usage{120, 7}) {
				t.Errorf("final reply %+v", reply)
			}
			if err := srv.Verify(); err != nil {
				t.Error(err)
			}
			reqs := srv.Requests()
			got := reqs[1]
			if got.Model != "test-model" || got.Role != "worker" || got.Key != "sk-test" {
				t.Errorf("model %q role %q key %q", got.Model, got.Role, got.Key)
			}
			if len(got.Tools) != len(req.Tools) || got.Tools[0] != req.Tools[0].Name {
				t.Errorf("tools offered %v", got.Tools)
			}
			// Every message arrives, in order, whatever the protocol's shape.
			var flat []string
			for _, m := range got.Messages {
				s := m.Role + ":" + m.Content + m.ToolCallID
				for _, c := range m.ToolCalls {
					s += " " + c.ID + "=" + c.Name + c.Arguments
				}
				flat = append(flat, s)
			}
			want := []string{
				"system:you are mel", "user:read a.txt and b.txt",
				`assistant:reading c1=read_file{"path":"a.txt"} c2=read_file{"path":"b.txt"}`,
				"tool:alphac1", "tool:betac2", "user:and now?",
				`assistant:Let me look — ünïcode. k1=read_file{"path":"c.txt"} ` + reply1ID(reqs) + "=recall{}",
				"tool:gammak1", "tool:no notes" + reply1ID(reqs),
			}
			if !reflect.DeepEqual(flat, want) {
				t.Errorf("messages as the server read them:\n%q\nwant\n%q", flat, want)
			}
		})
	}
}

// reply1ID is the id the server gave the second call of the first leg, as
// the second request echoed it.
func reply1ID(reqs []modeltest.Recorded) string {
	m := reqs[1].Messages[6]
	if len(m.ToolCalls) < 2 {
		return "?"
	}
	return m.ToolCalls[1].ID
}

// A server that ignores "stream": true and sends the whole reply as JSON
// (several OpenAI-compatible servers and proxies do, some whenever tools are
// sent) is answered all the same: its text, its calls and its usage. JSON
// that is not a reply is still an error that shows it.
func TestWholeReplies(t *testing.T) {
	for _, c := range []struct {
		proto, path, body string
		usage             Usage
	}{
		{ProviderOpenAI, "/v1", `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant",` +
			`"content":"Looking.","tool_calls":[{"id":"a","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"x\"}"}},` +
			`{"type":"function","function":{"name":"list_panes","arguments":""}}]},"finish_reason":"tool_calls"}],` +
			`"usage":{"prompt_tokens":11,"completion_tokens":3}}`, Usage{11, 3}},
		{ProviderAnthropic, "", `{"id":"msg","type":"message","role":"assistant","content":[{"type":"text","text":"Looking."},` +
			`{"type":"tool_use","id":"a","name":"read_file","input":{"path":"x"}},{"type":"tool_use","name":"list_panes","input":{}}],` +
			`"stop_reason":"tool_use","usage":{"input_tokens":11,"output_tokens":3}}`, Usage{11, 3}},
	} {
		t.Run(c.proto, func(t *testing.T) {
			p := against(t, c.proto, rawAnswer(t, "application/json", c.body)+c.path, RetryPolicy{})
			reply, sink, err := runLeg(t, p, Request{})
			if err != nil {
				t.Fatal(err)
			}
			if reply.Text != "Looking." || reply.Usage != c.usage || len(sink.pieces) != 1 {
				t.Errorf("text %q (streamed %q) usage %+v", reply.Text, sink.pieces, reply.Usage)
			}
			wantCalls(t, reply.Calls, ToolCall{ID: "a", Name: "read_file", Arguments: `{"path":"x"}`}, ToolCall{Name: "list_panes", Arguments: "{}"})

			p = against(t, c.proto, rawAnswer(t, "application/json", `{"error":{"message":"no such model"}}`)+c.path, RetryPolicy{})
			_, _, err = runLeg(t, p, Request{})
			wantLegError(t, err, http.StatusOK, "not an event stream: no such model")
		})
	}
}

// A leg the model's output token limit cut short says so, streamed or whole.
func TestCutReplies(t *testing.T) {
	anCut := append(append([]string{anStart}, anToolUseEvents(0, "a", "write_file", `{"path":"x","con`)...),
		`message_delta {"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"output_tokens":8192}}`, anStop)
	for _, c := range []struct {
		name, proto, path, url string
		cut                    bool
	}{
		{"openai stream", ProviderOpenAI, "/v1", rawStream(t, chunks(`{"content":"abc"}`, `{"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}`)+oaDone), true},
		{"openai stream, stop", ProviderOpenAI, "/v1", rawStream(t, chunks(`{"content":"abc"}`, oaFinishStop)+oaDone), false},
		{"openai whole", ProviderOpenAI, "/v1", rawAnswer(t, "application/json", `{"choices":[{"message":{"content":"abc"},"finish_reason":"length"}]}`), true},
		{"anthropic stream", ProviderAnthropic, "", rawStream(t, anEvents(anCut...)), true},
		{"anthropic whole", ProviderAnthropic, "", rawAnswer(t, "application/json", `{"type":"message","content":[{"type":"text","text":"abc"}],"stop_reason":"max_tokens"}`), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			reply, _, err := runLeg(t, against(t, c.proto, c.url+c.path, RetryPolicy{}), Request{})
			if err != nil || reply.Cut != c.cut {
				t.Fatalf("cut %v (want %v), err %v", reply.Cut, c.cut, err)
			}
		})
	}
}
