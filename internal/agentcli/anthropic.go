package agentcli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// The Anthropic Messages API, as Claude Code uses it.

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

func (m *Model) serveMessages(w http.ResponseWriter, r *http.Request, req Request) {
	var in messagesRequest
	if err := json.Unmarshal(req.Body, &in); err != nil {
		m.record(req)
		apiError(w, http.StatusBadRequest, "invalid_request_error", "the body is not a Messages request: "+err.Error())
		return
	}
	req.API, req.Stream, req.Model = "messages", in.Stream, in.Model
	var err error
	req.Prompt, req.ToolUseID, err = lastUserMessage(in)
	m.record(req)
	if err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	if !m.held(r.Context()) {
		return
	}
	out := toMessage(in.Model, len(req.Body), m.decide(req))
	if in.Stream {
		streamMessage(w, out)
	} else {
		writeJSON(w, out)
	}
}

// lastUserMessage reads the last user message: its last block tells whether
// it returns a tool's result; otherwise the prompt is its last text that is
// not a system reminder (Claude Code puts those in the same message).
func lastUserMessage(in messagesRequest) (prompt, toolUseID string, err error) {
	for i := len(in.Messages) - 1; i >= 0; i-- {
		if in.Messages[i].Role != "user" {
			continue
		}
		var s string
		if json.Unmarshal(in.Messages[i].Content, &s) == nil {
			return s, "", nil
		}
		var blocks []block
		if err := json.Unmarshal(in.Messages[i].Content, &blocks); err != nil {
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

// toMessage puts a reply as a Messages response: text, or a tool_use of
// Claude Code's Bash tool.
func toMessage(model string, inBytes int, rep reply) message {
	stop := "end_turn"
	out := message{ID: "msg_" + rep.CallID, Type: "message", Role: "assistant", Model: model,
		StopReason: &stop, Usage: usage{InputTokens: inBytes/4 + 1, OutputTokens: len(rep.Text)/4 + 1}}
	if rep.CallID == "" {
		out.ID = "msg_melmux"
		out.Content = []block{{Type: "text", Text: rep.Text}}
		return out
	}
	input, _ := json.Marshal(map[string]string{"command": rep.Cmd, "description": "Run " + rep.Cmd})
	name := "Bash"
	if rep.Tool != "" {
		name, input = rep.Tool, json.RawMessage(rep.Input)
	}
	out.Content = []block{{Type: "tool_use", ID: rep.CallID, Name: name, Input: input}}
	toolUse := "tool_use"
	out.StopReason = &toolUse
	return out
}

// streamMessage sends m as the Messages server-sent events.
func streamMessage(w http.ResponseWriter, m message) {
	s := startSSE(w)
	start := m
	start.Content, start.StopReason = []block{}, nil
	start.Usage.OutputTokens = 1
	s.event("message_start", map[string]any{"type": "message_start", "message": start})
	for i, b := range m.Content {
		switch b.Type {
		case "tool_use":
			s.event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": map[string]any{}}})
			s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": string(b.Input)}})
		default:
			s.event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			for _, part := range chunks(b.Text, 3) {
				s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "text_delta", "text": part}})
			}
		}
		s.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	s.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": *m.StopReason, "stop_sequence": nil},
		"usage": map[string]int{"output_tokens": m.Usage.OutputTokens}})
	s.event("message_stop", map[string]any{"type": "message_stop"})
}
