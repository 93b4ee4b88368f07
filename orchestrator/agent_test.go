package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/melmux/melmux/toolexec"
)

// scripted is a Provider answering legs from a list and keeping every
// request, for tests of the loop itself (the wire protocols have their own).
type scripted struct {
	mu      sync.Mutex
	replies []Reply
	reqs    []Request
}

func (s *scripted) Name() string { return "scripted" }

func (s *scripted) Leg(ctx context.Context, req Request, onText func(string)) (Reply, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, req)
	if len(s.replies) == 0 {
		return Reply{}, errors.New("script exhausted")
	}
	r := s.replies[0]
	s.replies = s.replies[1:]
	if onText != nil {
		onText(r.Text)
	}
	return r, nil
}

// fakeTools records calls; read-only tools block until released, so the
// test can see them run together.
type fakeTools struct {
	// together makes read-only calls wait (up to 2s) for a sibling to be
	// inside Run at the same time, so running them together shows.
	together bool

	mu      sync.Mutex
	calls   []string
	inside  atomic.Int32
	maxSeen atomic.Int32
}

func (f *fakeTools) Run(ctx context.Context, name, args string) toolexec.Result {
	n := f.inside.Add(1)
	for {
		m := f.maxSeen.Load()
		if n <= m || f.maxSeen.CompareAndSwap(m, n) {
			break
		}
	}
	if f.together && readOnlyTools[name] {
		// Give a concurrent sibling the chance to be inside at the same time.
		deadline := time.Now().Add(2 * time.Second)
		for f.maxSeen.Load() < 2 && time.Now().Before(deadline) && ctx.Err() == nil {
			time.Sleep(time.Millisecond)
		}
	}
	f.inside.Add(-1)
	f.mu.Lock()
	f.calls = append(f.calls, name+" "+args)
	f.mu.Unlock()
	return toolexec.Result{Text: "result of " + name + " " + args}
}

func call(id, name, args string) ToolCall { return ToolCall{ID: id, Name: name, Arguments: args} }

func TestTurnPairsResultsWithCallsInOrder(t *testing.T) {
	p := &scripted{replies: []Reply{
		{Text: "looking", Calls: []ToolCall{call("a", "read_pane", `{"pane":2}`), call("b", "read_agent", `{"pane":3}`), call("", "send_keys", "")}, Usage: Usage{10, 5}},
		{Text: "again", Calls: []ToolCall{call("a", "list_panes", `{}`)}, Usage: Usage{20, 5}},
		{Text: "all done", Usage: Usage{30, 7}},
	}}
	tools := &fakeTools{together: true}
	a := &Agent{Provider: p, Role: toolexec.RoleLead, Tools: tools}
	a.SetSystem("sys")
	res, err := a.Turn(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	if res.Reply != "all done" || res.Legs != 3 || res.Usage != (Usage{60, 17}) {
		t.Fatalf("result %+v", res)
	}
	if tools.maxSeen.Load() < 2 {
		t.Errorf("read_pane and read_agent of one leg did not run together")
	}
	msgs := a.Messages()
	var roles []string
	for _, m := range msgs {
		roles = append(roles, m.Role)
	}
	if got := strings.Join(roles, ","); got != "system,user,assistant,tool,tool,tool,assistant,tool,assistant" {
		t.Fatalf("roles %s", got)
	}
	// Results follow their calls in the calls' order, ids paired.
	first := msgs[2].ToolCalls
	for i, c := range first {
		if msgs[3+i].ToolCallID != c.ID {
			t.Fatalf("tool message %d answers %q, want %q", i, msgs[3+i].ToolCallID, c.ID)
		}
		if !strings.Contains(msgs[3+i].Content, c.Name) {
			t.Fatalf("tool message %d is %q, not the result of %s", i, msgs[3+i].Content, c.Name)
		}
	}
	// A missing id is made up; an id used before is never used again.
	seen := map[string]bool{}
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			if c.ID == "" || seen[c.ID] {
				t.Fatalf("call id %q empty or reused", c.ID)
			}
			seen[c.ID] = true
		}
	}
	if msgs[2].ToolCalls[2].Arguments != "{}" {
		t.Errorf("empty arguments sent as %q, want {}", msgs[2].ToolCalls[2].Arguments)
	}
	// Every leg carried the role's definitions, verbatim.
	if got, want := len(p.reqs[0].Tools), len(toolexec.Definitions(toolexec.RoleLead)); got != want {
		t.Errorf("leg offered %d tools, want %d", got, want)
	}
	if a.Legs() != 3 {
		t.Errorf("legs %d", a.Legs())
	}
}

