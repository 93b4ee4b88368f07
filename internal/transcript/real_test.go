package transcript

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/melmux/melmux/internal/agentcli"
)

// numbered is the first turn's answer: 80 lines, each its own.
func numbered() string {
	lines := make([]string, 80)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %02d of the numbered answer", i+1)
	}
	return strings.Join(lines, "\n")
}

const shortAnswer = "A short second answer."

// TestRealTranscripts runs the real Claude Code, Codex and Gemini CLI (each
// skipped when not installed, failed then under MELMUX_REQUIRE_AGENTS=1)
// in a terminal for two turns against the scripted model — 80 numbered
// lines, then a short answer — and reads each turn's reply back with Find
// from what the CLI wrote, found from its process as ReadProc sees it. Each
// runs with its home moved by its own variable (CLAUDE_CONFIG_DIR,
// CODEX_HOME, GEMINI_CLI_HOME) and in its project through a symlink, with
// $PWD the link's path.
func TestRealTranscripts(t *testing.T) {
	for _, kind := range []string{"claude", "codex", "gemini"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			realTurns(t, kind)
		})
	}
}

func realTurns(t *testing.T, kind string) {
	var bin string
	switch kind {
	case "claude":
		bin = agentcli.ClaudeCode.Require(t)
	case "codex":
		bin = agentcli.Codex.Require(t)
	case "gemini":
		bin = agentcli.Gemini.Require(t)
	}
	model, err := agentcli.NewModel()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { model.Close() })
	model.AddRule(agentcli.Rule{Match: "numbered lines", Text: numbered()})
	model.AddRule(agentcli.Rule{Match: "short one", Text: shortAnswer})

	root := t.TempDir()
	home, real, link := filepath.Join(root, "home"), filepath.Join(root, "project"), filepath.Join(root, "link")
	for _, d := range []string{home, real} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	var env, args []string
	var sessions string // where the CLI keeps its session files
	switch kind {
	case "claude":
		dir := filepath.Join(home, "claude-config")
		if err := agentcli.WriteClaudeHome(dir, agentcli.TestKey, link); err != nil {
			t.Fatal(err)
		}
		env = append(agentcli.ClaudeEnv(model.URL(), agentcli.TestKey), "CLAUDE_CONFIG_DIR="+dir)
		args = agentcli.ClaudeArgs
		sessions = filepath.Join(dir, "projects")
	case "codex":
		dir := filepath.Join(home, "codex-home")
		if err := agentcli.WriteCodexHome(dir, model.URL(), link); err != nil {
			t.Fatal(err)
		}
		env = agentcli.CodexEnv(dir)
		sessions = filepath.Join(dir, "sessions")
	case "gemini":
		dir := filepath.Join(home, "gemini-home")
		if err := agentcli.WriteGeminiHome(dir, link); err != nil {
			t.Fatal(err)
		}
		env = append(agentcli.GeminiEnv(model.URL()), "GEMINI_CLI_HOME="+dir)
		sessions = filepath.Join(dir, ".gemini", "tmp")
	}
	mark := root
	a := startAgent(t, bin, args, link, append(env, "HOME="+home, "PWD="+link, agentcli.MarkEnv+"="+mark), mark)

	ready := map[string]string{"claude": "? for shortcuts", "codex": "? for shortcuts", "gemini": "Type your message"}[kind]
	a.waitScreen(ready, time.Minute)
	time.Sleep(time.Second) // the prompt takes keys a moment after it shows

	since1 := a.turn("give me numbered lines please", model)
	p, err := ReadProc(a.cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if real, _ := filepath.EvalSymlinks(real); p.Cwd != real || p.Getenv("HOME") != home {
		t.Errorf("ReadProc: cwd %q (want %q), HOME %q", p.Cwd, real, p.Getenv("HOME"))
	}
	r1 := waitDone(t, kind, p, since1, "")
	if r1.Text != numbered() {
		t.Errorf("first turn's reply is not the 80 lines whole:\n%s", r1.Text)
	}
	if !strings.HasPrefix(r1.File, sessions+string(filepath.Separator)) {
		t.Errorf("reply read from %s, not under %s", r1.File, sessions)
	}
	// What picks the process's own session among its project's.
	if kind == "codex" && !slices.Contains(p.Open, r1.File) {
		t.Errorf("Codex does not hold %s open: %v", r1.File, p.Open)
	}
	if kind == "claude" {
		pidFile := filepath.Join(home, "claude-config", "sessions", fmt.Sprintf("%d.json", p.PID))
		if raw, err := os.ReadFile(pidFile); err != nil || !strings.Contains(string(raw), strings.TrimSuffix(filepath.Base(r1.File), ".jsonl")) {
			t.Errorf("Claude Code's %s does not name the session: %q, %v", pidFile, raw, err)
		}
	}

	since2 := a.turn("now a short one", model)
	r2 := waitDone(t, kind, p, since2, "")
	if r2.Text != shortAnswer || r2.File != r1.File {
		t.Errorf("second turn: %q from %s, want %q from %s", r2.Text, r2.File, shortAnswer, r1.File)
	}
	// Both turns are at or after since1: the first is the answer, unless the
	// prompt picks the second.
	if r, err := Find(kind, p, since1, ""); err != nil || r.Text != numbered() || !r.Done {
		t.Errorf("Find(since the first turn) = %q (done %v), %v; want the 80 lines", r.Text, r.Done, err)
	}
	if r, err := Find(kind, p, since1, "now a   short one"); err != nil || r.Text != shortAnswer {
		t.Errorf("Find(since the first turn, the second's prompt) = %q, %v; want the second turn's", r.Text, err)
	}
	if _, err := Find(kind, p, time.Now().Add(time.Minute), ""); !errors.Is(err, ErrNoTurn) {
		t.Errorf("Find(after every turn) = %v, want ErrNoTurn", err)
	}
}

