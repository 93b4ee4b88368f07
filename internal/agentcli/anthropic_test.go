package agentcli

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

func newEndpoint(t *testing.T) *Model {
	t.Helper()
	a, err := NewModel()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// sseEvents reads a Messages stream into its events' data, by event name.
func sseEvents(t *testing.T, resp *http.Response) (names []string, data []map[string]any) {
	t.Helper()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, "event: "); ok {
			names = append(names, name)
		}
		if raw, ok := strings.CutPrefix(line, "data: "); ok {
			var d map[string]any
			if err := json.Unmarshal([]byte(raw), &d); err != nil {
				t.Fatalf("event data %q: %v", raw, err)
			}
			data = append(data, d)
		}
	}
	return names, data
}

func TestStreamedTextReply(t *testing.T) {
	a := newEndpoint(t)
	a.AddRule(Rule{Match: "say hello", Text: "Hello from the scripted model."})
	resp := post(t, a.URL()+"/v1/messages?beta=true", `{"model":"m","stream":true,"messages":[
		{"role":"user","content":[{"type":"text","text":"<system-reminder>ignore</system-reminder>"},{"type":"text","text":"please say hello"}]},
		{"role":"system","content":"environment"}]}`)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	names, data := sseEvents(t, resp)
	if got := strings.Join(names, " "); !strings.HasPrefix(got, "message_start content_block_start content_block_delta") ||
		!strings.HasSuffix(got, "content_block_stop message_delta message_stop") {
		t.Fatalf("events: %s", got)
	}
	var text strings.Builder
	for _, d := range data {
		if delta, ok := d["delta"].(map[string]any); ok && delta["type"] == "text_delta" {
			text.WriteString(delta["text"].(string))
		}
	}
	if text.String() != "Hello from the scripted model." {
		t.Errorf("streamed text %q", text.String())
	}
	if stop := data[len(data)-2]["delta"].(map[string]any)["stop_reason"]; stop != "end_turn" {
		t.Errorf("stop_reason %v", stop)
	}
	reqs := a.Requests()
	if len(reqs) != 1 || reqs[0].API != "messages" || !reqs[0].Stream || reqs[0].Prompt != "please say hello" || reqs[0].Path != "/v1/messages?beta=true" {
		t.Errorf("recorded %+v", reqs)
	}
}

func TestBashToolThenText(t *testing.T) {
	a := newEndpoint(t)
	a.AddRule(Rule{Match: "run it", Command: "touch done", Text: "It ran."})
	var first message
	resp := post(t, a.URL()+"/v1/messages", `{"model":"m","messages":[{"role":"user","content":"run it"}]}`)
	if err := json.NewDecoder(resp.Body).Decode(&first); err != nil {
		t.Fatal(err)
	}
	if len(first.Content) != 1 || first.Content[0].Type != "tool_use" || first.Content[0].Name != "Bash" ||
		*first.StopReason != "tool_use" || !strings.Contains(string(first.Content[0].Input), `"command":"touch done"`) {
		t.Fatalf("first answer %+v", first)
	}
	id := first.Content[0].ID
	var second message
	resp = post(t, a.URL()+"/v1/messages", `{"model":"m","messages":[{"role":"user","content":"run it"},
		{"role":"assistant","content":[{"type":"tool_use","id":"`+id+`","name":"Bash","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"`+id+`","content":"ok"}]}]}`)
	if err := json.NewDecoder(resp.Body).Decode(&second); err != nil {
		t.Fatal(err)
	}
	if len(second.Content) != 1 || second.Content[0].Text != "It ran." || *second.StopReason != "end_turn" {
		t.Fatalf("second answer %+v", second)
	}
	if r := a.Requests()[1]; r.ToolUseID != id || r.Prompt != "" {
		t.Errorf("tool result recorded as %+v", r)
	}
}

func TestUnscriptedAndOtherRequests(t *testing.T) {
	a := newEndpoint(t)
	var m message
	if err := json.NewDecoder(post(t, a.URL()+"/v1/messages", `{"model":"m","messages":[{"role":"user","content":"anything"}]}`).Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	if m.Content[0].Text != DefaultReply {
		t.Errorf("unscripted answer %+v", m)
	}
	if resp := post(t, a.URL()+"/v1/messages/count_tokens", `{"messages":[]}`); resp.StatusCode != 200 {
		t.Errorf("count_tokens: %s", resp.Status)
	}
	resp := post(t, a.URL()+"/v1/messages", `{"messages":"nope"`)
	var e struct {
		Type  string `json:"type"`
		Error struct{ Type, Message string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&e); err != nil || resp.StatusCode != 400 || e.Error.Type != "invalid_request_error" {
		t.Errorf("bad body: %s %+v %v", resp.Status, e, err)
	}
	resp, err := http.Get(a.URL() + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("GET /v1/models: %s", resp.Status)
	}
	if n := len(a.Requests()); n != 4 {
		t.Errorf("recorded %d requests, want 4", n)
	}
}

func TestWaitRequest(t *testing.T) {
	a := newEndpoint(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got := make(chan Request, 1)
	go func() {
		r, err := a.WaitRequest(ctx, func(r Request) bool { return r.Prompt == "second" })
		if err != nil {
			t.Error(err)
		}
		got <- r
	}()
	post(t, a.URL()+"/v1/messages", `{"messages":[{"role":"user","content":"first"}]}`)
	post(t, a.URL()+"/v1/messages", `{"messages":[{"role":"user","content":"second"}]}`)
	if r := <-got; r.Prompt != "second" {
		t.Errorf("waited for %+v", r)
	}
	short, cancel2 := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel2()
	if _, err := a.WaitRequest(short, func(r Request) bool { return r.Prompt == "never" }); err == nil {
		t.Error("a request that never came was found")
	}
}

func TestHoldAndRelease(t *testing.T) {
	a := newEndpoint(t)
	a.Hold()
	answered := make(chan int, 1)
	go func() {
		resp, err := http.Post(a.URL()+"/v1/messages", "application/json", strings.NewReader(`{"messages":[{"role":"user","content":"held"}]}`))
		if err != nil {
			t.Error(err)
			answered <- 0
			return
		}
		resp.Body.Close()
		answered <- resp.StatusCode
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := a.WaitRequest(ctx, func(r Request) bool { return r.Prompt == "held" }); err != nil {
		t.Fatal(err)
	}
	select {
	case <-answered:
		t.Fatal("answered while held")
	default:
	}
	a.Release()
	if code := <-answered; code != 200 {
		t.Errorf("after release: %d", code)
	}
}