func TestTurnStopsAtBudgetWithConversationWellFormed(t *testing.T) {
	var replies []Reply
	for i := 0; i < 5; i++ {
		replies = append(replies, Reply{Calls: []ToolCall{call(fmt.Sprint("c", i), "list_panes", "{}")}})
	}
	p := &scripted{replies: replies}
	a := &Agent{Provider: p, Role: toolexec.RoleLead, Tools: &fakeTools{}, MaxLegs: 3}
	res, err := a.Turn(context.Background(), "loop forever")
	if !errors.Is(err, ErrBudget) || !strings.Contains(err.Error(), "--max-legs") {
		t.Fatalf("err = %v, want the leg budget", err)
	}
	if res.Legs != 3 || len(p.reqs) != 3 {
		t.Fatalf("legs %d, requests %d; want 3", res.Legs, len(p.reqs))
	}
	msgs := a.Messages()
	if last := msgs[len(msgs)-1]; last.Role != "tool" {
		t.Fatalf("conversation ends with %s, want the last call's result", last.Role)
	}
}

func TestTranscriptResumeRepairsUnansweredCalls(t *testing.T) {
	dir := t.TempDir()
	tr, err := CreateTranscript(dir, Meta{ID: "0f0e-abc", Role: "lead", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	a := &Agent{Provider: &scripted{replies: []Reply{{Text: "hi", Usage: Usage{3, 4}}}}, Role: toolexec.RoleLead, Tools: &fakeTools{}, Log: tr}
	a.SetSystem("sys")
	if _, err := a.Turn(context.Background(), "hello"); err != nil {
		t.Fatal(err)
	}
	tr.TurnEnd(1, "hi", nil)
	// The agent dies after a leg asked for a call, before its result.
	tr.message(Message{Role: "user", Content: "write it"})
	tr.message(Message{Role: "assistant", ToolCalls: []ToolCall{call("w1", "write_file", `{"path":"x","content":"y"}`)}})
	tr.Close()
	// And the last line was torn.
	f, _ := os.OpenFile(tr.Path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"type":"message","mess`)
	f.Close()

	path, err := FindTranscript(dir, "0f0e")
	if err != nil || path != filepath.Join(dir, "0f0e-abc.jsonl") {
		t.Fatalf("find by prefix: %q %v", path, err)
	}
	tr2, r, err := OpenTranscript(path)
	if err != nil {
		t.Fatal(err)
	}
	defer tr2.Close()
	if r.Meta.ID != "0f0e-abc" || r.Legs != 1 || r.Usage != (Usage{3, 4}) || r.Turns != 1 || r.LastReply != "hi" {
		t.Fatalf("restored %+v", r)
	}
	if len(r.Repaired) != 1 || r.Repaired[0] != "write_file" {
		t.Fatalf("repaired %v", r.Repaired)
	}
	last := r.Messages[len(r.Messages)-1]
	if last.Role != "tool" || last.ToolCallID != "w1" || !strings.Contains(last.Content, "not run again") {
		t.Fatalf("last message %+v", last)
	}
	// The repair is in the file too, so a second resume needs none.
	tr2.Close()
	_, r2, err := OpenTranscript(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(r2.Repaired) != 0 || len(r2.Messages) != len(r.Messages) {
		t.Fatalf("second resume repaired %v, %d messages (want 0, %d)", r2.Repaired, len(r2.Messages), len(r.Messages))
	}
	// A resumed agent never reuses an id of the old conversation.
	b := &Agent{Provider: &scripted{replies: []Reply{{Calls: []ToolCall{call("w1", "list_panes", "{}")}}, {Text: "ok"}}}, Role: toolexec.RoleLead, Tools: &fakeTools{}}
	b.Restore(r2)
	if _, err := b.Turn(context.Background(), "more"); err != nil {
		t.Fatal(err)
	}
	msgs := b.Messages()
	if id := msgs[len(msgs)-3].ToolCalls[0].ID; id == "w1" {
		t.Fatalf("id w1 reused after resume")
	}
	if _, err := FindTranscript(dir, "nope"); !errors.Is(err, ErrNoTranscript) {
		t.Fatalf("missing id: %v", err)
	}
}

func TestInterruptedTurnAnswersEveryCall(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p := &scripted{replies: []Reply{{Calls: []ToolCall{call("x", "write_plan", `{}`), call("y", "write_plan", `{}`)}}}}
	tools := toolRunnerFunc(func(ctx context.Context, name, args string) toolexec.Result {
		cancel() // Ctrl-C while the first call runs
		return toolexec.Result{Text: "plan written"}
	})
	a := &Agent{Provider: p, Role: toolexec.RoleLead, Tools: tools}
	_, err := a.Turn(ctx, "plan")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	msgs := a.Messages()
	if len(msgs) != 4 || msgs[2].Content != "plan written" || !strings.Contains(msgs[3].Content, "not run") {
		t.Fatalf("messages %+v", msgs)
	}
}

type toolRunnerFunc func(ctx context.Context, name, args string) toolexec.Result

func (f toolRunnerFunc) Run(ctx context.Context, name, args string) toolexec.Result {
	return f(ctx, name, args)
}

// A leg cut by the output token limit does not run the call it cut (its
// arguments are broken JSON): the model is told why; the whole calls before
// it run. A cut final answer says it was cut.
func TestTurnWithCutReply(t *testing.T) {
	p := &scripted{replies: []Reply{
		{Calls: []ToolCall{call("a", "list_panes", `{}`), call("b", "write_file", `{"path":"x","content":"abc`)}, Cut: true},
		{Text: "the answer is", Cut: true},
	}}
	tools := &fakeTools{}
	a := &Agent{Provider: p, Role: toolexec.RoleLead, Tools: tools}
	res, err := a.Turn(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.calls) != 1 || tools.calls[0] != "list_panes {}" {
		t.Errorf("calls run: %q", tools.calls)
	}
	msgs := a.Messages()
	if got := msgs[3].Content; !strings.Contains(got, "output token limit") || !strings.Contains(got, "not run") {
		t.Errorf("the cut call's result: %q", got)
	}
	if res.Reply != "the answer is\n"+CutNote {
		t.Errorf("reply %q", res.Reply)
	}
}

// A call whose arguments are not a JSON object runs as sent (its error says
// what was wrong) but is kept in the conversation with {}: servers that read
// the history's arguments refused every later leg over it.
func TestMalformedArgumentsKeptWellFormed(t *testing.T) {
	p := &scripted{replies: []Reply{
		{Calls: []ToolCall{call("a", "read_pane", `{bad`), call("b", "read_pane", `[1]`), call("c", "read_pane", `{"pane":2}`)}},
		{Text: "done"},
	}}
	tools := &fakeTools{}
	a := &Agent{Provider: p, Role: toolexec.RoleLead, Tools: tools}
	if _, err := a.Turn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	slices.Sort(tools.calls) // read_pane calls run together
	if got := strings.Join(tools.calls, "|"); got != `read_pane [1]|read_pane {"pane":2}|read_pane {bad` {
		t.Errorf("calls ran with %q", got)
	}
	sent := p.reqs[1].Messages[1].ToolCalls
	if sent[0].Arguments != "{}" || sent[1].Arguments != "{}" || sent[2].Arguments != `{"pane":2}` {
		t.Errorf("the next leg was sent %+v", sent)
	}
}

// Some models served through vLLM or Ollama (gpt-oss's harmony format) name
// their calls "functions.read_file": the tool offered without the prefix
// runs, the conversation keeps the name the model used, and a name that is
// not a tool either way still gets the error listing the role's tools.
func TestFunctionsPrefixedCallRunsTheTool(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello from the file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &scripted{replies: []Reply{
		{Calls: []ToolCall{call("a", "functions.read_file", `{"path":"notes.txt"}`), call("b", "functions.launch", `{}`), call("c", "functions.", `{}`)}},
		{Text: "done"},
	}}
	exec := &toolexec.Executor{Root: dir, Role: toolexec.RoleWorker}
	defer exec.Close()
	a := &Agent{Provider: p, Role: toolexec.RoleWorker, Tools: exec}
	if _, err := a.Turn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	msgs := p.reqs[1].Messages
	if got := msgs[1].ToolCalls[0].Name; got != "functions.read_file" {
		t.Errorf("the conversation names the call %q, not as the model did", got)
	}
	if r := msgs[2]; r.ToolCallID != "a" || !strings.Contains(r.Content, "hello from the file") {
		t.Errorf("functions.read_file answered %q", r.Content)
	}
	for i, name := range []string{`"functions.launch"`, `"functions."`} {
		r := msgs[3+i]
		if !strings.Contains(r.Content, "unknown tool "+name) || !strings.Contains(r.Content, "read_file") {
			t.Errorf("call %s answered %q, want the unknown-tool error listing the tools", name, r.Content)
		}
	}
}
