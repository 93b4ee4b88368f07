package agentverbs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/melmux/melmux/internal/cli"
	"github.com/melmux/melmux/toolexec"
)

// runCLI runs melmux-agent's verbs in-process in dir and returns the exit status and
// both outputs.
func runCLI(t *testing.T, dir, stdin string, args ...string) (int, string, string) {
	t.Helper()
	t.Chdir(dir)
	var out, errOut bytes.Buffer
	code := cli.Run(args, strings.NewReader(stdin), &out, &errOut, nil)
	return code, out.String(), errOut.String()
}

func TestToolVerb(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "ws")
	os.Mkdir(dir, 0o755)
	os.WriteFile(filepath.Join(parent, "outside.txt"), []byte("far away\n"), 0o644)
	t.Setenv("XDG_DATA_HOME", filepath.Join(parent, ".data"))
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("alpha\nbeta\n"), 0o644)
	for _, tc := range []struct {
		name           string
		stdin          string
		args           []string
		code           int
		stdout, stderr string
	}{
		{"result on stdout", "", []string{"tool", "read_file", `{"path":"notes.txt","limit":1}`}, 0,
			"     1\talpha\n[read stopped after line 1; 1 more lines follow: call read_file with offset=1 to continue]\n", ""},
		{"arguments from stdin", `{"pattern":"^b"}`, []string{"tool", "grep", "-"}, 0, "notes.txt:2:beta\n", ""},
		{"no arguments means {}", "", []string{"tool", "list_dir"}, 0, ".:\nfile          11  notes.txt\n", ""},
		{"error result on stderr, exit 1", "", []string{"tool", "read_file", `{"path":"gone.txt"}`}, 1,
			"", "read_file: no such file: gone.txt\n"},
		{"refused by role", "", []string{"tool", "--role", "base", "recall"}, 1, "", "tool recall is not allowed for role base"},
		{"-s after the verb", "", []string{"tool", "-s", "other", "list_dir", `{"path":"."}`}, 0, "notes.txt", ""},
		{"missing name", "", []string{"tool"}, 2, "", "want NAME and optional JSON arguments"},
		{"too many arguments", "", []string{"tool", "grep", "{}", "{}"}, 2, "", "got 3 arguments"},
		{"bad role", "", []string{"tool", "--role", "god", "grep", "{}"}, 2, "", `unknown tool role "god"`},
		{"bad flag", "", []string{"tool", "--nope", "grep"}, 2, "", "flag provided but not defined: -nope"},
		{"bad timeout", "", []string{"tool", "--command-timeout", "soon", "run_command", "{}"}, 2, "", "invalid value"},
		{"timeout flag", "", []string{"tool", "--command-timeout", "200ms", "run_command", `{"command":"sleep 10"}`}, 1,
			"", "timed out after 200ms"},
		{"outside refused", "", []string{"tool", "read_file", `{"path":"../outside.txt"}`}, 1, "", "outside the workspace root"},
		{"--allow-outside", "", []string{"tool", "--allow-outside", "read_file", `{"path":"../outside.txt"}`}, 0, "1\tfar away", ""},
		{"tools base", "", []string{"tools", "--role", "base"}, 0, `"name": "create_pdf"`, ""},
		{"tools bad role", "", []string{"tools", "--role", "x"}, 2, "", `unknown tool role "x"`},
		{"tools extra", "", []string{"tools", "lead"}, 2, "", "takes no arguments"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, dir, tc.stdin, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d (stdout %q stderr %q)", code, tc.code, out, errOut)
			}
			if !strings.Contains(out, tc.stdout) || (tc.stdout == "" && out != "") {
				t.Errorf("stdout %q, want %q", out, tc.stdout)
			}
			if !strings.Contains(errOut, tc.stderr) || (tc.stderr == "" && errOut != "") {
				t.Errorf("stderr %q, want %q", errOut, tc.stderr)
			}
		})
	}
}

func TestToolsPrintsDefinitions(t *testing.T) {
	code, out, _ := runCLI(t, t.TempDir(), "", "tools", "--role", "worker")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var defs []toolexec.ToolDef
	if err := json.Unmarshal([]byte(out), &defs); err != nil {
		t.Fatal(err)
	}
	want := toolexec.Definitions(toolexec.RoleWorker)
	if len(defs) != len(want) || defs[10].Name != "remember" || defs[11].Name != "recall" {
		t.Errorf("got %d definitions: %+v", len(defs), defs)
	}
	if !strings.HasPrefix(out, "[\n  {\n    \"name\": \"read_file\",") {
		t.Errorf("not indented JSON: %.60q", out)
	}
}

type stubPanes struct{ got []string }

func (s *stubPanes) Call(_ context.Context, name string, args json.RawMessage) (string, error) {
	s.got = append(s.got, name+" "+string(args))
	if name == "read_pane" {
		return "", errors.New("pane 9 does not exist (panes: 1)")
	}
	return "2", nil
}

func TestToolPaneHook(t *testing.T) {
	dir := t.TempDir()
	wired := paneTools
	defer func() { paneTools = wired }()
	paneTools = nil
	code, _, errOut := runCLI(t, dir, "", "tool", "open_pane", `{"layout":"right"}`)
	if code != 1 || !strings.Contains(errOut, "pane tools need a melmux session") {
		t.Errorf("without the hook: exit %d, %q", code, errOut)
	}
	stub := &stubPanes{}
	paneTools = func(*cli.Globals) toolexec.PaneTools { return stub }
	code, out, _ := runCLI(t, dir, "", "tool", "open_pane", `{"layout":"right","command":"top"}`)
	if code != 0 || out != "2\n" {
		t.Errorf("open_pane through the hook: exit %d, %q", code, out)
	}
	code, _, errOut = runCLI(t, dir, "", "tool", "read_pane", `{"pane":9}`)
	if code != 1 || errOut != "read_pane: pane 9 does not exist (panes: 1)\n" {
		t.Errorf("read_pane error: exit %d, %q", code, errOut)
	}
	code, _, errOut = runCLI(t, dir, "", "tool", "--role", "worker", "open_pane", `{"layout":"right"}`)
	if code != 1 || !strings.Contains(errOut, "not allowed for role worker") {
		t.Errorf("worker open_pane: exit %d, %q", code, errOut)
	}
	if len(stub.got) != 2 || stub.got[0] != `open_pane {"command":"top","layout":"right"}` {
		t.Errorf("calls %q", stub.got)
	}
}
