package transcript

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The sessions in testdata were recorded from the real CLIs (see
// testdata/README.md): three turns each — 80 numbered lines, a short
// answer, and a shell command run after the person approved it, then "The
// build ran." These are when their prompts were submitted.
var (
	beforeAll = stampOf("2026-12-01T14:32:30Z")
	turn2     = stampOf("2026-12-01T14:32:40Z") // turn 1's prompt is 33.8s: more than Slack before
	turn3     = stampOf("2026-12-01T14:32:49Z")
	afterAll  = stampOf("2026-12-01T14:33:30Z")
)

func stampOf(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// session puts a recorded session file of testdata (its lines up to the
// first holding until, when until is not "") where kind's CLI would have
// written it for a process in a new project directory, and returns that
// process and the file's path.
func session(t *testing.T, kind, file, until string) (Proc, string) {
	t.Helper()
	return sessionOf(t, kind, filepath.Join("testdata", file), until)
}

func sessionOf(t *testing.T, kind, file, until string) (Proc, string) {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if until != "" {
		i := strings.Index(string(raw), until)
		if i < 0 {
			t.Fatalf("%s holds no %q", file, until)
		}
		j := strings.IndexByte(string(raw[i:]), '\n')
		raw = raw[:i+j+1]
	}
	home, cwd := t.TempDir(), t.TempDir()
	p := Proc{Env: []string{"HOME=" + home}, Cwd: cwd}
	var path string
	switch kind {
	case "claude":
		path = filepath.Join(home, ".claude", "projects", regexp.MustCompile(`[^a-zA-Z0-9]`).ReplaceAllString(cwd, "-"), "0b1c5e6e-7b3a-4d6e-9f59-1d2e3f4a5b6c.jsonl")
	case "codex":
		// The rollout's session_meta names the directory it ran in.
		raw = []byte(strings.ReplaceAll(string(raw), `"cwd":"/home/user/project"`, `"cwd":"`+cwd+`"`))
		path = filepath.Join(home, ".codex", "sessions", "2026", "12", "01", "rollout-2026-12-01T14-32-27-01a23205-0000-7000-8000-000000000000.jsonl")
	case "gemini":
		path = filepath.Join(home, ".gemini", "tmp", "project", "chats", "session-2026-12-01T14-32-1f2e3d4c.jsonl")
		writeFile(t, filepath.Join(home, ".gemini", "projects.json"), `{"projects":{"`+cwd+`":"project"}}`)
	}
	writeFile(t, path, string(raw))
	return p, path
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

var recorded = []struct {
	kind, file string
	waiting    string // what the file's line holds once the CLI waits for the person to approve the command
}{
	{"claude", "claude.jsonl", `"stop_reason":"tool_use"`},
	{"codex", "codex.jsonl", `"type":"function_call"`},
	{"gemini", "gemini.jsonl", `"type":"gemini","content":""`},
}

// TestRecordedTurns reads each turn of each CLI's recorded session: the 80
// lines whole, the second turn's reply with nothing of the first, the
// reply after a command's result rather than the call, and no turn after
// them all. Of several turns since, the first counts, or the first whose
// prompt holds the prompt given.
func TestRecordedTurns(t *testing.T) {
	for _, rec := range recorded {
		t.Run(rec.kind, func(t *testing.T) {
			p, path := session(t, rec.kind, rec.file, "")
			for _, c := range []struct {
				since  time.Time
				prompt string
				want   string
			}{
				{beforeAll, "numbered", numbered()},
				{beforeAll, "please  run\nthe", "The build ran."},
				{turn2, "", shortAnswer},
				{stampOf("2026-12-01T14:32:43.5Z"), "", shortAnswer}, // its prompt is less than Slack before
				{stampOf("2026-12-01T14:32:45Z"), "", "The build ran."},
				{beforeAll, "short one", shortAnswer},
				{turn3, "", "The build ran."},
				{beforeAll, "", numbered()},             // the first of the turns since
				{beforeAll, "not a prompt", numbered()}, // a prompt found nowhere only prefers
				{beforeAll, "the build", "The build ran."},
			} {
				r, err := Find(rec.kind, p, c.since, c.prompt)
				if err != nil || r.Text != c.want || !r.Done || r.File != path {
					t.Errorf("Find(%s, %q) = %q, done %v, from %s, %v; want %q, done, from %s", c.since.Format(time.TimeOnly), c.prompt, r.Text, r.Done, r.File, err, c.want, path)
				}
			}
			if got := lines(t, rec.kind, p, beforeAll, "numbered"); got != 80 {
				t.Errorf("the numbered reply has %d lines, want 80", got)
			}
			_, err := Find(rec.kind, p, afterAll, "")
			if !errors.Is(err, ErrNoTurn) || !strings.Contains(err.Error(), path) {
				t.Errorf("Find(after every turn) = %v, want ErrNoTurn naming %s", err, path)
			}
		})
	}
}

func lines(t *testing.T, kind string, p Proc, since time.Time, prompt string) int {
	r, err := Find(kind, p, since, prompt)
	if err != nil {
		t.Fatal(err)
	}
	return len(strings.Split(r.Text, "\n"))
}

// TestWaitingForApproval reads each session as it stood while the CLI
// asked the person to approve the command: the turn is there, not done,
// with nothing said yet.
func TestWaitingForApproval(t *testing.T) {
	for _, rec := range recorded {
		t.Run(rec.kind, func(t *testing.T) {
			p, _ := session(t, rec.kind, rec.file, rec.waiting)
			r, err := Find(rec.kind, p, turn3, "")
			if err != nil || r.Done || r.Text != "" {
				t.Errorf("Find(waiting) = %+v, %v; want the turn, not done, no text", r, err)
			}
			r, err = Find(rec.kind, p, turn2, "")
			if err != nil || !r.Done || r.Text != shortAnswer {
				t.Errorf("Find(the turn before) = %+v, %v", r, err)
			}
		})
	}
}

// TestNoTranscript: no session files where the CLI keeps them is
// ErrNoTranscript naming the directory looked in.
func TestNoTranscript(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	p := Proc{Env: []string{"HOME=" + home}, Cwd: cwd}
	for kind, dir := range map[string]string{
		"claude": filepath.Join(home, ".claude", "projects", regexp.MustCompile(`[^a-zA-Z0-9]`).ReplaceAllString(cwd, "-")),
		"codex":  filepath.Join(home, ".codex", "sessions"),
		"gemini": filepath.Join(home, ".gemini", "tmp"),
	} {
		_, err := Find(kind, p, beforeAll, "")
		if !errors.Is(err, ErrNoTranscript) || !strings.Contains(err.Error(), dir) {
			t.Errorf("%s: %v; want ErrNoTranscript naming %s", kind, err, dir)
		}
	}
	if _, err := Find("aider", p, beforeAll, ""); !errors.Is(err, ErrUnknownKind) || !strings.Contains(err.Error(), `"aider"`) {
		t.Errorf("unknown kind: %v", err)
	}
	if _, err := Find("claude", Proc{Cwd: cwd}, beforeAll, ""); !errors.Is(err, ErrNoTranscript) || !strings.Contains(err.Error(), "HOME") {
		t.Errorf("no HOME: %v", err)
	}
}

// TestHomeVariables: each CLI's own variable moves its files from $HOME.
func TestHomeVariables(t *testing.T) {
	for _, c := range []struct{ kind, file, env, under string }{
		{"claude", "claude.jsonl", "CLAUDE_CONFIG_DIR", ".claude"},
		{"codex", "codex.jsonl", "CODEX_HOME", ".codex"},
		{"gemini", "gemini.jsonl", "GEMINI_CLI_HOME", ""},
	} {
		p, _ := session(t, c.kind, c.file, "")
		home := strings.TrimPrefix(p.Env[0], "HOME=")
		p.Env = []string{"HOME=" + t.TempDir(), c.env + "=" + filepath.Join(home, c.under)}
		if r, err := Find(c.kind, p, turn2, ""); err != nil || r.Text != shortAnswer {
			t.Errorf("%s with %s: %q, %v", c.kind, c.env, r.Text, err)
		}
		p.Env = p.Env[:1]
		if _, err := Find(c.kind, p, turn2, ""); !errors.Is(err, ErrNoTranscript) {
			t.Errorf("%s without %s: %v, want ErrNoTranscript", c.kind, c.env, err)
		}
	}
}

// TestClaudeIntermediateText: Claude Code writes a message's text and its
// tool call as two entries with the message's id. While the call waits,
// that text is the reply, not done; once the turn ends, the reply is the
// last message's alone.
func TestClaudeIntermediateText(t *testing.T) {
	raw, err := os.ReadFile("testdata/claude.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.SplitAfter(string(raw), "\n") {
		if strings.Contains(line, `"stop_reason":"tool_use"`) {
			var e map[string]any
			if err := json.Unmarshal([]byte(line), &e); err != nil {
				t.Fatal(err)
			}
			e["uuid"] = "0f0e0d0c-0000-4000-8000-000000000001"
			msg := e["message"].(map[string]any)
			msg["content"] = []any{map[string]any{"type": "text", "text": "I will run the build first."}}
			msg["stop_reason"] = nil
			text, _ := json.Marshal(e)
			out = append(out, string(text)+"\n")
		}
		out = append(out, line)
	}
	file := filepath.Join(t.TempDir(), "claude.jsonl")
	writeFile(t, file, strings.Join(out, ""))

	p, _ := sessionOf(t, "claude", file, `"stop_reason":"tool_use"`)
	if r, err := Find("claude", p, turn3, ""); err != nil || r.Done || r.Text != "I will run the build first." {
		t.Errorf("waiting: %+v, %v; want the text before the call, not done", r, err)
	}
	p, _ = sessionOf(t, "claude", file, "")
	if r, err := Find("claude", p, turn3, ""); err != nil || !r.Done || r.Text != "The build ran." {
		t.Errorf("done: %+v, %v; want the last message alone", r, err)
	}
}

// TestClaudeInterruptedAndCleared: a command the person refused ends the
// turn (done, nothing said); /clear starts a new session file, and is no
// turn of its own.
func TestClaudeInterruptedAndCleared(t *testing.T) {
	since := stampOf("2026-12-01T14:33:20Z")
	p, path := session(t, "claude", "claude-interrupted.jsonl", "")
	if r, err := Find("claude", p, since, ""); err != nil || !r.Done || r.Text != "" {
		t.Errorf("interrupted: %+v, %v; want done with no text", r, err)
	}
	p, path = session(t, "claude", "claude-cleared.jsonl", "")
	if r, err := Find("claude", p, since, ""); err != nil || !r.Done || r.Text != shortAnswer || r.File != path {
		t.Errorf("after /clear: %+v, %v", r, err)
	}
	// Only /clear so far: no turn yet.
	p, _ = session(t, "claude", "claude-cleared.jsonl", "<local-command-stdout>")
	if _, err := Find("claude", p, since, ""); !errors.Is(err, ErrNoTurn) {
		t.Errorf("only /clear: %v, want ErrNoTurn", err)
	}
}

// TestProcessPicksItsSession: of two sessions in one project, the one the
// process writes — named by Claude Code's sessions/PID.json, held open by
// Codex — is read, not the one written last.
func TestProcessPicksItsSession(t *testing.T) {
	for _, kind := range []string{"claude", "codex"} {
		p, ours := session(t, kind, kind+".jsonl", "")
		other := filepath.Join(filepath.Dir(ours), "rollout-2026-12-01T14-40-00-other.jsonl")
		if kind == "claude" {
			other = filepath.Join(filepath.Dir(ours), "other.jsonl")
		}
		raw, _ := os.ReadFile(ours)
		writeFile(t, other, strings.ReplaceAll(string(raw), "A short second answer.", "Another session's answer."))
		later := time.Now().Add(time.Minute)
		if err := os.Chtimes(other, later, later); err != nil {
			t.Fatal(err)
		}
		if r, _ := Find(kind, p, turn2, "short one"); r.Text != "Another session's answer." {
			t.Fatalf("%s without the process's session: %q, want the newest file's", kind, r.Text)
		}
		switch kind {
		case "claude":
			p.PID = 4242
			id := strings.TrimSuffix(filepath.Base(ours), ".jsonl")
			home := strings.TrimPrefix(p.Env[0], "HOME=")
			writeFile(t, filepath.Join(home, ".claude", "sessions", "4242.json"), `{"pid":4242,"sessionId":"`+id+`","cwd":"`+p.Cwd+`"}`)
		case "codex":
			p.Open = []string{"/dev/null", ours}
		}
		if r, err := Find(kind, p, turn2, "short one"); err != nil || r.Text != shortAnswer || r.File != ours {
			t.Errorf("%s: %+v, %v; want %s", kind, r, err, ours)
		}
	}
}

// TestCodexOtherDirectory: a rollout of another working directory is not
// the process's.
func TestCodexOtherDirectory(t *testing.T) {
	p, _ := session(t, "codex", "codex.jsonl", "")
	p.Cwd = t.TempDir()
	if _, err := Find("codex", p, turn2, ""); !errors.Is(err, ErrNoTranscript) {
		t.Errorf("another directory: %v, want ErrNoTranscript", err)
	}
}

// TestGeminiRewind: a $rewindTo record drops the message it names and all
// after it, as Gemini CLI does when the person rewinds.
func TestGeminiRewind(t *testing.T) {
	p, path := session(t, "gemini", "gemini.jsonl", "")
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"$rewindTo":"a0b38581-b596-4328-8c10-3cb87c18b5e5"}` + "\n")
	f.Close()
	if _, err := Find("gemini", p, turn3, ""); !errors.Is(err, ErrNoTurn) {
		t.Errorf("rewound turn: %v, want ErrNoTurn", err)
	}
	if r, err := Find("gemini", p, turn2, ""); err != nil || r.Text != shortAnswer {
		t.Errorf("the turn before: %q, %v", r.Text, err)
	}
}

// TestGeminiProjectRoot: without projects.json the project's directory is
// the one whose .project_root names the working directory.
func TestGeminiProjectRoot(t *testing.T) {
	p, path := session(t, "gemini", "gemini.jsonl", "")
	home := strings.TrimPrefix(p.Env[0], "HOME=")
	if err := os.Remove(filepath.Join(home, ".gemini", "projects.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := Find("gemini", p, turn2, ""); !errors.Is(err, ErrNoTranscript) {
		t.Errorf("no registry, no marker: %v", err)
	}
	writeFile(t, filepath.Join(filepath.Dir(filepath.Dir(path)), ".project_root"), p.Cwd+"\n")
	if r, err := Find("gemini", p, turn2, ""); err != nil || r.Text != shortAnswer {
		t.Errorf("with .project_root: %q, %v", r.Text, err)
	}
}

// TestReadProc reads this test's own process.
func TestReadProc(t *testing.T) {
	p, err := ReadProc(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if real, _ := filepath.EvalSymlinks(wd); p.Cwd != real || p.PID != os.Getpid() {
		t.Errorf("cwd %q pid %d, want %q %d", p.Cwd, p.PID, real, os.Getpid())
	}
	if p.Getenv("PATH") != os.Getenv("PATH") {
		t.Errorf("PATH %q", p.Getenv("PATH"))
	}
	if _, err := ReadProc(-1); err == nil {
		t.Error("ReadProc(-1) read something")
	}
}

// TestNotWrittenSince: a session file of the process's not written since is
// ErrNoTurn (the file is there, the turn not yet) naming it.
func TestNotWrittenSince(t *testing.T) {
	for _, rec := range recorded {
		p, path := session(t, rec.kind, rec.file, "")
		old := time.Now().Add(-time.Hour)
		if err := os.Chtimes(path, old, old); err != nil {
			t.Fatal(err)
		}
		_, err := Find(rec.kind, p, time.Now(), "")
		if !errors.Is(err, ErrNoTurn) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v; want ErrNoTurn naming %s", rec.kind, err, path)
		}
	}
}

// TestWorkingDirectorySpelling: a project keyed by the path the process
// was started in through a symlink ($PWD) is found from the resolved one.
func TestWorkingDirectorySpelling(t *testing.T) {
	p, path := session(t, "claude", "claude.jsonl", "")
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(p.Cwd, link); err != nil {
		t.Fatal(err)
	}
	keyed := filepath.Join(filepath.Dir(filepath.Dir(path)), regexp.MustCompile(`[^a-zA-Z0-9]`).ReplaceAllString(link, "-"))
	if err := os.Rename(filepath.Dir(path), keyed); err != nil {
		t.Fatal(err)
	}
	if _, err := Find("claude", p, turn2, ""); !errors.Is(err, ErrNoTranscript) {
		t.Errorf("without $PWD: %v", err)
	}
	p.Env = append(p.Env, "PWD="+link)
	if r, err := Find("claude", p, turn2, ""); err != nil || r.Text != shortAnswer {
		t.Errorf("with $PWD: %q, %v", r.Text, err)
	}
	// $PWD naming another directory (the process changed its own) is not
	// the process's.
	other := t.TempDir()
	if err := os.Rename(keyed, filepath.Join(filepath.Dir(keyed), regexp.MustCompile(`[^a-zA-Z0-9]`).ReplaceAllString(other, "-"))); err != nil {
		t.Fatal(err)
	}
	p.Env = append(p.Env, "PWD="+other)
	if _, err := Find("claude", p, turn2, ""); !errors.Is(err, ErrNoTranscript) {
		t.Errorf("$PWD another directory: %v", err)
	}
}

// TestFinishedBeforeTheMark: the reply is there before the file marks the
// turn's end; Claude Code's last message saying end_turn is done already,
// Codex's before task_complete is not.
func TestFinishedBeforeTheMark(t *testing.T) {
	p, _ := session(t, "claude", "claude.jsonl", `"text":"The build ran."`)
	if r, err := Find("claude", p, turn3, ""); err != nil || !r.Done || r.Text != "The build ran." {
		t.Errorf("claude before turn_duration: %+v, %v; want done", r, err)
	}
	p, _ = session(t, "codex", "codex.jsonl", `"item":{"type":"AgentMessage","id":"msg_melmux","content":[{"type":"Text","text":"The build ran."`)
	if r, err := Find("codex", p, turn3, ""); err != nil || r.Done || r.Text != "The build ran." {
		t.Errorf("codex before task_complete: %+v, %v; want the text, not done", r, err)
	}
}

// TestClaudeTurnDuration: releases that write a message's entries with no
// stop_reason (they write each content block as it ends, before the
// message does) are done at the system turn_duration entry.
func TestClaudeTurnDuration(t *testing.T) {
	raw, err := os.ReadFile("testdata/claude.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "claude.jsonl")
	writeFile(t, file, strings.ReplaceAll(string(raw), `"stop_reason":"end_turn"`, `"stop_reason":null`))
	p, _ := sessionOf(t, "claude", file, `"text":"The build ran."`)
	if r, err := Find("claude", p, turn3, ""); err != nil || r.Done || r.Text != "The build ran." {
		t.Errorf("before turn_duration: %+v, %v; want the text, not done", r, err)
	}
	p, _ = sessionOf(t, "claude", file, "")
	if r, err := Find("claude", p, turn3, ""); err != nil || !r.Done || r.Text != "The build ran." {
		t.Errorf("after turn_duration: %+v, %v; want done", r, err)
	}
}
