package modeltest

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// The protocols a Server speaks.
const (
	Relay     = "relay"
	OpenAI    = "openai"
	Anthropic = "anthropic"
)

// Key is the API key Env hands out; Recorded.Key shows what arrived.
const Key = "modeltest-key"

// Server is a running scripted endpoint.
type Server struct {
	proto  string
	t      testing.TB // nil: problems are only recorded
	hs     *httptest.Server
	closed chan struct{} // closed by Close, ends delays

	mu       sync.Mutex // guards the fields below
	legs     []Leg
	used     []bool
	reqs     []Recorded
	problems []string
	nextID   int
	isClosed bool
	changed  chan struct{} // closed and replaced when reqs grows
}

// Recorded is one request as the server understood it.
type Recorded struct {
	Path     string
	Header   http.Header
	Key      string         // the bearer token or x-api-key sent, "" when none
	Body     map[string]any // the JSON body
	Model    string
	Role     string   // tool_role (relay) or the role the tools imply
	Tools    []string // names of the tools offered, in order
	Messages []Message
	Leg      int    // index of the leg that answered; -1 when none did
	Problem  string // why it was answered with an error; "" when it got its leg
}

// Message is one message of a request, in one shape for all protocols (an
// Anthropic system prompt is a system message; its tool_result blocks are
// tool messages).
type Message struct {
	Role       string
	Content    string
	ToolCalls  []Call
	ToolCallID string
}

// New starts a server speaking proto ("relay", "openai" or "anthropic")
// that answers with legs in order. With t (may be nil) it is closed at the
// end of the test, and problems are reported with t.Errorf as they happen.
// A bad proto or script is t.Fatal, or a panic without t.
func New(t testing.TB, proto string, legs []Leg) *Server {
	if t != nil {
		t.Helper()
	}
	err := Validate(legs)
	if !slices.Contains([]string{Relay, OpenAI, Anthropic}, proto) {
		err = fmt.Errorf("modeltest: protocol %q is not relay, openai or anthropic", proto)
	}
	if err != nil {
		if t != nil {
			t.Fatal(err)
		}
		panic(err)
	}
	s := &Server{proto: proto, t: t, legs: slices.Clone(legs), used: make([]bool, len(legs)),
		closed: make(chan struct{}), changed: make(chan struct{})}
	s.hs = httptest.NewServer(http.HandlerFunc(s.serve))
	if t != nil {
		t.Cleanup(s.Close)
	}
	return s
}

// URL is the endpoint to configure: the relay's URL, the OpenAI base URL
// (ending in /v1), or the Anthropic base URL.
func (s *Server) URL() string {
	switch s.proto {
	case Relay:
		return s.hs.URL + "/relay"
	case OpenAI:
		return s.hs.URL + "/v1"
	}
	return s.hs.URL
}

// Env is the environment that points melmux agent at this server.
func (s *Server) Env() []string {
	switch s.proto {
	case Relay:
		return []string{"MELMUX_AGENT_PROVIDER=relay", "MELMUX_RELAY_URL=" + s.URL(), "MELMUX_RELAY_TOKEN=" + Key}
	case OpenAI:
		return []string{"MELMUX_AGENT_PROVIDER=openai", "OPENAI_BASE_URL=" + s.URL(), "OPENAI_API_KEY=" + Key}
	}
	return []string{"MELMUX_AGENT_PROVIDER=anthropic", "ANTHROPIC_BASE_URL=" + s.URL(), "ANTHROPIC_API_KEY=" + Key}
}

// Requests returns every request so far, in arrival order.
func (s *Server) Requests() []Recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

// Wait returns once n requests have arrived (each is recorded before its
// answer starts), or with ctx's error.
func (s *Server) Wait(ctx context.Context, n int) error {
	for {
		got, changed := s.arrived()
		if got >= n {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("modeltest: %d requests of %d arrived: %w", got, n, ctx.Err())
		}
	}
}

// arrived gives the number of requests so far and a channel closed when
// another arrives.
func (s *Server) arrived() (int, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.reqs), s.changed
}

// Problems returns every problem so far: mismatched expectations, protocol
// errors, requests past the end of the script.
func (s *Server) Problems() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.problems)
}

// Remaining counts the legs not used yet.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, u := range s.used {
		if !u {
			n++
		}
	}
	return n
}

// Verify returns an error listing the problems and the legs never used, or
// nil when the script ran exactly.
func (s *Server) Verify() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	msgs := slices.Clone(s.problems)
	for i, u := range s.used {
		if !u {
			msgs = append(msgs, fmt.Sprintf("leg %d (role %q) was never asked for", i+1, s.legs[i].Role))
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return fmt.Errorf("modeltest: %s", strings.Join(msgs, "; "))
}

// Close stops the server, ending any answer still being held or streamed.
func (s *Server) Close() {
	if !s.markClosed() {
		return
	}
	close(s.closed)
	s.hs.CloseClientConnections()
	s.hs.Close()
}

// markClosed says whether this call is the one that closes the server.
func (s *Server) markClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.isClosed {
		return false
	}
	s.isClosed = true
	return true
}

