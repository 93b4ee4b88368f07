package agentcli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
)

// DefaultReply is the answer to a prompt no rule matches.
const DefaultReply = "(no scripted reply)"

// Rule scripts the endpoint's answer to a prompt that contains Match.
// Without Bash the answer is Text. With Bash the answer is a tool_use of
// Claude Code's Bash tool running that command (which makes it ask the
// person first when the command changes anything); once the tool's result
// comes back, the answer is Text.
type Rule struct {
	Match string
	Text  string
	Bash  string
}

// Request is one request the endpoint received.
type Request struct {
	Method string
	Path   string // with the query
	Header http.Header
	Body   []byte
	// For Messages requests: whether it asked for a stream, the model, and
	// what the last user message says — Prompt is its last text (system
	// reminders left out), ToolUseID names the tool call whose result it
	// carries instead.
	Messages  bool
	Stream    bool
	Model     string
	Prompt    string
	ToolUseID string
}

// Anthropic is a scripted Anthropic Messages endpoint on 127.0.0.1.
type Anthropic struct {
	srv *http.Server
	ln  net.Listener

	mu      sync.Mutex      // guards the fields below
	rules   []Rule          // checked in order; the first match answers
	after   map[string]Rule // tool_use id → the rule that asked for it
	reqs    []Request       // every request, in arrival order
	changed chan struct{}   // closed and replaced when reqs grows
	gate    chan struct{}   // while set, answers wait until it is closed
	nextID  int
}

// NewAnthropic starts an endpoint on a free port of 127.0.0.1.
func NewAnthropic() (*Anthropic, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fake anthropic endpoint: %w", err)
	}
	a := &Anthropic{ln: ln, after: map[string]Rule{}, changed: make(chan struct{})}
	a.srv = &http.Server{Handler: http.HandlerFunc(a.serve)}
	go func() { _ = a.srv.Serve(ln) }()
	return a, nil
}

// URL is the base URL to give as ANTHROPIC_BASE_URL.
func (a *Anthropic) URL() string { return "http://" + a.ln.Addr().String() }

// Close stops the endpoint, ending any stream still open.
func (a *Anthropic) Close() error { return a.srv.Close() }

// AddRule adds a rule after the existing ones.
func (a *Anthropic) AddRule(r Rule) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.rules = append(a.rules, r)
}

// Hold makes Messages answers wait until Release, so that a test can see
// the agent at work on a request for as long as it needs to look.
func (a *Anthropic) Hold() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.gate == nil {
		a.gate = make(chan struct{})
	}
}

// Release lets held and later answers go.
func (a *Anthropic) Release() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.gate != nil {
		close(a.gate)
		a.gate = nil
	}
}

// Requests returns a copy of every request received so far.
func (a *Anthropic) Requests() []Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Request(nil), a.reqs...)
}

// WaitRequest waits for a request (received before or during the call) for
// which ok is true, and returns the first such.
func (a *Anthropic) WaitRequest(ctx context.Context, ok func(Request) bool) (Request, error) {
	seen := 0
	for {
		a.mu.Lock()
		reqs, changed := a.reqs[seen:], a.changed
		seen = len(a.reqs)
		a.mu.Unlock()
		for _, r := range reqs {
			if ok(r) {
				return r, nil
			}
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return Request{}, fmt.Errorf("fake anthropic endpoint: no such request among %d: %w", seen, ctx.Err())
		}
	}
}

func (a *Anthropic) record(r Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.reqs = append(a.reqs, r)
	close(a.changed)
	a.changed = make(chan struct{})
}

// serve answers what Claude Code sends: Messages requests (streamed or not),
// token counts, and anything else with what the real API would say.
func (a *Anthropic) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	req := Request{Method: r.Method, Path: r.URL.RequestURI(), Header: r.Header.Clone(), Body: body}
	if err != nil {
		a.record(req)
		apiError(w, http.StatusBadRequest, "invalid_request_error", "reading the body: "+err.Error())
		return
	}
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages/count_tokens":
		a.record(req)
		writeJSON(w, map[string]int{"input_tokens": len(body)/4 + 1})
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
		var in messagesRequest
		if err := json.Unmarshal(body, &in); err != nil {
			a.record(req)
			apiError(w, http.StatusBadRequest, "invalid_request_error", "the body is not a Messages request: "+err.Error())
			return
		}
		req.Messages, req.Stream, req.Model = true, in.Stream, in.Model
		req.Prompt, req.ToolUseID, err = lastUserTurn(in.Messages)
		a.record(req)
		if err != nil {
			apiError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
			return
		}
		a.mu.Lock()
		gate := a.gate
		a.mu.Unlock()
		if gate != nil {
			select {
			case <-gate:
			case <-r.Context().Done():
				return
			}
		}
		out := a.answer(in.Model, req)
		if in.Stream {
			streamMessage(w, out)
		} else {
			writeJSON(w, out)
		}
	case r.Method == http.MethodHead || (r.Method == http.MethodGet && r.URL.Path == "/"):
		a.record(req)
		w.WriteHeader(http.StatusOK)
	default:
		a.record(req)
		apiError(w, http.StatusNotFound, "not_found_error", fmt.Sprintf("%s %s is not served here (only POST /v1/messages and /v1/messages/count_tokens)", r.Method, r.URL.Path))
	}
}

type messagesRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

type block struct {
	Type      string          `json:"type"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Text      string          `json:"text,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
}

// lastUserTurn reads the last user message: its last block tells whether it
// returns a tool's result; otherwise the prompt is its last text that is
// not a system reminder (Claude Code puts those in the same message).
func lastUserTurn(msgs []struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}) (prompt, toolUseID string, err error) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != "user" {
			continue
		}
		var s string
		if json.Unmarshal(msgs[i].Content, &s) == nil {
			return s, "", nil
		}
		var blocks []block
		if err := json.Unmarshal(msgs[i].Content, &blocks); err != nil {
			return "", "", fmt.Errorf("message %d: content is neither a string nor a list of blocks: %w", i, err)
		}
		if n := len(blocks); n > 0 && blocks[n-1].Type == "tool_result" {
			return "", blocks[n-1].ToolUseID, nil
		}
		for j := len(blocks) - 1; j >= 0; j-- {
			if blocks[j].Type == "text" && !strings.HasPrefix(strings.TrimSpace(blocks[j].Text), "<system-reminder>") {
				return blocks[j].Text, "", nil
			}
		}
		return "", "", nil
	}
	return "", "", nil
}

// message is a Messages API response.
type message struct {
	ID         string  `json:"id"`
	Type       string  `json:"type"`
	Role       string  `json:"role"`
	Model      string  `json:"model"`
	Content    []block `json:"content"`
	StopReason *string `json:"stop_reason"`
	StopSeq    *string `json:"stop_sequence"`
	Usage      usage   `json:"usage"`
}

type usage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

// answer picks the scripted reply to req. For a tool's result it is the
// text of the rule that asked for the tool.
func (a *Anthropic) answer(model string, req Request) message {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.nextID++
	id := a.nextID
	stop := "end_turn"
	out := message{ID: fmt.Sprintf("msg_melmux_%d", id), Type: "message", Role: "assistant", Model: model,
		StopReason: &stop, Usage: usage{InputTokens: len(req.Body)/4 + 1}}
	text := DefaultReply
	if req.ToolUseID != "" {
		if r, ok := a.after[req.ToolUseID]; ok {
			text = r.Text
		}
	} else {
		for _, r := range a.rules {
			if !strings.Contains(req.Prompt, r.Match) {
				continue
			}
			text = r.Text
			if r.Bash != "" {
				tool := fmt.Sprintf("toolu_melmux_%d", id)
				a.after[tool] = r
				input, _ := json.Marshal(map[string]string{"command": r.Bash, "description": "Run " + r.Bash})
				out.Content = []block{{Type: "tool_use", ID: tool, Name: "Bash", Input: input}}
				stop = "tool_use"
			}
			break
		}
	}
	if out.Content == nil {
		out.Content = []block{{Type: "text", Text: text}}
	}
	out.Usage.OutputTokens = len(text)/4 + 1
	return out
}

// streamMessage sends m as the Messages server-sent events, text in a few
// deltas as a model would.
func streamMessage(w http.ResponseWriter, m message) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	event := func(name string, data any) {
		raw, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, raw)
		if flusher != nil {
			flusher.Flush()
		}
	}
	start := m
	start.Content, start.StopReason = []block{}, nil
	start.Usage.OutputTokens = 1
	event("message_start", map[string]any{"type": "message_start", "message": start})
	for i, b := range m.Content {
		switch b.Type {
		case "tool_use":
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": map[string]any{}}})
			event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": string(b.Input)}})
		default:
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			for _, part := range chunks(b.Text, 3) {
				event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "text_delta", "text": part}})
			}
		}
		event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": *m.StopReason, "stop_sequence": nil},
		"usage": map[string]int{"output_tokens": m.Usage.OutputTokens}})
	event("message_stop", map[string]any{"type": "message_stop"})
}

// chunks splits s into at most n pieces on rune boundaries.
func chunks(s string, n int) []string {
	r := []rune(s)
	size := (len(r) + n - 1) / n
	if size == 0 {
		return []string{s}
	}
	var out []string
	for len(r) > 0 {
		k := min(size, len(r))
		out = append(out, string(r[:k]))
		r = r[k:]
	}
	return out
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// apiError answers as the Messages API does when it refuses a request.
func apiError(w http.ResponseWriter, status int, kind, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]string{"type": kind, "message": msg}})
}
