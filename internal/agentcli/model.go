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

// Rule scripts the model's answer to a prompt that contains Match. Without
// Command the answer is Text. With Command the answer is a call of the
// agent's shell tool running it — Claude Code's Bash, Codex's exec_command
// asking to run outside its sandbox, Gemini CLI's run_shell_command — which
// makes the agent ask the person
// first; once the tool's result comes back, the answer is Text.
type Rule struct {
	Match   string
	Text    string
	Command string
	// Tool, with Input (its arguments as a JSON object), makes the answer
	// a call of that tool instead (Claude Code only: an MCP tool such as
	// mcp__melmux__read_agent); once its result comes back, Text.
	Tool  string
	Input string
}

// Request is one request the model endpoint received.
type Request struct {
	Method string
	Path   string // with the query
	Header http.Header
	Body   []byte
	// API is "messages" (Anthropic), "responses" (OpenAI) or "gemini"
	// (Google) for a model request, "" for anything else. For those: whether it asked for a
	// stream, the model, and what the last user turn says — Prompt is its
	// last text (system reminders and context blocks left out), ToolUseID
	// names the tool call whose result it carries instead. Aside marks a
	// request the agent makes for itself (Codex's thread title, Gemini
	// CLI's model router), which gets a fixed answer, not the rules'.
	API       string
	Stream    bool
	Model     string
	Prompt    string
	ToolUseID string
	Aside     bool
}

// reply is what the rules decided, for an API to put in its own words.
type reply struct {
	Text   string
	CallID string // set when the answer is a tool call
	// Tool and Input name another tool than the shell and its arguments.
	Tool, Input string
	Cmd         string
}

// Model is a scripted model endpoint on 127.0.0.1 speaking the Anthropic
// Messages API (POST /v1/messages), the OpenAI Responses API (POST
// /v1/responses) and the Gemini API (POST
// /v1beta/models/MODEL:generateContent or :streamGenerateContent), streamed
// or not.
type Model struct {
	srv *http.Server
	ln  net.Listener

	mu      sync.Mutex      // guards the fields below
	rules   []Rule          // checked in order; the first match answers
	after   map[string]Rule // tool call id → the rule that made the call
	reqs    []Request       // every request, in arrival order
	changed chan struct{}   // closed and replaced when reqs grows
	gate    chan struct{}   // while set, answers wait until it is closed
	nextID  int
}

// NewModel starts an endpoint on a free port of 127.0.0.1.
func NewModel() (*Model, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fake model endpoint: %w", err)
	}
	m := &Model{ln: ln, after: map[string]Rule{}, changed: make(chan struct{})}
	m.srv = &http.Server{Handler: http.HandlerFunc(m.serve)}
	go func() { _ = m.srv.Serve(ln) }()
	return m, nil
}

// URL is the base URL: ANTHROPIC_BASE_URL and GOOGLE_GEMINI_BASE_URL as it
// is, Codex's base_url with /v1 added.
func (m *Model) URL() string { return "http://" + m.ln.Addr().String() }

// Close stops the endpoint, ending any stream still open.
func (m *Model) Close() error { return m.srv.Close() }

// AddRule adds a rule after the existing ones.
func (m *Model) AddRule(r Rule) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rules = append(m.rules, r)
}

// Hold makes answers wait until Release, so that a test can see the agent
// at work on a request for as long as it needs to look. (Gemini CLI's
// asides are answered all the same: its turn waits for them.)
func (m *Model) Hold() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.gate == nil {
		m.gate = make(chan struct{})
	}
}

// Release lets held and later answers go.
func (m *Model) Release() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.gate != nil {
		close(m.gate)
		m.gate = nil
	}
}

// Requests returns a copy of every request received so far.
func (m *Model) Requests() []Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Request(nil), m.reqs...)
}

// WaitRequest waits for a request (received before or during the call) for
// which ok is true, and returns the first such.
func (m *Model) WaitRequest(ctx context.Context, ok func(Request) bool) (Request, error) {
	seen := 0
	for {
		reqs, changed, n := m.since(seen)
		seen = n
		for _, r := range reqs {
			if ok(r) {
				return r, nil
			}
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return Request{}, fmt.Errorf("fake model endpoint: no such request among %d: %w", seen, ctx.Err())
		}
	}
}

