package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/melmux/melmux/toolexec"
)

// DefaultMaxLegs is the leg budget of one turn when none is set.
const DefaultMaxLegs = 50

// ErrBudget is returned (wrapped) by Turn when the turn used its leg budget
// and the model still wanted tools.
var ErrBudget = errors.New("leg budget reached")

// ToolRunner runs one tool call; *toolexec.Executor is one.
type ToolRunner interface {
	Run(ctx context.Context, name, arguments string) toolexec.Result
}

// Observer is told what a turn does as it happens, so a REPL can show it
// and a session can follow it. Every method may be called from the goroutine
// running the turn only, except CallStart/CallDone of calls that run
// together, which are serialised by the agent.
type Observer interface {
	Text(s string)
	LegDone(leg int, r Reply)
	CallStart(c ToolCall)
	CallDone(c ToolCall, res toolexec.Result, took time.Duration)
}

// Agent is one conversation with a model. Turn is not safe for concurrent
// use: one goroutine runs turns, one after the other.
type Agent struct {
	Provider Provider
	Model    string
	Role     toolexec.Role
	Tools    ToolRunner
	MaxLegs  int // per turn; 0 means DefaultMaxLegs
	Observer Observer
	Log      *Transcript // nil keeps no transcript

	messages []Message
	legs     int   // legs of the whole conversation
	usage    Usage // tokens of the whole conversation
	usedIDs  map[string]bool
	callSeq  int
}

// TurnResult is what one turn came to.
type TurnResult struct {
	Reply string // the final assistant text
	Legs  int    // legs this turn
	Usage Usage  // tokens this turn
}

// SetSystem sets (or replaces) the system prompt, the first message.
func (a *Agent) SetSystem(prompt string) {
	m := Message{Role: "system", Content: prompt}
	if len(a.messages) > 0 && a.messages[0].Role == "system" {
		a.messages[0] = m
		return
	}
	a.messages = append([]Message{m}, a.messages...)
}

// Restore continues a conversation read back from a transcript.
func (a *Agent) Restore(r *Restored) {
	a.messages = append([]Message(nil), r.Messages...)
	a.legs, a.usage = r.Legs, r.Usage
	for _, m := range a.messages {
		for _, c := range m.ToolCalls {
			a.markUsed(c.ID)
		}
	}
}

// Messages returns a copy of the conversation.
func (a *Agent) Messages() []Message { return append([]Message(nil), a.messages...) }

// Legs is the number of legs of the whole conversation.
func (a *Agent) Legs() int { return a.legs }

// Usage is the token count of the whole conversation.
func (a *Agent) Usage() Usage { return a.usage }

func (a *Agent) maxLegs() int {
	if a.MaxLegs > 0 {
		return a.MaxLegs
	}
	return DefaultMaxLegs
}

// toolDefs are the role's definitions, verbatim from toolexec.
func (a *Agent) toolDefs() []toolexec.ToolDef { return toolexec.Definitions(a.Role) }

// Turn sends text as the next user message and runs legs until the model
// answers without tool calls, the leg budget is spent (ErrBudget), the
// provider fails, or ctx ends. The conversation stays well formed in every
// case: each assistant message with calls is followed by one tool message
// per call, so the next turn (or a resume) can go on from it.
func (a *Agent) Turn(ctx context.Context, text string) (TurnResult, error) {
	var res TurnResult
	a.appendMessage(Message{Role: "user", Content: text})
	for {
		if res.Legs >= a.maxLegs() {
			return res, fmt.Errorf("%w: stopped after %d legs (each a paid model call) with the model still asking for tools; send another message to let it go on, or raise --max-legs (max_legs in the [agent] table)", ErrBudget, res.Legs)
		}
		reply, err := a.Provider.Leg(ctx, Request{Model: a.Model, Role: a.Role, Messages: a.Messages(), Tools: a.toolDefs()}, a.text)
		if err != nil {
			return res, fmt.Errorf("leg %d: %w", res.Legs+1, err)
		}
		res.Legs++
		a.legs++
		res.Usage = res.Usage.Add(reply.Usage)
		a.usage = a.usage.Add(reply.Usage)
		reply.Calls = a.uniqueIDs(reply.Calls)
		a.appendMessage(Message{Role: "assistant", Content: reply.Text, ToolCalls: wellFormed(reply.Calls)})
		a.Log.leg(a.legs, reply.Usage)
		if a.Observer != nil {
			a.Observer.LegDone(a.legs, reply)
		}
		if len(reply.Calls) == 0 {
			res.Reply = reply.Text
			if reply.Cut {
				res.Reply = strings.TrimRight(res.Reply, "\n") + "\n" + CutNote
			}
			return res, nil
		}
		results := a.runCalls(ctx, reply.Calls, reply.Cut)
		for i, c := range reply.Calls {
			a.appendMessage(Message{Role: "tool", ToolCallID: c.ID, Content: results[i].Text})
		}
		if err := ctx.Err(); err != nil {
			return res, fmt.Errorf("interrupted after leg %d: %w", res.Legs, err)
		}
	}
}

func (a *Agent) text(s string) {
	if a.Observer != nil && s != "" {
		a.Observer.Text(s)
	}
}

