package agentcli

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// geminiAnswer is the part of a GenerateContentResponse the tests read.
type geminiAnswer struct {
	Candidates []struct {
		Content struct {
			Role  string       `json:"role"`
			Parts []geminiPart `json:"parts"`
		} `json:"content"`
		FinishReason string `json:"finishReason"`
	} `json:"candidates"`
	UsageMetadata *struct {
		TotalTokenCount int `json:"totalTokenCount"`
	} `json:"usageMetadata"`
}

// sseData reads an alt=sse stream: one GenerateContentResponse per event.
func sseData(t *testing.T, resp *http.Response) []geminiAnswer {
	t.Helper()
	var out []geminiAnswer
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if raw, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var a geminiAnswer
			if err := json.Unmarshal([]byte(raw), &a); err != nil {
				t.Fatalf("event data %q: %v", raw, err)
			}
			out = append(out, a)
		}
	}
	return out
}

func userTurn(parts string) string { return `{"role":"user","parts":[` + parts + `]}` }

func TestGeminiStreamedTextCallAndResult(t *testing.T) {
	m := newEndpoint(t)
	m.AddRule(Rule{Match: "say hello", Text: "Hello there."})
	m.AddRule(Rule{Match: "run it", Command: "touch done", Text: "It ran."})
	base := m.URL() + "/v1beta/models/gemini-test:"
	context := userTurn(`{"text":"<session_context>\nworkspace\n</session_context>"}`)

	resp := post(t, base+"streamGenerateContent?alt=sse", `{"contents":[`+context+`,`+userTurn(`{"text":"please say hello"}`)+`]}`)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	events := sseData(t, resp)
	var text strings.Builder
	for i, e := range events {
		text.WriteString(e.Candidates[0].Content.Parts[0].Text)
		if last := i == len(events)-1; (e.Candidates[0].FinishReason == "STOP") != last || (e.UsageMetadata != nil) != last {
			t.Errorf("event %d of %d: finishReason %q, usage %v", i+1, len(events), e.Candidates[0].FinishReason, e.UsageMetadata)
		}
	}
	if text.String() != "Hello there." || len(events) < 2 || events[0].Candidates[0].Content.Role != "model" {
		t.Fatalf("streamed %q in %d events", text.String(), len(events))
	}

	events = sseData(t, post(t, base+"streamGenerateContent?alt=sse", `{"contents":[`+userTurn(`{"text":"run it"}`)+`]}`))
	if len(events) != 1 || events[0].Candidates[0].Content.Parts[0].FunctionCall == nil {
		t.Fatalf("want one event with a function call, got %+v", events)
	}
	call := events[0].Candidates[0].Content.Parts[0].FunctionCall
	var args map[string]string
	if err := json.Unmarshal(call.Args, &args); err != nil || call.Name != "run_shell_command" || args["command"] != "touch done" || call.ID == "" {
		t.Fatalf("call %+v (%v)", call, err)
	}

	var answer geminiAnswer
	resp = post(t, base+"generateContent", `{"contents":[`+userTurn(`{"text":"run it"}`)+`,
		{"role":"model","parts":[{"functionCall":{"id":"`+call.ID+`","name":"run_shell_command","args":{}}}]},
		`+userTurn(`{"functionResponse":{"id":"`+call.ID+`","name":"run_shell_command","response":{"output":"ok"}}}`)+`]}`)
	if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil || answer.Candidates[0].Content.Parts[0].Text != "It ran." ||
		answer.Candidates[0].FinishReason != "STOP" {
		t.Fatalf("after the call's result: %+v %v", answer, err)
	}

	reqs := m.Requests()
	if len(reqs) != 3 || reqs[0].API != "gemini" || !reqs[0].Stream || reqs[0].Model != "gemini-test" || reqs[0].Prompt != "please say hello" ||
		reqs[2].Stream || reqs[2].ToolUseID != call.ID || reqs[2].Prompt != "" {
		t.Errorf("recorded %+v", reqs)
	}
}

// Gemini CLI's router asks for JSON on the side: it gets an object of its
// schema, whatever the rules say, and is answered even while answers are
// held (the turn's own request waits for it).
func TestGeminiAside(t *testing.T) {
	m := newEndpoint(t)
	m.AddRule(Rule{Match: "say hello", Text: "not for the router"})
	m.Hold()
	defer m.Release()
	var answer geminiAnswer
	resp := post(t, m.URL()+"/v1beta/models/router:generateContent", `{"contents":[`+userTurn(`{"text":"say hello"}`)+`],
		"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"type":"OBJECT",
		"properties":{"complexity_reasoning":{"type":"STRING"},"complexity_score":{"type":"INTEGER"},"pick":{"type":"STRING","enum":["user","model"]}},
		"required":["complexity_reasoning","complexity_score","pick"]}}}`)
	if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(answer.Candidates[0].Content.Parts[0].Text), &obj); err != nil {
		t.Fatalf("aside answer %q: %v", answer.Candidates[0].Content.Parts[0].Text, err)
	}
	if obj["complexity_reasoning"] != "Scripted complexity_reasoning" || obj["complexity_score"] != float64(1) || obj["pick"] != "user" {
		t.Errorf("aside answer %v", obj)
	}
	if r := m.Requests()[0]; !r.Aside || r.Prompt != "say hello" {
		t.Errorf("recorded %+v", r)
	}
}

