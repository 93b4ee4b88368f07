package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/melmux/melmux/internal/proto"
)

// geminiSession writes a Gemini CLI session file whose last turn is prompt,
// answered with reply (none when ""), and returns its path.
func geminiSession(t *testing.T, prompt, reply string) string {
	t.Helper()
	lines := []string{
		`{"sessionId":"s","startTime":"2026-12-01T14:32:29.503Z","kind":"main"}`,
		`{"id":"u1","timestamp":"2026-12-01T14:32:33.918Z","type":"user","content":[{"text":"` + prompt + `"}]}`,
	}
	if reply != "" {
		lines = append(lines, `{"id":"g1","timestamp":"2026-12-01T14:32:34.067Z","type":"gemini","content":"`+reply+`"}`)
	}
	path := filepath.Join(t.TempDir(), "session.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestFromGeminiHook: each of Gemini CLI's hook events gives its state and
// message; AfterAgent's reply is the session file's, whole, not its
// prompt_response (the streamed pieces joined with spaces).
func TestFromGeminiHook(t *testing.T) {
	done := geminiSession(t, "say hello", "Hello from the scripted model.")
	asked := geminiSession(t, "say hello", "")
	for _, c := range []struct {
		name, json                  string
		state, event, message, repl string
		skip                        bool
	}{
		{name: "BeforeAgent", json: `{"hook_event_name":"BeforeAgent","prompt":"say hello"}`,
			state: "working", event: "BeforeAgent", message: "say hello"},
		{name: "AfterAgent from the session file",
			json:  `{"hook_event_name":"AfterAgent","transcript_path":"` + done + `","prompt":"say hello","prompt_response":"Hello from the scripted model.  the scrip ted model."}`,
			state: "idle", event: "AfterAgent", message: "Hello from the scripted model.", repl: "Hello from the scripted model."},
		{name: "AfterAgent, the file not done",
			json:  `{"hook_event_name":"AfterAgent","transcript_path":"` + asked + `","prompt_response":"Short."}`,
			state: "idle", event: "AfterAgent", message: "Short.", repl: "Short."},
		{name: "AfterAgent, the file behind (its last reply another turn's)",
			json:  `{"hook_event_name":"AfterAgent","transcript_path":"` + done + `","prompt_response":"Good bye."}`,
			state: "idle", event: "AfterAgent", message: "Good bye.", repl: "Good bye."},
		{name: "AfterAgent, no file",
			json:  `{"hook_event_name":"AfterAgent","transcript_path":"/nonexistent/session.jsonl","prompt_response":"Short."}`,
			state: "idle", event: "AfterAgent", message: "Short.", repl: "Short."},
		{name: "AfterAgent, no text", json: `{"hook_event_name":"AfterAgent","prompt_response":"[no response text]"}`,
			state: "idle", event: "AfterAgent"},
		{name: "a permission", json: `{"hook_event_name":"Notification","notification_type":"ToolPermission","message":"Tool Confirm Shell Command requires execution","details":{"type":"exec","title":"Confirm Shell Command","command":"touch x","rootCommand":"touch"}}`,
			state: "waiting", event: "Notification (ToolPermission)", message: "Tool Confirm Shell Command requires execution: touch x"},
		{name: "an edit", json: `{"hook_event_name":"Notification","notification_type":"ToolPermission","message":"Tool Edit requires editing","details":{"type":"edit","filePath":"/p/a.go"}}`,
			state: "waiting", event: "Notification (ToolPermission)", message: "Tool Edit requires editing: /p/a.go"},
		{name: "BeforeTool", json: `{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"ls"}}`,
			state: "working", event: "BeforeTool (run_shell_command)"},
		{name: "SessionStart", json: `{"hook_event_name":"SessionStart","source":"startup"}`, state: "idle", event: "SessionStart"},
		{name: "SessionEnd", json: `{"hook_event_name":"SessionEnd","reason":"exit"}`, skip: true},
		{name: "another notification", json: `{"hook_event_name":"Notification","notification_type":"Other"}`, skip: true},
	} {
		var p proto.NotifyParams
		skip, err := fromGeminiHook([]byte(c.json), &p)
		if err != nil || skip != c.skip {
			t.Errorf("%s: skip %v, error %v; want skip %v", c.name, skip, err, c.skip)
			continue
		}
		if c.skip {
			continue
		}
		if p.State != c.state || p.Event != c.event || p.Message != c.message || p.Reply != c.repl || p.Kind != "gemini" || p.Decide {
			t.Errorf("%s: %+v; want state %q, event %q, message %q, reply %q, kind gemini, no decide", c.name, p, c.state, c.event, c.message, c.repl)
		}
	}
}

// TestNotifyFromGeminiBadInput: bad input is named, and never exits 2,
// which Gemini CLI takes as a block (the person's prompt dropped, or the
// turn redone): 1, a warning it shows and goes on.
func TestNotifyFromGeminiBadInput(t *testing.T) {
	t.Setenv("MELMUX_PANE", "7")
	t.Setenv("MELMUX_SOCKET", filepath.Join(t.TempDir(), "none.sock"))
	for _, c := range []struct {
		name, stdin, want string
		args              []string
	}{
		{"not JSON", "{oops", "notify --from gemini: stdin is not Gemini CLI's hook JSON", nil},
		{"too big", `{"prompt":"` + strings.Repeat("x", maxHookPayload) + `"}`, "notify --from gemini: the hook's JSON on stdin is over 1048576 bytes", nil},
		{"no event", `{"prompt":"hi"}`, "the JSON on stdin has no hook_event_name; is this a Gemini CLI hook?", nil},
		{"unknown event", `{"hook_event_name":"AfterEverything"}`, `hook event "AfterEverything" says no state (melmux maps BeforeAgent`, nil},
		{"an argument", `{}`, "notify --from gemini reads Gemini CLI's hook JSON on stdin and takes no arguments", []string{"extra"}},
		{"no session", `{"hook_event_name":"BeforeAgent","prompt":"hi"}`, "melmux: ", nil},
	} {
		var out, errb bytes.Buffer
		code := run(append([]string{"notify", "--from", "gemini"}, c.args...), strings.NewReader(c.stdin), &out, &errb)
		if code != 1 || !strings.Contains(errb.String(), c.want) || out.Len() != 0 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 1, nothing on stdout, %q on stderr", c.name, code, out.String(), errb.String(), c.want)
		}
	}
	// Claude Code's hook keeps exit status 2 for a wrong payload.
	var out, errb bytes.Buffer
	if code := run([]string{"notify", "--from", "claude"}, strings.NewReader("{oops"), &out, &errb); code != 2 {
		t.Errorf("--from claude, not JSON: exit %d, want 2", code)
	}
}

// TestNotifyFromGeminiOutsidePane: outside a pane the hook succeeds with
// an empty JSON object on stdout, so Gemini CLI shows nothing of the note
// on stderr.
func TestNotifyFromGeminiOutsidePane(t *testing.T) {
	t.Setenv("MELMUX_PANE", "")
	for _, args := range [][]string{{"--from", "gemini"}, {"--from=gemini"}} {
		var out, errb bytes.Buffer
		code := run(append([]string{"notify"}, args...), strings.NewReader(`{"hook_event_name":"BeforeAgent","prompt":"hi"}`), &out, &errb)
		if code != 0 || out.String() != "{}\n" || !strings.Contains(errb.String(), "not in a melmux pane") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 0, {}, the note", args, code, out.String(), errb.String())
		}
	}
}
