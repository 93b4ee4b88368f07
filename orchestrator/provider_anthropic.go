package orchestrator

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/melmux/melmux/toolexec"
)

// AnthropicMaxTokens is the max_tokens of every Anthropic leg (the API
// requires one): room for a long file written in one tool call.
const AnthropicMaxTokens = 8192

// anthropicProtocol is the Messages API, whose conversation is made of
// content blocks: calls are tool_use blocks, results tool_result blocks of
// a user message.
type anthropicProtocol struct{}

type anRequest struct {
	Model     string      `json:"model"`
	MaxTokens int         `json:"max_tokens"`
	System    string      `json:"system,omitempty"`
	Messages  []anMessage `json:"messages"`
	Tools     []anTool    `json:"tools,omitempty"`
	Stream    bool        `json:"stream"`
}

type anMessage struct {
	Role    string    `json:"role"`
	Content []anBlock `json:"content"`
}

// anBlock is a content block of a request: text, tool_use or tool_result.
type anBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   string          `json:"content,omitempty"`
}

type anTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema toolexec.Schema `json:"input_schema"`
}

type anUsage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
}

// input counts every token of the prompt, cached or not.
func (u anUsage) input() int {
	return u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens
}

type anEvent struct {
	Type    string `json:"type"`
	Index   int    `json:"index"`
	Message struct {
		Usage anUsage `json:"usage"`
	} `json:"message"`
	ContentBlock struct {
		Type  string          `json:"type"`
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	} `json:"content_block"`
	Delta struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		PartialJSON string `json:"partial_json"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Usage *anUsage `json:"usage"`
	Error struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

func (anthropicProtocol) body(req Request, model string) any {
	body := anRequest{Model: model, MaxTokens: AnthropicMaxTokens, Stream: true}
	body.System, body.Messages = anMessages(req.Messages)
	for _, t := range req.Tools {
		body.Tools = append(body.Tools, anTool{Name: t.Name, Description: t.Description, InputSchema: t.Parameters})
	}
	return body
}

// anMessages maps the conversation: system messages become the top-level
// system prompt, calls tool_use blocks, and the tool messages after a call
// one user message of tool_result blocks (Anthropic wants the results of a
// turn together; consecutive messages of one role are merged for that).
func anMessages(msgs []Message) (system string, out []anMessage) {
	var sys []string
	for _, m := range msgs {
		role := m.Role
		var blocks []anBlock
		switch m.Role {
		case "system":
			sys = append(sys, m.Content)
			continue
		case "tool":
			role = "user"
			blocks = append(blocks, anBlock{Type: "tool_result", ToolUseID: m.ToolCallID, Content: m.Content})
		default:
			if m.Content != "" { // the API refuses empty text blocks
				blocks = append(blocks, anBlock{Type: "text", Text: m.Content})
			}
			for _, c := range m.ToolCalls {
				blocks = append(blocks, anBlock{Type: "tool_use", ID: c.ID, Name: c.Name, Input: inputObject(c.Arguments)})
			}
		}
		if len(blocks) == 0 {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Content = append(out[n-1].Content, blocks...)
			continue
		}
		out = append(out, anMessage{Role: role, Content: blocks})
	}
	return strings.Join(sys, "\n\n"), out
}

// inputObject is a call's arguments as the object tool_use wants. Arguments
// that are not an object (the model's mistake, already answered by the
// tool's error) go back as {}.
func inputObject(args string) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(args), &obj) != nil || obj == nil {
		return json.RawMessage("{}")
	}
	return json.RawMessage(args)
}

var anKnownEvents = map[string]bool{
	"": true, "message_start": true, "content_block_start": true, "content_block_delta": true,
	"message_delta": true, "message_stop": true, "error": true,
}

// anToolUse is a tool_use block being streamed.
type anToolUse struct {
	call    ToolCall
	start   string // the input of content_block_start, used when no pieces follow
	pieces  bool
	builder strings.Builder
}

// anWholeMessage is a message sent whole.
type anWholeMessage struct {
	Type    string `json:"type"`
	Content []struct {
		Type  string          `json:"type"`
		Text  string          `json:"text"`
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	} `json:"content"`
	StopReason string  `json:"stop_reason"`
	Usage      anUsage `json:"usage"`
}

// whole reads a message a server sent whole despite "stream": true.
func (anthropicProtocol) whole(raw []byte) (Reply, bool) {
	var m anWholeMessage
	if json.Unmarshal(raw, &m) != nil || m.Type != "message" {
		return Reply{}, false
	}
	reply := Reply{Usage: Usage{InputTokens: m.Usage.input(), OutputTokens: m.Usage.OutputTokens}, Cut: m.StopReason == "max_tokens"}
	for _, b := range m.Content {
		switch b.Type {
		case "text":
			reply.Text += b.Text
		case "tool_use":
			reply.Calls = append(reply.Calls, finishCall(ToolCall{ID: b.ID, Name: b.Name, Arguments: rawArguments(b.Input)}))
		}
	}
	return reply, true
}

// read follows the stream to message_stop. A stream that breaks first
// returns an error and no calls.
func (anthropicProtocol) read(dec *sseDecoder, g *gather) (Reply, error) {
	var (
		reply   Reply
		uses    []*anToolUse
		byIndex = map[int]*anToolUse{}
		stopped bool // a stop_reason arrived: a clean end without message_stop is whole
	)
	err := dec.each(func(sse sseEvent) (bool, error) {
		var ev anEvent
		if err := json.Unmarshal([]byte(sse.Data), &ev); err != nil {
			if !anKnownEvents[sse.Event] {
				return false, nil // not one this reader acts on
			}
			return false, fmt.Errorf("event %q: data is not JSON: %v", sse.Event, err)
		}
		switch firstSet(sse.Event, ev.Type) {
		case "message_start":
			reply.Usage = Usage{InputTokens: ev.Message.Usage.input(), OutputTokens: ev.Message.Usage.OutputTokens}
		case "content_block_start":
			if ev.ContentBlock.Type == "tool_use" {
				u := &anToolUse{call: ToolCall{ID: ev.ContentBlock.ID, Name: ev.ContentBlock.Name}, start: rawArguments(ev.ContentBlock.Input)}
				if err := g.addArgs(len(u.start)); err != nil {
					return false, err
				}
				uses = append(uses, u)
				if err := g.setCalls(len(uses)); err != nil {
					return false, err
				}
				byIndex[ev.Index] = u
			}
		case "content_block_delta":
			switch ev.Delta.Type {
			case "text_delta":
				return false, g.addText(ev.Delta.Text)
			case "input_json_delta":
				if u := byIndex[ev.Index]; u != nil {
					if err := g.addArgs(len(ev.Delta.PartialJSON)); err != nil {
						return false, err
					}
					u.pieces = true
					u.builder.WriteString(ev.Delta.PartialJSON)
				}
			}
		case "message_delta":
			if ev.Delta.StopReason != "" {
				stopped = true
			}
			if ev.Delta.StopReason == "max_tokens" {
				reply.Cut = true
			}
			if ev.Usage != nil { // running totals: overwrite, never add
				if in := ev.Usage.input(); in > 0 {
					reply.Usage.InputTokens = in
				}
				reply.Usage.OutputTokens = ev.Usage.OutputTokens
			}
		case "message_stop":
			return true, nil
		case "error":
			msg := firstSet(ev.Error.Message, sse.Data)
			return false, &eventError{msg: fmt.Sprintf("the stream reported %s: %s", firstSet(ev.Error.Type, "an error"), msg), hint: "try again"}
		}
		return false, nil
	}, func() bool { return stopped }, "message_stop")
	if err != nil {
		return Reply{}, err
	}
	reply.Text = g.text.String()
	for _, u := range uses {
		c := u.call
		if u.pieces {
			c.Arguments = u.builder.String()
		} else {
			c.Arguments = u.start
		}
		reply.Calls = append(reply.Calls, finishCall(c))
	}
	return reply, nil
}
