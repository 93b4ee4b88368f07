package orchestrator

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/melmux/melmux/toolexec"
)

// openAIProtocol is the chat completions API of OpenAI and of the servers
// that copy it (Ollama, vLLM, llama.cpp), each with its own quirks in how
// tool calls are streamed.
type openAIProtocol struct{}

type oaRequest struct {
	Model         string      `json:"model"`
	Messages      []oaMessage `json:"messages"`
	Tools         []oaTool    `json:"tools,omitempty"`
	Stream        bool        `json:"stream"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

type oaMessage struct {
	Role       string       `json:"role"`
	Content    *string      `json:"content"` // null on an assistant message that only calls tools
	ToolCalls  []oaToolCall `json:"tool_calls,omitempty"`
	ToolCallID string       `json:"tool_call_id,omitempty"`
}

type oaToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// oaTool wraps a definition; ToolDef's JSON is already the function shape.
type oaTool struct {
	Type     string           `json:"type"`
	Function toolexec.ToolDef `json:"function"`
}

type oaChunk struct {
	Choices []struct {
		Delta struct {
			Content   string       `json:"content"`
			ToolCalls []oaFragment `json:"tool_calls"`
		} `json:"delta"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *wireUsage      `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// oaFragment is one streamed piece of a tool call.
type oaFragment struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

func (openAIProtocol) body(req Request, model string) any {
	body := oaRequest{Model: model, Messages: oaMessages(req.Messages), Stream: true}
	body.StreamOptions.IncludeUsage = true
	for _, t := range req.Tools {
		body.Tools = append(body.Tools, oaTool{Type: "function", Function: t})
	}
	return body
}

func oaMessages(msgs []Message) []oaMessage {
	out := make([]oaMessage, 0, len(msgs))
	for _, m := range msgs {
		om := oaMessage{Role: m.Role, ToolCallID: m.ToolCallID}
		if m.Content != "" || len(m.ToolCalls) == 0 {
			om.Content = &m.Content
		}
		for _, c := range m.ToolCalls {
			tc := oaToolCall{ID: c.ID, Type: "function"}
			tc.Function.Name, tc.Function.Arguments = c.Name, c.Arguments
			om.ToolCalls = append(om.ToolCalls, tc)
		}
		out = append(out, om)
	}
	return out
}

// read reads chunks to [DONE]. A stream that breaks first returns an
// error and no calls, so the loop never runs half a leg's calls.
func (openAIProtocol) read(dec *sseDecoder, g *gather) (Reply, error) {
	var (
		reply    Reply
		calls    callGatherer
		finished bool // a finish_reason arrived: a clean end without [DONE] is whole
	)
	err := dec.each(func(sse sseEvent) (bool, error) {
		if sse.done() {
			return true, nil
		}
		var chunk oaChunk
		if err := json.Unmarshal([]byte(sse.Data), &chunk); err != nil {
			return false, fmt.Errorf("a chunk is not JSON: %v", err)
		}
		if len(chunk.Error) > 0 && string(chunk.Error) != "null" {
			return false, &eventError{msg: "the stream reported an error: " + errorBody(strings.NewReader(sse.Data))}
		}
		if chunk.Usage != nil {
			reply.Usage = chunk.Usage.usage()
		}
		for _, ch := range chunk.Choices {
			if err := g.addText(ch.Delta.Content); err != nil {
				return false, err
			}
			for _, f := range ch.Delta.ToolCalls {
				if err := g.addArgs(len(f.Function.Arguments)); err != nil {
					return false, err
				}
				calls.add(f)
				if err := g.setCalls(len(calls.calls)); err != nil {
					return false, err
				}
			}
			if ch.FinishReason != "" {
				finished = true
			}
			if ch.FinishReason == "length" {
				reply.Cut = true
			}
		}
		return false, nil
	}, func() bool { return finished }, "[DONE]")
	if err != nil {
		return Reply{}, err
	}
	reply.Text = g.text.String()
	// Whether the model wants tools is what it sent, not finish_reason:
	// several servers say "stop" after streaming calls.
	for _, c := range calls.done() {
		if c.Name == "" {
			return Reply{}, fmt.Errorf("a tool call came without a name (arguments %.80q)", c.Arguments)
		}
		reply.Calls = append(reply.Calls, finishCall(c))
	}
	return reply, nil
}

// oaCompletion is a chat completion sent whole.
type oaCompletion struct {
	Choices []struct {
		Message *struct {
			Content   string       `json:"content"`
			ToolCalls []oaFragment `json:"tool_calls"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *wireUsage `json:"usage"`
}

