package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/melmux/melmux/internal/config/agentcfg"
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
	// MaxCalls bounds the calls run in one leg; 0 means
	// agentcfg.DefaultMaxCalls. The calls after it are answered "not run".
	MaxCalls int
	Observer Observer
	Log      *Transcript // nil keeps no transcript

	messages []Message
	legs     int   // legs of the whole conversation
	usage    Usage // tokens of the whole conversation
	usedIDs  map[string]bool
	callSeq  int

	// waiting, when set (by tests), is called as call i of a leg starts
	// waiting for the earlier calls it depends on, so a test can tell a
	// call held back from one not yet scheduled.
	waiting func(i int)
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

// CallLimit is the number of calls run in one leg (MaxCalls or its
// default).
func (a *Agent) CallLimit() int {
	if a.MaxCalls > 0 {
		return a.MaxCalls
	}
	return agentcfg.DefaultMaxCalls
}

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

// access is how a call touches the session, which decides what it must
// wait for when a leg's calls run together: every call of a leg is paid for
// by one model call, and a lead sending three workers their messages, then
// collecting three replies, should wait for the slowest, not the sum.
type access int

const (
	// barrier calls run alone, in order, after every call before them and
	// before every call after them: they change files or the session in
	// ways other calls may see (write_file, run_command), keys typed into a
	// shell run commands whose effects reach anywhere (send_keys), and new
	// panes get their ids from the server in the order it receives the
	// requests (open_pane, spawn_agent), which nothing tells the runner, so
	// creating panes together would number them by goroutine scheduling.
	barrier access = iota
	// free calls only read files or memory: they wait for nothing.
	free
	// paneRead calls read one pane (read_agent, read_pane), or every pane
	// (list_panes): they wait for the sends before them to that pane, so a
	// read_agent after a send_agent in the same leg reads that send's turn.
	paneRead
	// paneWrite calls give one pane its next message (send_agent): they wait
	// for the calls before them to that pane, so one pane's messages keep
	// their order and a read before them reads the turn it meant to.
	paneWrite
)

// toolAccess classifies the tools that may run together; any other tool
// (including one unknown) is a barrier.
var toolAccess = map[string]access{
	"read_file": free, "list_dir": free, "grep": free, "find_files": free, "recall": free,
	"read_agent": paneRead, "read_pane": paneRead, "list_panes": paneRead,
	"send_agent": paneWrite,
}

// target is the pane a call touches: its pane argument, or every pane
// (all) for list_panes and for an argument that is no plain integer (the
// call will fail validation, but whether it did must not depend on timing).
type target struct {
	pane int64
	all  bool
}

func callTarget(name, arguments string) target {
	if name == "list_panes" {
		return target{all: true}
	}
	var args map[string]json.RawMessage
	if json.Unmarshal([]byte(arguments), &args) != nil {
		return target{all: true}
	}
	n, err := strconv.ParseInt(string(args["pane"]), 10, 64)
	if err != nil {
		return target{all: true}
	}
	return target{pane: n}
}

// callDeps says which earlier calls of the leg each call must wait for
// before it starts: for a barrier, none (it runs once everything before it
// has ended, and nothing after it starts before it ends); otherwise the
// earlier calls since the last barrier that touch the same pane, one of them
// a send. Reads never wait for reads, and calls to different panes never
// wait for each other, so [send 2, send 3, read 2, read 3] runs both sends
// at once and each read as soon as its own pane's send has ended.
func callDeps(names []string, calls []ToolCall) [][]int {
	deps := make([][]int, len(calls))
	kinds := make([]access, len(calls))
	targets := make([]target, len(calls))
	since := 0 // the first call after the last barrier
	for j, c := range calls {
		kinds[j] = toolAccess[names[j]]
		switch kinds[j] {
		case barrier:
			since = j + 1
			continue
		case free:
			continue
		}
		targets[j] = callTarget(names[j], c.Arguments)
		for i := since; i < j; i++ {
			if kinds[i] == free || (kinds[i] == paneRead && kinds[j] == paneRead) {
				continue
			}
			ti, tj := targets[i], targets[j]
			if ti.all || tj.all || ti.pane == tj.pane {
				deps[j] = append(deps[j], i)
			}
		}
	}
	return deps
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

// overLimitResult answers each call of a leg past the first limit of
// total: a broken or hostile endpoint can ask for any number of calls in one
// leg (100,000 read_panes all ran, 60,000 at once), and no model needs more
// than a few dozen.
func overLimitResult(total, limit int) toolexec.Result {
	return toolexec.Result{IsError: true, Text: fmt.Sprintf("not run: this leg asked for %d tool calls and at most %d run in one leg "+
		"(max_calls in the [agent] table); the first %d ran. Ask again for the ones still needed, at most %d at a time.", total, limit, limit, limit)}
}

// runCalls runs a leg's calls and returns their results in the calls'
// order. Calls that do not touch the same things run together (see access
// and callDeps); a barrier runs alone on the turn's goroutine. Once ctx has
// ended, the calls not yet started are not run; their results say so,
// keeping one result per call. When the leg was cut by the output token
// limit, a call whose arguments are not a whole JSON object is not run.
// Only the first CallLimit calls run; the others are answered, unseen by
// the observer, with overLimitResult.
func (a *Agent) runCalls(ctx context.Context, calls []ToolCall, cut bool) []toolexec.Result {
	results := make([]toolexec.Result, len(calls))
	if limit := a.CallLimit(); len(calls) > limit {
		for i := limit; i < len(calls); i++ {
			results[i] = overLimitResult(len(calls), limit)
		}
		calls = calls[:limit]
	}
	names := a.toolNames(calls)
	deps := callDeps(names, calls)
	var obsMu sync.Mutex // serialises the observer across calls run together
	run := func(i int) {
		c := calls[i]
		if ctx.Err() != nil {
			results[i] = toolexec.Result{Text: "not run: the turn was interrupted before this call started", IsError: true}
			return
		}
		locked(&obsMu, func() {
			if a.Observer != nil {
				a.Observer.CallStart(c)
			}
		})
		start := time.Now()
		if cut && !json.Valid([]byte(c.Arguments)) {
			results[i] = toolexec.Result{Text: cutCallResult, IsError: true}
		} else {
			results[i] = a.Tools.Run(ctx, names[i], c.Arguments)
		}
		locked(&obsMu, func() {
			if a.Observer != nil {
				a.Observer.CallDone(c, results[i], time.Since(start))
			}
		})
	}
	done := make([]chan struct{}, len(calls))
	var wg sync.WaitGroup
	for i := range calls {
		done[i] = make(chan struct{})
		if toolAccess[names[i]] == barrier {
			wg.Wait()
			run(i)
			close(done[i])
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(done[i])
			if len(deps[i]) > 0 && a.waiting != nil {
				a.waiting(i)
			}
			for _, d := range deps[i] {
				<-done[d]
			}
			run(i)
		}()
	}
	wg.Wait()
	return results
}