// waitDone polls Find until the turn is done: the model has answered, but
// the CLI writes its transcript a moment later.
func waitDone(t *testing.T, kind string, p Proc, since time.Time, prompt string) Reply {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r, err := Find(kind, p, since, prompt)
		if err == nil && r.Done {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("no finished turn in the transcript 30s after the model answered: %+v, %v", r, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

var ansi = regexp.MustCompile(`\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78]|\s+`)

// agent is a CLI in a terminal of 120x40.
type agent struct {
	t    *testing.T
	cmd  *exec.Cmd
	tty  *os.File
	mu   sync.Mutex
	seen strings.Builder // what it printed, escape sequences and white space left out
	more chan struct{}   // closed and replaced when seen grows
	last time.Time       // when the model got the last prompt
}

func startAgent(t *testing.T, bin string, args []string, dir string, env []string, mark string) *agent {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	// CI=true or GITHUB_ACTIONS=true, as CI machines set them, make Gemini
	// CLI run headless (it reads stdin, finds no prompt and exits) even on
	// a terminal; a person's shell in a pane does not have them.
	for _, kv := range os.Environ() {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "HOME", "PWD", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "TERM", "CI", "GITHUB_ACTIONS":
		default:
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(append(cmd.Env, "TERM=xterm-256color"), env...)
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		t.Fatal(err)
	}
	a := &agent{t: t, cmd: cmd, tty: tty, more: make(chan struct{})}
	done := make(chan struct{})
	go a.read(done)
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		agentcli.KillMarked(mark)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if left := agentcli.WaitGone(ctx, mark); len(left) > 0 {
			t.Errorf("still running after the test: %v", left)
		}
		tty.Close()
		<-done
	})
	return a
}

// read keeps what the agent prints and answers the terminal queries it
// waits on (cursor position, device attributes).
func (a *agent) read(done chan struct{}) {
	defer close(done)
	buf := make([]byte, 64<<10)
	for {
		n, err := a.tty.Read(buf)
		if n > 0 {
			out := string(buf[:n])
			if strings.Contains(out, "\x1b[6n") {
				_, _ = a.tty.Write([]byte("\x1b[1;1R"))
			}
			if strings.Contains(out, "\x1b[c") {
				_, _ = a.tty.Write([]byte("\x1b[?62;22c"))
			}
			a.mu.Lock()
			a.seen.WriteString(ansi.ReplaceAllString(out, ""))
			close(a.more)
			a.more = make(chan struct{})
			a.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// waitScreen waits until the agent has printed text (compared without
// white space).
func (a *agent) waitScreen(text string, timeout time.Duration) {
	a.t.Helper()
	want := ansi.ReplaceAllString(text, "")
	deadline := time.After(timeout)
	for {
		a.mu.Lock()
		seen, more := a.seen.String(), a.more
		a.mu.Unlock()
		if strings.Contains(seen, want) {
			return
		}
		select {
		case <-more:
		case <-deadline:
			a.t.Fatalf("%q never showed; the last it printed: %q", text, seen[max(0, len(seen)-2000):])
		}
	}
}

// turn types prompt as a person does (the text, then Enter on its own),
// waits for the model to get it, and returns when it was submitted. A
// prompt follows the previous one by more than Slack, as a person's do, so
// that since tells the turns apart. Enter goes again while the model has
// not got the prompt: a CLI finishing its previous turn may not take it
// (Gemini CLI), and Enter on an empty prompt does nothing.
func (a *agent) turn(prompt string, model *agentcli.Model) time.Time {
	a.t.Helper()
	if wait := time.Until(a.last.Add(Slack + time.Second)); wait > 0 {
		time.Sleep(wait)
	}
	since := time.Now()
	if _, err := a.tty.Write([]byte(prompt)); err != nil {
		a.t.Fatal(err)
	}
	got := func(r agentcli.Request) bool { return !r.Aside && r.Prompt == prompt }
	for try := 0; ; try++ {
		time.Sleep(500 * time.Millisecond)
		if _, err := a.tty.Write([]byte("\r")); err != nil {
			a.t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err := model.WaitRequest(ctx, got)
		cancel()
		if err == nil {
			a.last = time.Now() // the CLI stamped the prompt before it asked the model
			return since
		}
		a.t.Logf("the model has not got %q 5s after Enter: Enter again", prompt)
		if try == 5 {
			a.mu.Lock()
			seen := a.seen.String()
			a.mu.Unlock()
			a.t.Fatalf("the model never got %q: %v; the last the agent printed: %q", prompt, err, seen[max(0, len(seen)-2000):])
		}
	}
}