func (s *Server) problemLocked(format string, args ...any) string {
	msg := fmt.Sprintf(format, args...)
	s.problems = append(s.problems, msg)
	if s.t != nil {
		s.t.Errorf("modeltest: %s", msg)
	}
	return msg
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if s.proto == OpenAI && r.Method == http.MethodGet && r.URL.Path == "/api/tags" {
		// Enough of Ollama for the agent to find this server at $OLLAMA_HOST.
		writeJSON(w, http.StatusOK, map[string]any{"models": []map[string]string{{"name": "modeltest"}}})
		return
	}
	rec := Recorded{Path: r.URL.Path, Header: r.Header.Clone(), Key: requestKey(r), Leg: -1}
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err == nil {
		err = json.Unmarshal(body, &rec.Body)
	}
	if err == nil {
		err = s.decode(r, body, &rec)
	}

	leg, ids := s.record(&rec, err)

	switch {
	case err != nil:
		writeJSON(w, statusOf(err), apiError(s.proto, err.Error()))
	case rec.Leg >= 0 && rec.Problem == "":
		s.answer(w, r, leg, ids)
	default:
		// Answered on the stream, where the agent shows it: a status would
		// be retried or hidden behind a hint.
		st := newStream(w, s.proto)
		st.fail("modeltest: " + rec.Problem)
	}
}

// record keeps rec, a request read (err when it could not be), having
// picked the leg that answers it and set rec's Leg and Problem; it gives
// that leg and the ids of its tool calls.
func (s *Server) record(rec *Recorded, err error) (leg Leg, ids []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case err != nil:
		rec.Problem = s.problemLocked("request %d to %s: %v", len(s.reqs)+1, rec.Path, err)
	default:
		if p := pairing(rec.Messages); p != "" {
			rec.Problem = s.problemLocked("request %d: %s", len(s.reqs)+1, p)
			break
		}
		rec.Leg = s.pickLocked(rec.Role)
		if rec.Leg < 0 {
			rec.Problem = s.problemLocked("request %d (role %s): script exhausted: no leg left for it", len(s.reqs)+1, rec.Role)
			break
		}
		leg = s.legs[rec.Leg]
		if missing := missingText(rec.Messages, leg.Expect); len(missing) > 0 {
			rec.Problem = s.problemLocked("request %d: leg %d expected %q in the messages; not found", len(s.reqs)+1, rec.Leg+1, missing)
		} else if found := refusedText(rec.Messages, leg.Refuse); len(found) > 0 {
			rec.Problem = s.problemLocked("request %d: leg %d refuses %q in the last tool results; found", len(s.reqs)+1, rec.Leg+1, found)
		}
	}
	s.reqs = append(s.reqs, *rec)
	close(s.changed)
	s.changed = make(chan struct{})
	ids = make([]string, len(leg.Calls))
	for i, c := range leg.Calls {
		switch {
		case c.NoID:
		case c.ID != "":
			ids[i] = c.ID
		default:
			s.nextID++
			ids[i] = fmt.Sprintf("%s%d", idPrefix(s.proto), s.nextID)
		}
	}
	return leg, ids
}

// pickLocked takes the first unused leg for role.
func (s *Server) pickLocked(role string) int {
	for i, l := range s.legs {
		if !s.used[i] && (l.Role == "" || l.Role == role) {
			s.used[i] = true
			return i
		}
	}
	return -1
}

// answer plays one leg.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, leg Leg, ids []string) {
	status, _ := failStatus(leg.Fail)
	switch {
	case leg.Fail == FailDrop:
		panic(http.ErrAbortHandler) // net/http closes the connection, logging nothing
	case status != 0:
		if leg.RetryAfter > 0 {
			w.Header().Set("Retry-After", fmt.Sprint(leg.RetryAfter))
		}
		writeJSON(w, status, apiError(s.proto, firstSet(leg.Message, http.StatusText(status))))
		return
	}
	if leg.Whole && s.proto != Relay {
		writeJSON(w, http.StatusOK, wholeAnswer(s.proto, leg, ids))
		return
	}
	st := newStream(w, s.proto)
	st.start(leg)
	if leg.DelayMS > 0 {
		t := time.NewTimer(time.Duration(leg.DelayMS) * time.Millisecond)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return
		case <-s.closed:
			return
		}
	}
	if leg.Fail == FailError {
		st.fail(firstSet(leg.Message, "scripted error"))
		return
	}
	gone := func() bool {
		select {
		case <-r.Context().Done():
			return true
		case <-s.closed:
			return true
		default:
			return false
		}
	}
	if leg.Fail == FailTrickle {
		s.trickle(st, leg, r)
		return
	}
	st.text(leg.text(), cmp.Or(leg.Deltas, 3))
	if leg.Fail == FailEndless {
		st.endless(firstSet(leg.Text, "x"), gone)
		return
	}
	if leg.Fail == FailDropAfterText {
		panic(http.ErrAbortHandler)
	}
	st.calls(leg.Calls, ids, usageOf(leg), cmp.Or(leg.Deltas, 2))
	if leg.Fail == FailDropAfterCalls {
		panic(http.ErrAbortHandler)
	}
	st.end(len(leg.Calls) > 0, leg.Cut, usageOf(leg))
}

