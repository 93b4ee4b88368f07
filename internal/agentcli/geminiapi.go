package agentcli

import (
	"encoding/json"
	"net/http"
	"strings"
)

// The Gemini API (generateContent, streamGenerateContent, countTokens), as
// Gemini CLI uses it with an API key.

type geminiRequest struct {
	Contents []struct {
		Role  string       `json:"role"`
		Parts []geminiPart `json:"parts"`
	} `json:"contents"`
	GenerationConfig struct {
		ResponseMimeType   string          `json:"responseMimeType"`
		ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
		ResponseSchema     json.RawMessage `json:"responseSchema"`
	} `json:"generationConfig"`
}

type geminiPart struct {
	Text             string          `json:"text,omitempty"`
	FunctionCall     *geminiFunction `json:"functionCall,omitempty"`
	FunctionResponse *geminiFunction `json:"functionResponse,omitempty"`
}

type geminiFunction struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

// geminiMethods are the model methods served, after the colon of
// /v1beta/models/MODEL:METHOD.
var geminiMethods = map[string]bool{"generateContent": true, "streamGenerateContent": true, "countTokens": true}

// geminiPath splits a Gemini API model path; ok is false for any other path.
func geminiPath(path string) (model, method string, ok bool) {
	rest, found := strings.CutPrefix(path, "/v1beta/models/")
	if !found {
		return "", "", false
	}
	model, method, found = strings.Cut(rest, ":")
	return model, method, found && model != "" && geminiMethods[method]
}

func (m *Model) serveGemini(w http.ResponseWriter, r *http.Request, req Request, model, method string) {
	var in geminiRequest
	if err := json.Unmarshal(req.Body, &in); err != nil {
		m.record(req)
		googleError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "the body is not a "+method+" request: "+err.Error())
		return
	}
	if method == "countTokens" {
		m.record(req)
		writeJSON(w, map[string]int{"totalTokens": len(req.Body)/4 + 1})
		return
	}
	req.API, req.Model = "gemini", model
	req.Stream = method == "streamGenerateContent"
	req.Prompt, req.ToolUseID = lastUserParts(in)
	req.Aside = in.GenerationConfig.ResponseMimeType == "application/json"
	m.record(req)
	// The router's aside comes before the turn's own request, which a hold
	// is for: it is answered at once.
	if !req.Aside && !m.held(r.Context()) {
		return
	}
	var parts []geminiPart
	switch rep := m.decide(req); {
	case req.Aside:
		// Gemini CLI asks for structured output on the side (the router's
		// complexity score for the Auto model): an object with every
		// required field set.
		schema := in.GenerationConfig.ResponseJSONSchema
		if len(schema) == 0 {
			schema = in.GenerationConfig.ResponseSchema
		}
		raw, _ := json.Marshal(fillSchema(schema, "answer"))
		parts = []geminiPart{{Text: string(raw)}}
	case rep.CallID != "":
		args, _ := json.Marshal(map[string]string{"command": rep.Cmd, "description": "Run " + rep.Cmd})
		parts = []geminiPart{{FunctionCall: &geminiFunction{ID: rep.CallID, Name: "run_shell_command", Args: args}}}
	default:
		parts = []geminiPart{{Text: rep.Text}}
	}
	usage := map[string]int{"promptTokenCount": len(req.Body)/4 + 1, "candidatesTokenCount": 10, "totalTokenCount": len(req.Body)/4 + 11}
	answer := func(parts []geminiPart, last bool) map[string]any {
		cand := map[string]any{"index": 0, "content": map[string]any{"role": "model", "parts": parts}}
		out := map[string]any{"candidates": []any{cand}, "modelVersion": model, "responseId": "melmux"}
		if last {
			cand["finishReason"] = "STOP"
			out["usageMetadata"] = usage
		}
		return out
	}
	if !req.Stream {
		writeJSON(w, answer(parts, true))
		return
	}
	// alt=sse: each event's data is a GenerateContentResponse; text comes
	// in a few of them, the last one finishing the candidate.
	s := startSSE(w)
	if parts[0].FunctionCall != nil {
		s.data(answer(parts, true))
		return
	}
	pieces := chunks(parts[0].Text, 3)
	for i, piece := range pieces {
		s.data(answer([]geminiPart{{Text: piece}}, i == len(pieces)-1))
	}
}

// lastUserParts reads the last user turn: the function response it carries,
// or its last text that is not a context block (Gemini CLI sends its
// <session_context> as a user turn of its own).
func lastUserParts(in geminiRequest) (prompt, toolUseID string) {
	for i := len(in.Contents) - 1; i >= 0; i-- {
		c := in.Contents[i]
		if c.Role != "user" {
			continue
		}
		for j := len(c.Parts) - 1; j >= 0; j-- {
			p := c.Parts[j]
			if p.FunctionResponse != nil {
				return "", p.FunctionResponse.ID
			}
			t := strings.TrimSpace(p.Text)
			if t != "" && !(strings.HasPrefix(t, "<") && strings.HasSuffix(t, ">")) {
				return p.Text, ""
			}
		}
	}
	return "", ""
}

// fillSchema makes a value of a (Gemini or JSON) schema: every required
// property of an object, the first of an enum, "Scripted NAME" for a
// string, 1 for a number.
func fillSchema(raw json.RawMessage, name string) any {
	var s struct {
		Type       string                     `json:"type"`
		Enum       []any                      `json:"enum"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if json.Unmarshal(raw, &s) != nil {
		return map[string]any{}
	}
	if len(s.Enum) > 0 {
		return s.Enum[0]
	}
	switch strings.ToLower(s.Type) {
	case "string":
		return "Scripted " + name
	case "integer", "number":
		return 1
	case "boolean":
		return false
	case "array":
		return []any{}
	}
	obj := map[string]any{}
	for _, f := range s.Required {
		obj[f] = fillSchema(s.Properties[f], f)
	}
	return obj
}

// googleError answers as Google's APIs do when they refuse a request.
func googleError(w http.ResponseWriter, status int, kind, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": status, "message": msg, "status": kind}})
}