func (a *Agent) appendMessage(m Message) {
	a.messages = append(a.messages, m)
	a.Log.message(m)
}

// uniqueIDs gives every call an id never used before in the conversation:
// some servers send none, and some number their calls afresh every leg
// ("call_0" each time), which would pair a result with the wrong call.
func (a *Agent) uniqueIDs(calls []ToolCall) []ToolCall {
	out := make([]ToolCall, len(calls))
	for i, c := range calls {
		if c.ID == "" || a.usedIDs[c.ID] {
			for {
				a.callSeq++
				c.ID = fmt.Sprintf("call_mx%d", a.callSeq)
				if !a.usedIDs[c.ID] {
					break
				}
			}
		}
		if strings.TrimSpace(c.Arguments) == "" {
			c.Arguments = "{}"
		}
		a.markUsed(c.ID)
		out[i] = c
	}
	return out
}

// wellFormed is calls as the conversation keeps them: arguments that are
// not a JSON object (the model's mistake, or cut by its output limit) become
// {}. Servers that read the history's arguments (vLLM, llama.cpp's chat
// templates, Anthropic's tool_use input) refuse every later leg over one
// malformed call; its result already quotes what the model sent. The calls
// run with their arguments as sent, so the tool's error says what was wrong.
func wellFormed(calls []ToolCall) []ToolCall {
	out := make([]ToolCall, len(calls))
	for i, c := range calls {
		var obj map[string]json.RawMessage
		if json.Unmarshal([]byte(c.Arguments), &obj) != nil || obj == nil {
			c.Arguments = "{}"
		}
		out[i] = c
	}
	return out
}

func (a *Agent) markUsed(id string) {
	if a.usedIDs == nil {
		a.usedIDs = map[string]bool{}
	}
	a.usedIDs[id] = true
}

// readOnlyTools only read or wait: consecutive calls of these in one leg run
// together (a lead collecting three workers' replies waits once, not three
// times). Everything else runs alone, in order.
var readOnlyTools = map[string]bool{
	"read_agent": true, "read_pane": true, "list_panes": true,
	"read_file": true, "list_dir": true, "grep": true, "find_files": true, "recall": true,
}

// functionsPrefix starts the call names of some models served through
// vLLM or Ollama (gpt-oss's harmony format says "functions.read_pane").
const functionsPrefix = "functions."

// toolNames are the tools the calls run: the name the model used, or that
// name without functionsPrefix when only that is a tool the role offers.
// The conversation keeps the names as the model sent them; a name that is
// no tool either way runs as sent, for the executor's error listing the
// role's tools.
func (a *Agent) toolNames(calls []ToolCall) []string {
	offered := map[string]bool{}
	for _, d := range a.toolDefs() {
		offered[d.Name] = true
	}
	names := make([]string, len(calls))
	for i, c := range calls {
		names[i] = c.Name
		if bare, ok := strings.CutPrefix(c.Name, functionsPrefix); ok && !offered[c.Name] && offered[bare] {
			names[i] = bare
		}
	}
	return names
}

// CutNote ends a reply the model's output token limit cut short.
const CutNote = "[the reply was cut off here: the model reached its output token limit]"

// cutCallResult answers a call whose arguments the output token limit cut
// short: running it would fail on broken JSON, or worse, run on what is
// there; the model is told why, and how to avoid it.
const cutCallResult = "not run: your reply reached the output token limit while writing this call's arguments, " +
	"so they were cut short. Send less in one call: write a long file in parts (write_file the start, then " +
	"edit_file to add the rest), or split the work over several calls."

// runCalls runs a leg's calls and returns their results in the calls'
// order. Once ctx has ended, the calls not yet started are not run; their
// results say so, keeping one result per call. When the leg was cut by the
// output token limit, a call whose arguments are not a whole JSON object is
// not run.
func (a *Agent) runCalls(ctx context.Context, calls []ToolCall, cut bool) []toolexec.Result {
	results := make([]toolexec.Result, len(calls))
	names := a.toolNames(calls)
	var obsMu sync.Mutex // serialises the observer across calls run together
	run := func(i int) {
		c := calls[i]
		if ctx.Err() != nil {
			results[i] = toolexec.Result{Text: "not run: the turn was interrupted before this call started", IsError: true}
			return
		}
		obsMu.Lock()
		if a.Observer != nil {
			a.Observer.CallStart(c)
		}
		obsMu.Unlock()
		start := time.Now()
		if cut && !json.Valid([]byte(c.Arguments)) {
			results[i] = toolexec.Result{Text: cutCallResult, IsError: true}
		} else {
			results[i] = a.Tools.Run(ctx, names[i], c.Arguments)
		}
		obsMu.Lock()
		if a.Observer != nil {
			a.Observer.CallDone(c, results[i], time.Since(start))
		}
		obsMu.Unlock()
	}
	for i := 0; i < len(calls); {
		j := i + 1
		if readOnlyTools[names[i]] {
			for j < len(calls) && readOnlyTools[names[j]] {
				j++
			}
		}
		if j-i == 1 {
			run(i)
		} else {
			var wg sync.WaitGroup
			for k := i; k < j; k++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					run(k)
				}()
			}
			wg.Wait()
		}
		i = j
	}
	return results
}