// whole reads a chat completion a server sent whole despite "stream": true.
func (openAIProtocol) whole(raw []byte) (Reply, bool) {
	var c oaCompletion
	if json.Unmarshal(raw, &c) != nil || len(c.Choices) == 0 || c.Choices[0].Message == nil {
		return Reply{}, false
	}
	reply := Reply{Usage: c.Usage.usage()}
	for _, ch := range c.Choices {
		if ch.Message == nil {
			continue
		}
		reply.Text += ch.Message.Content
		reply.Cut = reply.Cut || ch.FinishReason == "length"
		for _, f := range ch.Message.ToolCalls {
			reply.Calls = append(reply.Calls, finishCall(ToolCall{ID: f.ID, Name: f.Function.Name, Arguments: rawArguments(f.Function.Arguments)}))
		}
	}
	return reply, true
}

// callGatherer joins tool-call fragments into calls. OpenAI sends a call's
// id and name first and its arguments in pieces, all under one index, with
// the pieces of parallel calls interleaved. Ollama sends each call whole in
// one fragment, with no index or index 0 for every call; so a fragment that
// names a call where the call at its index is already whole starts a new one.
type callGatherer struct {
	calls   []ToolCall
	args    []*strings.Builder // each call's arguments so far: pieces appended to a string cost quadratic time
	byIndex map[int]int        // a fragment index → the latest call at it, in calls
}

// done returns the calls with their arguments.
func (g *callGatherer) done() []ToolCall {
	for i := range g.calls {
		g.calls[i].Arguments = g.args[i].String()
	}
	return g.calls
}

func (g *callGatherer) add(f oaFragment) {
	args := rawArguments(f.Function.Arguments)
	pos := -1
	if f.Index != nil {
		if i, ok := g.byIndex[*f.Index]; ok {
			pos = i
		}
	} else if f.ID == "" && f.Function.Name == "" && len(g.calls) > 0 {
		pos = len(g.calls) - 1 // an index-less continuation
	}
	if pos >= 0 && g.startsNew(g.calls[pos], g.args[pos].String(), f) {
		pos = -1
	}
	if pos < 0 {
		g.calls = append(g.calls, ToolCall{})
		g.args = append(g.args, &strings.Builder{})
		pos = len(g.calls) - 1
		if f.Index != nil {
			if g.byIndex == nil {
				g.byIndex = map[int]int{}
			}
			g.byIndex[*f.Index] = pos
		}
	}
	c := &g.calls[pos]
	if c.ID == "" {
		c.ID = f.ID
	}
	if c.Name == "" {
		c.Name = f.Function.Name
	}
	g.args[pos].WriteString(args)
}

// startsNew reports whether fragment f, sent under the index of call c
// (whose arguments so far are args), is really the start of another call.
func (g *callGatherer) startsNew(c ToolCall, args string, f oaFragment) bool {
	if c.Name == "" {
		return false
	}
	if f.ID != "" && c.ID != "" && f.ID != c.ID {
		return true
	}
	if f.Function.Name == "" && f.ID == "" {
		return false // a piece of c's arguments
	}
	// Some servers repeat the id or name on every piece; only a call whose
	// arguments are already whole can be followed by another.
	args = strings.TrimSpace(args)
	if args == "" {
		return f.Function.Name != "" && f.Function.Name != c.Name
	}
	return json.Valid([]byte(args))
}
