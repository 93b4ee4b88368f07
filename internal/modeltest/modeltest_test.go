package modeltest_test

import (
	"context"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/config"
	"github.com/melmux/melmux/internal/modeltest"
	"github.com/melmux/melmux/orchestrator"
	"github.com/melmux/melmux/toolexec"
)

func TestParseScript(t *testing.T) {
	legs, err := modeltest.ParseScript([]byte(`[
		{"role": "lead", "expect": ["hello"], "text": "hi",
		 "calls": [{"name": "read_file", "arguments": {"path": "a.txt"}},
		           {"name": "grep", "arguments": "{\"pattern\":", "id": "g1"},
		           {"name": "recall", "no_id": true}]},
		{"fail": "429", "retry_after": 2},
		{"fail": "drop_after_calls", "delay_ms": 5, "usage": {"input_tokens": 1, "output_tokens": 2}}
	]`))
	if err != nil {
		t.Fatal(err)
	}
	want := []modeltest.Leg{
		{Role: "lead", Expect: []string{"hello"}, Text: "hi", Calls: []modeltest.Call{
			{Name: "read_file", Arguments: `{"path":"a.txt"}`}, {Name: "grep", Arguments: `{"pattern":`, ID: "g1"}, {Name: "recall", NoID: true}}},
		{Fail: "429", RetryAfter: 2},
		{Fail: "drop_after_calls", DelayMS: 5, Usage: &modeltest.Usage{InputTokens: 1, OutputTokens: 2}},
	}
	if !reflect.DeepEqual(legs, want) {
		t.Errorf("got %+v\nwant %+v", legs, want)
	}
	if legs, err := modeltest.ParseScript([]byte(`{"legs": [{"text": "a"}]}`)); err != nil || len(legs) != 1 {
		t.Errorf("object form: %v, %v", legs, err)
	}
}

func TestParseScriptErrors(t *testing.T) {
	cases := map[string]string{
		`[{"txt": "typo"}]`:                                      `unknown field "txt"`,
		`[{"calls": [{"name": "a", "args": {}}]}]`:               `unknown field "args"`,
		`[{"role": "boss"}]`:                                     `leg 1: role "boss" is not lead, worker, base`,
		`[{}, {"fail": "teapot"}]`:                               `leg 2: fail "teapot" is not drop, error, drop_after_text, drop_after_calls, endless, trickle or an HTTP status`,
		`[{"fail": "200"}]`:                                      `fail "200"`,
		`[{"repeat": -1}]`:                                       "may not be negative",
		`[{"deltas": -1}]`:                                       "may not be negative",
		`[{"interval_ms": -1}]`:                                  "may not be negative",
		`[{"calls": [{"arguments": {}}]}]`:                       "leg 1: call 1 has no name",
		`[{"calls": [{"name": "a", "id": "x", "no_id": true}]}]`: "both an id and no_id",
		`[{"text": "a"}] [{"text": "b"}]`:                        "text after the legs",
		`{"text": "a"}`:                                          `unknown field "text"`,
	}
	for script, says := range cases {
		_, err := modeltest.ParseScript([]byte(script))
		if err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("%s: err %v, want it to say %q", script, err, says)
		}
	}
}

// newProvider points a real provider at srv.
func newProvider(t *testing.T, proto string, srv *modeltest.Server) orchestrator.Provider {
	t.Helper()
	p, err := orchestrator.NewProvider(orchestrator.Settings{Provider: proto, Model: "m", BaseURL: srv.URL(), Key: modeltest.Key}, nil,
		orchestrator.WithRetry(orchestrator.RetryPolicy{Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }}))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func request(role toolexec.Role, text string) orchestrator.Request {
	return orchestrator.Request{Role: role, Tools: toolexec.Definitions(role), Messages: []orchestrator.Message{{Role: "user", Content: text}}}
}

