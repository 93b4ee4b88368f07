package modeltest

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// requestError is a request the server refuses with a status.
type requestError struct {
	status int
	msg    string
}

func (e *requestError) Error() string { return e.msg }

func statusOf(err error) int {
	var re *requestError
	if errors.As(err, &re) {
		return re.status
	}
	return http.StatusBadRequest
}

func refuse(status int, format string, args ...any) error {
	return &requestError{status, fmt.Sprintf(format, args...)}
}

// decode checks a request against its protocol and fills rec from it.
func (s *Server) decode(r *http.Request, raw []byte, rec *Recorded) error {
	want := map[string]string{Relay: "/relay", OpenAI: "/v1/chat/completions", Anthropic: "/v1/messages"}[s.proto]
	if r.Method != http.MethodPost || r.URL.Path != want {
		return refuse(http.StatusNotFound, "%s %s: a %s endpoint answers POST %s", r.Method, r.URL.Path, s.proto, want)
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		return refuse(http.StatusUnsupportedMediaType, "Content-Type is %q, want application/json", ct)
	}
	var err error
	switch s.proto {
	case Relay:
		err = decodeRelay(raw, rec)
	case OpenAI:
		err = decodeOpenAI(raw, rec)
	default:
		if r.Header.Get("Anthropic-Version") == "" {
			return refuse(http.StatusBadRequest, "the anthropic-version header is missing")
		}
		err = decodeAnthropic(raw, rec)
	}
	if err != nil {
		return err
	}
	if rec.Role == "" {
		rec.Role = roleOf(rec.Tools)
	}
	return nil
}

func decodeRelay(raw []byte, rec *Recorded) error {
	var body struct {
		Model    string `json:"model"`
		ToolRole string `json:"tool_role"`
		Messages []struct {
			Role       string `json:"role"`
			Content    string `json:"content"`
			ToolCallID string `json:"tool_call_id"`
			ToolCalls  []Call `json:"tool_calls"`
		} `json:"messages"`
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		return refuse(http.StatusBadRequest, "not a relay request: %v", err)
	}
	rec.Model, rec.Role = body.Model, body.ToolRole
	for _, m := range body.Messages {
		rec.Messages = append(rec.Messages, Message{Role: m.Role, Content: m.Content, ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID})
	}
	for _, t := range body.Tools {
		rec.Tools = append(rec.Tools, t.Name)
	}
	return nil
}

func decodeOpenAI(raw []byte, rec *Recorded) error {
	var body struct {
		Model         string `json:"model"`
		Stream        bool   `json:"stream"`
		StreamOptions struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
		Messages []struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCallID string          `json:"tool_call_id"`
			ToolCalls  []struct {
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
		Tools []struct {
			Type     string `json:"type"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		return refuse(http.StatusBadRequest, "not a chat completions request: %v", err)
	}
	if !body.Stream || !body.StreamOptions.IncludeUsage {
		return refuse(http.StatusBadRequest, "want stream: true and stream_options.include_usage: true")
	}
	rec.Model = body.Model
	for i, m := range body.Messages {
		content, err := textOf(m.Content)
		if err != nil {
			return refuse(http.StatusBadRequest, "message %d: %v", i+1, err)
		}
		msg := Message{Role: m.Role, Content: content, ToolCallID: m.ToolCallID}
		for _, c := range m.ToolCalls {
			if c.Type != "function" {
				return refuse(http.StatusBadRequest, "message %d: a tool call of type %q, want function", i+1, c.Type)
			}
			msg.ToolCalls = append(msg.ToolCalls, Call{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
		}
		rec.Messages = append(rec.Messages, msg)
	}
	for i, t := range body.Tools {
		if t.Type != "function" || t.Function.Name == "" {
			return refuse(http.StatusBadRequest, "tool %d: want {\"type\":\"function\",\"function\":{\"name\",...}}", i+1)
		}
		rec.Tools = append(rec.Tools, t.Function.Name)
	}
	return nil
}

type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
}

func decodeAnthropic(raw []byte, rec *Recorded) error {
	var body struct {
		Model     string          `json:"model"`
		MaxTokens int             `json:"max_tokens"`
		Stream    bool            `json:"stream"`
		System    json.RawMessage `json:"system"`
		Messages  []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"input_schema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		return refuse(http.StatusBadRequest, "not a Messages request: %v", err)
	}
	if !body.Stream || body.MaxTokens <= 0 {
		return refuse(http.StatusBadRequest, "want stream: true and max_tokens above 0")
	}
	rec.Model = body.Model
	if len(body.System) > 0 {
		sys, err := textOf(body.System)
		if err != nil {
			return refuse(http.StatusBadRequest, "system: %v", err)
		}
		rec.Messages = append(rec.Messages, Message{Role: "system", Content: sys})
	}
	for i, m := range body.Messages {
		if m.Role != "user" && m.Role != "assistant" {
			return refuse(http.StatusBadRequest, "message %d: role %q, want user or assistant", i+1, m.Role)
		}
		var blocks []anthropicBlock
		var text string
		if json.Unmarshal(m.Content, &text) == nil {
			blocks = []anthropicBlock{{Type: "text", Text: text}}
		} else if err := json.Unmarshal(m.Content, &blocks); err != nil {
			return refuse(http.StatusBadRequest, "message %d: content is neither text nor blocks", i+1)
		}
		msgs, err := anthropicMessages(m.Role, blocks)
		if err != nil {
			return refuse(http.StatusBadRequest, "message %d: %v", i+1, err)
		}
		rec.Messages = append(rec.Messages, msgs...)
	}
	for i, t := range body.Tools {
		if t.Name == "" || len(t.InputSchema) == 0 {
			return refuse(http.StatusBadRequest, "tool %d: want name and input_schema", i+1)
		}
		rec.Tools = append(rec.Tools, t.Name)
	}
	return nil
}

// anthropicMessages flattens one message's blocks: tool_result blocks
// become tool messages, the rest one message of the role.
func anthropicMessages(role string, blocks []anthropicBlock) ([]Message, error) {
	var out []Message
	main := Message{Role: role}
	for _, b := range blocks {
		switch b.Type {
		case "text":
			if b.Text == "" {
				return nil, errors.New("an empty text block (the API refuses them)")
			}
			main.Content += b.Text
		case "tool_use":
			var obj map[string]any
			if role != "assistant" || json.Unmarshal(b.Input, &obj) != nil || obj == nil {
				return nil, errors.New("a tool_use block must be the assistant's, with an object input")
			}
			main.ToolCalls = append(main.ToolCalls, Call{ID: b.ID, Name: b.Name, Arguments: string(b.Input)})
		case "tool_result":
			content, err := textOf(b.Content)
			if err != nil || role != "user" {
				return nil, errors.New("a tool_result block must be the user's, with text content")
			}
			out = append(out, Message{Role: "tool", ToolCallID: b.ToolUseID, Content: content})
		default:
			return nil, fmt.Errorf("a block of type %q", b.Type)
		}
	}
	if main.Content != "" || len(main.ToolCalls) > 0 {
		out = append(out, main)
	}
	return out, nil
}

// textOf reads content that is a string, null, or an array of text parts.
func textOf(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", errors.New("content is neither text nor text parts")
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String(), nil
}
