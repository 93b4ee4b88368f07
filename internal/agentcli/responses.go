package agentcli

import (
	"encoding/json"
	"net/http"
	"strings"
)

// The OpenAI Responses API, as Codex uses it.

type responsesRequest struct {
	Model  string `json:"model"`
	Stream bool   `json:"stream"`
	Input  []struct {
		Type    string `json:"type"`
		Role    string `json:"role"`
		CallID  string `json:"call_id"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	} `json:"input"`
	Text struct {
		Format struct {
			Type   string `json:"type"`
			Schema struct {
				Required []string `json:"required"`
			} `json:"schema"`
		} `json:"format"`
	} `json:"text"`
}

func (m *Model) serveResponses(w http.ResponseWriter, r *http.Request, req Request) {
	var in responsesRequest
	if err := json.Unmarshal(req.Body, &in); err != nil {
		m.record(req)
		apiError(w, http.StatusBadRequest, "invalid_request_error", "the body is not a Responses request: "+err.Error())
		return
	}
	req.API, req.Stream, req.Model = "responses", in.Stream, in.Model
	req.Prompt, req.ToolUseID = lastUserInput(in)
	req.Aside = in.Text.Format.Type == "json_schema"
	m.record(req)
	if !m.held(r.Context()) {
		return
	}
	var item map[string]any
	switch rep := m.decide(req); {
	case req.Aside:
		// Codex asks for structured output (a thread title) on the side: an
		// object with every required field set.
		obj := map[string]string{}
		for _, f := range in.Text.Format.Schema.Required {
			obj[f] = "Scripted " + f
		}
		raw, _ := json.Marshal(obj)
		item = textItem(string(raw))
	case rep.CallID != "":
		args, _ := json.Marshal(map[string]string{"cmd": rep.Cmd, "sandbox_permissions": "require_escalated",
			"justification": "Run " + rep.Cmd})
		item = map[string]any{"type": "function_call", "id": "fc_" + rep.CallID, "call_id": rep.CallID,
			"name": "exec_command", "arguments": string(args), "status": "completed"}
	default:
		item = textItem(rep.Text)
	}
	resp := map[string]any{"id": "resp_melmux", "object": "response", "model": in.Model, "status": "completed",
		"output": []any{item}, "usage": map[string]any{"input_tokens": len(req.Body)/4 + 1, "output_tokens": 10,
			"total_tokens": len(req.Body)/4 + 11, "input_tokens_details": map[string]int{"cached_tokens": 0},
			"output_tokens_details": map[string]int{"reasoning_tokens": 0}}}
	if !in.Stream {
		writeJSON(w, resp)
		return
	}
	s := startSSE(w)
	s.event("response.created", map[string]any{"type": "response.created",
		"response": map[string]any{"id": "resp_melmux", "object": "response", "model": in.Model, "status": "in_progress", "output": []any{}}})
	started := map[string]any{}
	for k, v := range item {
		started[k] = v
	}
	started["status"] = "in_progress"
	if item["type"] == "message" {
		started["content"] = []any{}
	} else {
		started["arguments"] = ""
	}
	s.event("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0, "item": started})
	if item["type"] == "message" {
		text := item["content"].([]any)[0].(map[string]any)["text"].(string)
		for _, part := range chunks(text, 3) {
			s.event("response.output_text.delta", map[string]any{"type": "response.output_text.delta",
				"output_index": 0, "item_id": item["id"], "content_index": 0, "delta": part})
		}
	}
	s.event("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	s.event("response.completed", map[string]any{"type": "response.completed", "response": resp})
}

func textItem(text string) map[string]any {
	return map[string]any{"type": "message", "id": "msg_melmux", "role": "assistant", "status": "completed",
		"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}}
}

// lastUserInput reads the end of a Responses input: a tool's output, or the
// last text of the last user message that is not a context block (Codex
// sends <environment_context> and the like as user messages too).
func lastUserInput(in responsesRequest) (prompt, toolUseID string) {
	if n := len(in.Input); n > 0 && in.Input[n-1].Type == "function_call_output" {
		return "", in.Input[n-1].CallID
	}
	for i := len(in.Input) - 1; i >= 0; i-- {
		it := in.Input[i]
		if it.Type != "message" || it.Role != "user" {
			continue
		}
		for j := len(it.Content) - 1; j >= 0; j-- {
			t := strings.TrimSpace(it.Content[j].Text)
			if it.Content[j].Type == "input_text" && !(strings.HasPrefix(t, "<") && strings.HasSuffix(t, ">")) {
				return it.Content[j].Text, ""
			}
		}
	}
	return "", ""
}