// Legs are taken in order among those of the request's role; the role is
// tool_role for the relay and read from the tools for the others.
func TestLegsByRole(t *testing.T) {
	for _, proto := range []string{modeltest.Relay, modeltest.OpenAI, modeltest.Anthropic} {
		t.Run(proto, func(t *testing.T) {
			srv := modeltest.New(t, proto, []modeltest.Leg{{Role: "lead", Text: "to the lead"}, {Role: "worker", Text: "to a worker"}, {Text: "to anyone"}})
			p := newProvider(t, proto, srv)
			for _, c := range []struct {
				role toolexec.Role
				want string
			}{{toolexec.RoleWorker, "to a worker"}, {toolexec.RoleBase, "to anyone"}, {toolexec.RoleLead, "to the lead"}} {
				reply, err := p.Leg(context.Background(), request(c.role, "hi"), nil)
				if err != nil || reply.Text != c.want {
					t.Errorf("%s: %q, %v; want %q", c.role, reply.Text, err, c.want)
				}
			}
			var roles []string
			for _, r := range srv.Requests() {
				roles = append(roles, r.Role)
			}
			if !reflect.DeepEqual(roles, []string{"worker", "base", "lead"}) {
				t.Errorf("recorded roles %v", roles)
			}
			if err := srv.Verify(); err != nil {
				t.Error(err)
			}
		})
	}
}

// Without t, problems are recorded and answered on the stream, where the
// agent shows them.
func TestProblemsAreLoud(t *testing.T) {
	for _, proto := range []string{modeltest.Relay, modeltest.OpenAI, modeltest.Anthropic} {
		t.Run(proto, func(t *testing.T) {
			srv := modeltest.New(nil, proto, []modeltest.Leg{{Expect: []string{"the plan", "hi"}, Text: "x"}, {Role: "lead", Text: "unused"}})
			defer srv.Close()
			p := newProvider(t, proto, srv)
			_, err := p.Leg(context.Background(), request(toolexec.RoleBase, "hi"), nil)
			if err == nil || !strings.Contains(err.Error(), `leg 1 expected ["the plan"] in the messages; not found`) {
				t.Errorf("mismatch: %v", err)
			}
			_, err = p.Leg(context.Background(), request(toolexec.RoleBase, "hi"), nil)
			if err == nil || !strings.Contains(err.Error(), "script exhausted") {
				t.Errorf("exhausted: %v", err)
			}
			bad := request(toolexec.RoleBase, "hi")
			bad.Messages = append(bad.Messages, orchestrator.Message{Role: "tool", ToolCallID: "nope", Content: "x"})
			_, err = p.Leg(context.Background(), bad, nil)
			if err == nil || !strings.Contains(err.Error(), `the tool result for "nope" answers no call`) {
				t.Errorf("pairing: %v", err)
			}
			reqs := srv.Requests()
			if len(reqs) != 3 || reqs[0].Leg != 0 || reqs[1].Leg != -1 || reqs[0].Problem == "" || len(srv.Problems()) != 3 {
				t.Errorf("recorded %+v, problems %q", reqs, srv.Problems())
			}
			err = srv.Verify()
			if err == nil || !strings.Contains(err.Error(), `leg 2 (role "lead") was never asked for`) || !strings.Contains(err.Error(), "script exhausted") {
				t.Errorf("Verify: %v", err)
			}
		})
	}
}

func TestPairing(t *testing.T) {
	call := func(id string) orchestrator.ToolCall {
		return orchestrator.ToolCall{ID: id, Name: "recall", Arguments: "{}"}
	}
	cases := []struct {
		name string
		msgs []orchestrator.Message
		says string
	}{
		{"a call left unanswered before the next user message", []orchestrator.Message{
			{Role: "user", Content: "a"}, {Role: "assistant", ToolCalls: []orchestrator.ToolCall{call("c1"), call("c2")}},
			{Role: "tool", ToolCallID: "c1", Content: "r"}, {Role: "user", Content: "b"}}, `calls ["c2"] have no tool result`},
		{"an id used twice", []orchestrator.Message{
			{Role: "user", Content: "a"}, {Role: "assistant", ToolCalls: []orchestrator.ToolCall{call("c1")}},
			{Role: "tool", ToolCallID: "c1", Content: "r"}, {Role: "assistant", ToolCalls: []orchestrator.ToolCall{call("c1")}},
			{Role: "tool", ToolCallID: "c1", Content: "r"}}, `call id "c1" is used twice`},
		{"unanswered at the end", []orchestrator.Message{
			{Role: "user", Content: "a"}, {Role: "assistant", ToolCalls: []orchestrator.ToolCall{call("c1")}}}, `ends with calls ["c1"] unanswered`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := modeltest.New(nil, modeltest.Relay, []modeltest.Leg{{Text: "x"}})
			defer srv.Close()
			_, err := newProvider(t, modeltest.Relay, srv).Leg(context.Background(), orchestrator.Request{Messages: c.msgs}, nil)
			if err == nil || !strings.Contains(err.Error(), c.says) || srv.Remaining() != 1 {
				t.Errorf("err %v, want %q", err, c.says)
			}
		})
	}
}