// since is the requests from the seen-th on, the channel closed at the
// next, and how many there are now.
func (m *Model) since(seen int) ([]Request, <-chan struct{}, int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.reqs[seen:], m.changed, len(m.reqs)
}

func (m *Model) record(r Request) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reqs = append(m.reqs, r)
	close(m.changed)
	m.changed = make(chan struct{})
}

// held waits while answers are held; false when the client gave up.
func (m *Model) held(ctx context.Context) bool {
	gate := m.heldGate()
	if gate == nil {
		return true
	}
	select {
	case <-gate:
		return true
	case <-ctx.Done():
		return false
	}
}

// heldGate is the gate answers wait on; nil while none are held.
func (m *Model) heldGate() chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.gate
}

// decide applies the rules to a request.
func (m *Model) decide(req Request) reply {
	m.mu.Lock()
	defer m.mu.Unlock()
	if req.ToolUseID != "" {
		if r, ok := m.after[req.ToolUseID]; ok {
			return reply{Text: r.Text}
		}
		return reply{Text: DefaultReply}
	}
	for _, r := range m.rules {
		if !strings.Contains(req.Prompt, r.Match) {
			continue
		}
		if r.Command == "" && r.Tool == "" {
			return reply{Text: r.Text}
		}
		m.nextID++
		id := fmt.Sprintf("call_melmux_%d", m.nextID)
		m.after[id] = r
		return reply{CallID: id, Cmd: r.Command, Tool: r.Tool, Input: r.Input}
	}
	return reply{Text: DefaultReply}
}

// serve answers what the agents send: model requests of each API, token
// counts, and anything else with what the real APIs would say.
func (m *Model) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	req := Request{Method: r.Method, Path: r.URL.RequestURI(), Header: r.Header.Clone(), Body: body}
	if err != nil {
		m.record(req)
		apiError(w, http.StatusBadRequest, "invalid_request_error", "reading the body: "+err.Error())
		return
	}
	model, method, isGemini := geminiPath(r.URL.Path)
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages/count_tokens":
		m.record(req)
		writeJSON(w, map[string]int{"input_tokens": len(body)/4 + 1})
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
		m.serveMessages(w, r, req)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/responses":
		m.serveResponses(w, r, req)
	case r.Method == http.MethodPost && isGemini:
		m.serveGemini(w, r, req, model, method)
	case r.Method == http.MethodHead || (r.Method == http.MethodGet && r.URL.Path == "/"):
		m.record(req)
		w.WriteHeader(http.StatusOK)
	default:
		m.record(req)
		msg := fmt.Sprintf("%s %s is not served here (only POST /v1/messages, /v1/messages/count_tokens, /v1/responses and /v1beta/models/MODEL:generateContent, :streamGenerateContent or :countTokens)", r.Method, r.URL.Path)
		if strings.HasPrefix(r.URL.Path, "/v1beta/") {
			googleError(w, http.StatusNotFound, "NOT_FOUND", msg)
			return
		}
		apiError(w, http.StatusNotFound, "not_found_error", msg)
	}
}

// sse writes server-sent events, flushing each.
type sse struct {
	w http.ResponseWriter
}

func startSSE(w http.ResponseWriter) sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return sse{w}
}

func (s sse) event(name string, data any) {
	raw, _ := json.Marshal(data)
	fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", name, raw)
	s.flush()
}

// data writes an event with no name, as the Gemini API streams.
func (s sse) data(data any) {
	raw, _ := json.Marshal(data)
	fmt.Fprintf(s.w, "data: %s\n\n", raw)
	s.flush()
}

func (s sse) flush() {
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}

// chunks splits s into at most n pieces on rune boundaries, as a model
// streams text in a few deltas.
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

// apiError answers as the APIs do when they refuse a request.
func apiError(w http.ResponseWriter, status int, kind, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]string{"type": kind, "message": msg}})
}
