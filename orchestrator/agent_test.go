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
	if f.together && toolAccess[name] != barrier {
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

// guard is how long a test waits for something that must happen before it
// calls the mechanism broken; it bounds a deadlock, it proves nothing.
const guard = 10 * time.Second

// recordingObserver keeps every call event in a plain slice, with no lock
// of its own: the race detector then proves the agent serialises it.
type recordingObserver struct{ events []string }

func (o *recordingObserver) Text(string)          {}
func (o *recordingObserver) LegDone(int, Reply)   {}
func (o *recordingObserver) CallStart(c ToolCall) { o.events = append(o.events, "start "+c.ID) }
func (o *recordingObserver) CallDone(c ToolCall, _ toolexec.Result, _ time.Duration) {
	o.events = append(o.events, "done "+c.ID)
}

// A lead sending two agents their messages and reading both replies in one
// leg waits for the slowest, not the sum: the sends run together, and each
// read starts as soon as its own pane's send has ended, not when every send
// has. Send 2 is held until read 3 has started (possible only if send 3 ran
// beside it and read 3 did not wait for send 2) and until read 2 is held
// waiting for it; read 2 starting while send 2 runs, or before it, fails.
func TestLegPipelinesSendsAndReads(t *testing.T) {
	read2Waiting := make(chan struct{})
	read2Started := make(chan struct{})
	read3Started := make(chan struct{})
	var sent2, sent3 atomic.Bool
	tools := toolRunnerFunc(func(ctx context.Context, name, args string) toolexec.Result {
		pane := callTarget(name, args).pane
		switch {
		case name == "send_agent" && pane == 2:
			waiting, r3 := read2Waiting, read3Started
			for waiting != nil || r3 != nil {
				select {
				case <-waiting:
					waiting = nil
				case <-r3:
					r3 = nil
				case <-read2Started:
					t.Error("read_agent 2 started while send_agent 2 was running")
					waiting, r3 = nil, nil
				case <-time.After(guard):
					t.Errorf("send_agent 2 ran alone: read_agent 3 started %v, read_agent 2 held %v", r3 == nil, waiting == nil)
					waiting, r3 = nil, nil
				}
			}
			sent2.Store(true)
		case name == "send_agent" && pane == 3:
			sent3.Store(true)
		case name == "read_agent" && pane == 3:
			close(read3Started)
			if !sent3.Load() {
				t.Error("read_agent 3 started before send_agent 3 ended")
			}
		case name == "read_agent" && pane == 2:
			close(read2Started)
			if !sent2.Load() {
				t.Error("read_agent 2 started before send_agent 2 ended")
			}
		}
		return toolexec.Result{Text: "result of " + name + " " + args}
	})
	calls := []ToolCall{
		call("s2", "send_agent", `{"pane":2,"text":"a"}`),
		call("s3", "send_agent", `{"pane":3,"text":"b"}`),
		call("r2", "read_agent", `{"pane":2}`),
		call("r3", "read_agent", `{"pane":3}`),
	}
	obs := &recordingObserver{}
	a := &Agent{Provider: &scripted{replies: []Reply{{Calls: calls}, {Text: "done"}}}, Role: toolexec.RoleLead, Tools: tools, Observer: obs}
	a.waiting = func(i int) {
		if i == 2 {
			close(read2Waiting)
		}
	}
	if _, err := a.Turn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	msgs := a.Messages()
	for i, c := range calls {
		if m := msgs[2+i]; m.ToolCallID != c.ID || m.Content != "result of "+c.Name+" "+c.Arguments {
			t.Errorf("tool message %d is %q for %s, want the result of %s %s", i, m.Content, m.ToolCallID, c.ID, c.Arguments)
		}
	}
	if len(obs.events) != 2*len(calls) {
		t.Errorf("observer saw %q", obs.events)
	}
}

// Messages to one pane keep their order, whatever runs beside them: the
// second send to pane 2 is held until the first has ended, and the read
// after them until the second has. The first send is held until the second
// is seen waiting for it; the second starting instead fails.
func TestSendsToOnePaneKeepTheirOrder(t *testing.T) {
	secondWaiting := make(chan struct{})
	secondStarted := make(chan struct{})
	var mu sync.Mutex
	var order []string
	tools := toolRunnerFunc(func(ctx context.Context, name, args string) toolexec.Result {
		switch args {
		case `{"pane":2,"text":"first"}`:
			select {
			case <-secondWaiting:
			case <-secondStarted:
				t.Error("the second send_agent to pane 2 started while the first was running")
			case <-time.After(guard):
				t.Error("the second send_agent to pane 2 was never held for the first")
			}
		case `{"pane":2,"text":"second"}`:
			close(secondStarted)
		}
		mu.Lock()
		order = append(order, name+" "+args)
		mu.Unlock()
		return toolexec.Result{Text: "ok"}
	})
	a := &Agent{Provider: &scripted{replies: []Reply{{Calls: []ToolCall{
		call("a", "send_agent", `{"pane":2,"text":"first"}`),
		call("f", "read_file", `{"path":"x"}`),
		call("b", "send_agent", `{"pane":2,"text":"second"}`),
		call("r", "read_agent", `{"pane":2}`),
	}}, {Text: "done"}}}, Role: toolexec.RoleLead, Tools: tools}
	a.waiting = func(i int) {
		if i == 2 {
			close(secondWaiting)
		}
	}
	if _, err := a.Turn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	var pane2 []string
	for _, o := range order {
		if !strings.HasPrefix(o, "read_file") {
			pane2 = append(pane2, o)
		}
	}
	want := []string{`send_agent {"pane":2,"text":"first"}`, `send_agent {"pane":2,"text":"second"}`, `read_agent {"pane":2}`}
	if !slices.Equal(pane2, want) {
		t.Errorf("pane 2's calls ran in the order %q, want %q", pane2, want)
	}
}

// callDeps is the whole of what a leg's calls wait for: reads wait for the
// sends before them to their pane, sends for every call before them to
// their pane, list_panes and a pane that is no plain integer count as every
// pane, file reads wait for nothing, and a barrier (anything else) cuts the
// leg so nothing waits across it (it runs alone between them).
func TestCallDeps(t *testing.T) {
	send := func(pane string) ToolCall { return call("", "send_agent", `{"pane":`+pane+`,"text":"x"}`) }
	read := func(pane string) ToolCall { return call("", "read_agent", `{"pane":`+pane+`}`) }
	for _, tc := range []struct {
		name  string
		calls []ToolCall
		want  string
	}{
		{"sends together, each read after its send", []ToolCall{send("2"), send("3"), read("2"), read("3")}, "[] [] [0] [1]"},
		{"a read before a send is waited for", []ToolCall{read("2"), send("2"), read("2")}, "[] [0] [1]"},
		{"sends to one pane in order", []ToolCall{send("2"), send("2"), send("2")}, "[] [0] [0 1]"},
		{"reads never wait for reads", []ToolCall{read("2"), call("", "read_pane", `{"pane":2}`), call("", "list_panes", `{}`), read("3")}, "[] [] [] []"},
		{"list_panes reads every pane", []ToolCall{send("2"), call("", "list_panes", `{}`), send("3")}, "[] [0] [1]"},
		{"an unreadable pane is every pane", []ToolCall{send(`"2"`), read("3"), call("", "send_agent", `{bad`), read("4")}, "[] [0] [0 1] [0 2]"},
		{"file reads wait for nothing", []ToolCall{send("2"), call("", "read_file", `{"path":"x"}`), call("", "grep", `{"pattern":"x"}`), read("2")}, "[] [] [] [0]"},
		{"a barrier cuts the leg", []ToolCall{send("2"), call("", "write_file", `{}`), read("2"), call("", "open_pane", `{}`), call("", "spawn_agent", `{}`), send("2")}, "[] [] [] [] [] []"},
	} {
		names := make([]string, len(tc.calls))
		for i, c := range tc.calls {
			names[i] = c.Name
		}
		var got []string
		for _, d := range callDeps(names, tc.calls) {
			got = append(got, fmt.Sprint(d))
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("%s: deps %s, want %s", tc.name, g, tc.want)
		}
	}
}