func TestGeminiTokensAndRefusals(t *testing.T) {
	m := newEndpoint(t)
	var count struct {
		TotalTokens int `json:"totalTokens"`
	}
	if err := json.NewDecoder(post(t, m.URL()+"/v1beta/models/m:countTokens", `{"contents":[]}`).Body).Decode(&count); err != nil || count.TotalTokens < 1 {
		t.Errorf("countTokens: %+v %v", count, err)
	}
	var e struct {
		Error struct {
			Code    int    `json:"code"`
			Status  string `json:"status"`
			Message string `json:"message"`
		} `json:"error"`
	}
	resp := post(t, m.URL()+"/v1beta/models/m:generateContent", `{"contents":"nope"}`)
	if err := json.NewDecoder(resp.Body).Decode(&e); err != nil || resp.StatusCode != 400 || e.Error.Status != "INVALID_ARGUMENT" || e.Error.Code != 400 {
		t.Errorf("bad body: %s %+v %v", resp.Status, e, err)
	}
	resp, err := http.Get(m.URL() + "/v1beta/models")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&e); err != nil || resp.StatusCode != 404 || e.Error.Status != "NOT_FOUND" ||
		!strings.Contains(e.Error.Message, ":streamGenerateContent") {
		t.Errorf("GET /v1beta/models: %s %+v %v", resp.Status, e, err)
	}
	if n := len(m.Requests()); n != 3 {
		t.Errorf("recorded %d requests, want 3", n)
	}
}

// TestGeminiPrompt runs the real Gemini CLI once, non-interactively
// (gemini -p), against the endpoint's Gemini API, with nothing left
// running after.
func TestGeminiPrompt(t *testing.T) {
	bin := Gemini.Require(t)
	m := newEndpoint(t)
	m.AddRule(Rule{Match: "say hello", Text: "Hello from the scripted model."})
	home, project := t.TempDir(), t.TempDir()
	if err := WriteGeminiHome(home, project); err != nil {
		t.Fatal(err)
	}
	out := runOnce(t, project, append(GeminiEnv(m.URL()), "HOME="+home), bin, "-p", "say hello from a test")
	if !strings.Contains(out, "Hello from the scripted model.") {
		t.Errorf("gemini -p printed %q", out)
	}
	found := false
	for _, r := range m.Requests() {
		found = found || (r.API == "gemini" && r.Prompt == "say hello from a test" && !r.Aside && r.Header.Get("X-Goog-Api-Key") == GeminiKey)
		if r.API == "" {
			t.Errorf("a request the endpoint does not serve: %s %s", r.Method, r.Path)
		}
	}
	if !found {
		t.Errorf("no Gemini API request carried the prompt and the key: %+v", m.Requests())
	}
}

func TestWriteGeminiHome(t *testing.T) {
	home := t.TempDir()
	if err := WriteGeminiHome(home, "/proj"); err != nil {
		t.Fatal(err)
	}
	for file, wants := range map[string][]string{
		"settings.json":       {`"selectedType": "gemini-api-key"`, `"usageStatisticsEnabled": false`, `"enableAutoUpdate": false`},
		"trustedFolders.json": {`"/proj": "TRUST_FOLDER"`},
	} {
		raw, err := os.ReadFile(filepath.Join(home, ".gemini", file))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range wants {
			if !strings.Contains(string(raw), want) {
				t.Errorf("%s lacks %s:\n%s", file, want, raw)
			}
		}
	}
}

// Gemini CLI is a script: without node to run it, it counts as missing.
func TestFindGeminiNeedsNode(t *testing.T) {
	dir := t.TempDir()
	bin := Gemini.Path(dir)
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(bin, []byte("#!/usr/bin/env node\n"), 0o755)
	os.WriteFile(filepath.Join(filepath.Dir(bin), "..", "package.json"), []byte(`{"version":"`+Gemini.Version+`"}`), 0o644)
	t.Setenv("PATH", t.TempDir())
	if _, err := Gemini.Find(dir); err == nil || !strings.Contains(err.Error(), "needs node on PATH") {
		t.Errorf("no node: %v", err)
	}
}