// Requests that are not the protocol's are refused with a status.
func TestWrongRequests(t *testing.T) {
	srv := modeltest.New(nil, modeltest.OpenAI, []modeltest.Leg{{Text: "x"}})
	defer srv.Close()
	cases := []struct {
		path, body string
		status     int
		says       string
	}{
		{"/v1/completions", `{}`, 404, "answers POST /v1/chat/completions"},
		{"/v1/chat/completions", `not json`, 400, "invalid character"},
		{"/v1/chat/completions", `{"model":"m","messages":[]}`, 400, "want stream: true"},
	}
	for _, c := range cases {
		resp, err := http.Post(srv.URL()[:len(srv.URL())-3]+c.path, "application/json", strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || !strings.Contains(string(body), c.says) {
			t.Errorf("%s %s: %d %s", c.path, c.body, resp.StatusCode, body)
		}
	}
	if srv.Remaining() != 1 || len(srv.Problems()) != 3 {
		t.Errorf("remaining %d, problems %q", srv.Remaining(), srv.Problems())
	}
}

// Env points melmux's own settings at the server: what the end-to-end
// tests rely on when the agent runs in another process.
func TestEnvReachesTheServer(t *testing.T) {
	for _, proto := range []string{modeltest.Relay, modeltest.OpenAI, modeltest.Anthropic} {
		t.Run(proto, func(t *testing.T) {
			srv := modeltest.New(t, proto, []modeltest.Leg{{Text: "hello"}})
			env := map[string]string{}
			for _, kv := range srv.Env() {
				k, v, _ := strings.Cut(kv, "=")
				env[k] = v
			}
			s, err := orchestrator.Resolve(context.Background(), orchestrator.Settings{}, config.Agent{}, func(k string) string { return env[k] }, nil)
			if err != nil {
				t.Fatal(err)
			}
			p, err := orchestrator.NewProvider(s, nil)
			if err != nil {
				t.Fatal(err)
			}
			reply, err := p.Leg(context.Background(), request(toolexec.RoleLead, "hi"), nil)
			if err != nil || reply.Text != "hello" || srv.Requests()[0].Key != modeltest.Key {
				t.Errorf("%q, %v, key %q", reply.Text, err, srv.Requests()[0].Key)
			}
		})
	}
}

// The OpenAI face also answers Ollama's model list, so OLLAMA_HOST can name
// it.
func TestOllamaTags(t *testing.T) {
	srv := modeltest.New(t, modeltest.OpenAI, []modeltest.Leg{{Text: "local"}})
	host := strings.TrimSuffix(srv.URL(), "/v1")
	s, err := orchestrator.Resolve(context.Background(), orchestrator.Settings{}, config.Agent{},
		func(k string) string { return map[string]string{"OLLAMA_HOST": host}[k] }, nil)
	if err != nil || s.Model != "modeltest" || s.BaseURL != srv.URL() {
		t.Fatalf("%+v, %v", s, err)
	}
}

// Close ends an answer held by delay_ms.
func TestCloseEndsADelay(t *testing.T) {
	srv := modeltest.New(nil, modeltest.Relay, []modeltest.Leg{{Text: "late", DelayMS: 3600_000}})
	p := newProvider(t, modeltest.Relay, srv)
	done := make(chan error, 1)
	go func() {
		_, err := p.Leg(context.Background(), request(toolexec.RoleBase, "hi"), nil)
		done <- err
	}()
	if err := srv.Wait(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	srv.Close()
	if err := <-done; err == nil {
		t.Error("a leg cut by Close succeeded")
	}
}

// Refuse looks only at the results of the last leg's calls: text an
// earlier result held is no problem, text the last results hold is.
func TestRefuseLooksAtTheLastResults(t *testing.T) {
	srv := modeltest.New(nil, modeltest.Relay, []modeltest.Leg{
		{Refuse: []string{"first reply"}, Text: "x"},
		{Refuse: []string{"first reply"}, Text: "y"},
	})
	defer srv.Close()
	p := newProvider(t, modeltest.Relay, srv)
	req := request(toolexec.RoleBase, "hi")
	req.Messages = append(req.Messages,
		orchestrator.Message{Role: "assistant", ToolCalls: []orchestrator.ToolCall{{ID: "c1", Name: "read_agent", Arguments: "{}"}}},
		orchestrator.Message{Role: "tool", ToolCallID: "c1", Content: "the first reply"},
		orchestrator.Message{Role: "assistant", ToolCalls: []orchestrator.ToolCall{{ID: "c2", Name: "read_agent", Arguments: "{}"}}},
		orchestrator.Message{Role: "tool", ToolCallID: "c2", Content: "the second reply"})
	if _, err := p.Leg(context.Background(), req, nil); err != nil {
		t.Errorf("an earlier result's text was refused: %v", err)
	}
	req.Messages[len(req.Messages)-1].Content = "the second reply, with the first reply in it"
	_, err := p.Leg(context.Background(), req, nil)
	if err == nil || !strings.Contains(err.Error(), `leg 2 refuses ["first reply"] in the last tool results; found`) {
		t.Errorf("the last result's text was not refused: %v", err)
	}
}

// Repeat sends the text that many times over, in Deltas deltas.
func TestRepeatAndDeltas(t *testing.T) {
	for _, proto := range []string{modeltest.Relay, modeltest.OpenAI, modeltest.Anthropic} {
		t.Run(proto, func(t *testing.T) {
			args := `{"path":"` + strings.Repeat("é", 300) + `"}`
			legs, err := modeltest.ParseScript([]byte(`[{"text": "<b>", "repeat": 1000, "deltas": 500, "calls": [{"name": "read_file", "arguments": ` + args + `}]}]`))
			if err != nil {
				t.Fatal(err)
			}
			srv := modeltest.New(t, proto, legs)
			var deltas int
			reply, err := newProvider(t, proto, srv).Leg(context.Background(), request(toolexec.RoleBase, "hi"), func(string) { deltas++ })
			if err != nil || reply.Text != strings.Repeat("<b>", 1000) || deltas != 500 {
				t.Errorf("%d bytes in %d deltas, %v; want 3000 bytes of <b> in 500", len(reply.Text), deltas, err)
			}
			if len(reply.Calls) != 1 || reply.Calls[0].Arguments != args {
				t.Errorf("calls %.100q, want the arguments whole", reply.Calls)
			}
			if proto == modeltest.Relay {
				return
			}
			srv = modeltest.New(t, proto, []modeltest.Leg{{Text: "<b>", Repeat: 1000, Whole: true}})
			reply, err = newProvider(t, proto, srv).Leg(context.Background(), request(toolexec.RoleBase, "hi"), nil)
			if err != nil || reply.Text != strings.Repeat("<b>", 1000) {
				t.Errorf("whole: %d bytes, %v; want 3000 bytes of <b>", len(reply.Text), err)
			}
		})
	}
}

// endless streams text until the client goes away.
func TestEndless(t *testing.T) {
	for _, proto := range []string{modeltest.Relay, modeltest.OpenAI, modeltest.Anthropic} {
		t.Run(proto, func(t *testing.T) {
			srv := modeltest.New(t, proto, []modeltest.Leg{{Text: "ab", Fail: modeltest.FailEndless}})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var got strings.Builder
			_, err := newProvider(t, proto, srv).Leg(ctx, request(toolexec.RoleBase, "hi"), func(s string) {
				if got.WriteString(s); got.Len() >= 16<<10 {
					cancel()
				}
			})
			if err == nil || !strings.HasPrefix(got.String(), "abababab") || got.Len() < 16<<10 {
				t.Errorf("%d bytes (%.10q...), %v; want a leg cancelled after 16 KiB of ab", got.Len(), got.String(), err)
			}
		})
	}
}

// trickle sends a keep-alive comment one byte at a time.
func TestTrickle(t *testing.T) {
	srv := modeltest.New(t, modeltest.Relay, []modeltest.Leg{{Fail: modeltest.FailTrickle, IntervalMS: 1}})
	body := `{"model":"m","tool_role":"base","messages":[{"role":"user","content":"hi"}],"tools":[]}`
	resp, err := http.Post(srv.URL(), "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got []byte
	buf := make([]byte, 64)
	for len(got) < 30 {
		n, err := resp.Body.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, buf[:n]...)
	}
	if string(got[:30]) != ": keep-alive\n: keep-alive\n: ke" {
		t.Errorf("trickled %q", got)
	}
}