// trickle writes a keep-alive comment one byte at a time, one every
// leg.IntervalMS, until the client goes away or the server closes.
func (s *Server) trickle(st *stream, leg Leg, r *http.Request) {
	every := time.Duration(cmp.Or(leg.IntervalMS, 1000)) * time.Millisecond
	t := time.NewTicker(every)
	defer t.Stop()
	const comment = ": keep-alive\n"
	for i := 0; ; i++ {
		select {
		case <-t.C:
		case <-r.Context().Done():
			return
		case <-s.closed:
			return
		}
		if st.raw(comment[i%len(comment):i%len(comment)+1]) != nil {
			return
		}
	}
}

func usageOf(l Leg) Usage {
	if l.Usage != nil {
		return *l.Usage
	}
	return DefaultUsage
}

func idPrefix(proto string) string {
	if proto == Anthropic {
		return "toolu_"
	}
	return "call_"
}

func requestKey(r *http.Request) string {
	if k := r.Header.Get("X-Api-Key"); k != "" {
		return k
	}
	return strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
}

// missingText lists the expected texts the messages do not hold.
func missingText(msgs []Message, expect []string) []string {
	var all strings.Builder
	for _, m := range msgs {
		all.WriteString(m.Content)
		all.WriteByte('\n')
		for _, c := range m.ToolCalls {
			all.WriteString(c.Name + " " + c.Arguments + "\n")
		}
	}
	var missing []string
	for _, e := range expect {
		if !strings.Contains(all.String(), e) {
			missing = append(missing, e)
		}
	}
	return missing
}

// refusedText lists the refused texts that the last tool results (the
// tool messages after the last assistant message) hold.
func refusedText(msgs []Message, refuse []string) []string {
	var last strings.Builder
	for i := len(msgs) - 1; i >= 0 && msgs[i].Role == "tool"; i-- {
		last.WriteString(msgs[i].Content)
		last.WriteByte('\n')
	}
	var found []string
	for _, r := range refuse {
		if strings.Contains(last.String(), r) {
			found = append(found, r)
		}
	}
	return found
}

// pairing checks what every provider API insists on: each call has an id
// used once in the conversation, and is answered by exactly one tool
// result before the conversation goes on.
func pairing(msgs []Message) string {
	seen := map[string]bool{}
	var pending []string // calls of the last assistant message not answered yet
	for i, m := range msgs {
		switch m.Role {
		case "tool":
			j := slices.Index(pending, m.ToolCallID)
			if j < 0 {
				return fmt.Sprintf("message %d: the tool result for %q answers no call of the assistant message before it", i+1, m.ToolCallID)
			}
			pending = slices.Delete(pending, j, j+1)
			continue
		case "assistant":
			if len(pending) > 0 {
				return fmt.Sprintf("message %d: calls %q have no tool result before the next assistant message", i+1, pending)
			}
			for _, c := range m.ToolCalls {
				if c.ID == "" {
					return fmt.Sprintf("message %d: a call to %s has no id", i+1, c.Name)
				}
				if seen[c.ID] {
					return fmt.Sprintf("message %d: call id %q is used twice in the conversation", i+1, c.ID)
				}
				seen[c.ID] = true
				pending = append(pending, c.ID)
			}
		default:
			if len(pending) > 0 {
				return fmt.Sprintf("message %d: calls %q have no tool result before this %s message", i+1, pending, m.Role)
			}
		}
	}
	if len(pending) > 0 {
		return fmt.Sprintf("the conversation ends with calls %q unanswered", pending)
	}
	return ""
}

func roleOf(tools []string) string {
	switch {
	case slices.Contains(tools, "spawn_agent"):
		return "lead"
	case slices.Contains(tools, "remember"):
		return "worker"
	}
	return "base"
}

// firstSet returns the first value that is not empty.
func firstSet(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// apiError is an error body in the protocol's shape.
func apiError(proto, msg string) any {
	if proto == Anthropic {
		return map[string]any{"type": "error", "error": map[string]string{"type": "modeltest_error", "message": msg}}
	}
	return map[string]any{"error": map[string]string{"message": msg, "type": "modeltest_error"}}
}
