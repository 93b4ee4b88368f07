package keys

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tmuxCase pairs a key in our notation with tmux's name for the same key.
type tmuxCase struct{ vim, tmux string }

var tmuxCommon = []tmuxCase{
	{"<Up>", "Up"}, {"<Down>", "Down"}, {"<Left>", "Left"}, {"<Right>", "Right"},
	{"<Home>", "Home"}, {"<End>", "End"}, {"<PgUp>", "PPage"}, {"<PgDn>", "NPage"},
	{"<Del>", "DC"}, {"<Ins>", "IC"}, {"<BS>", "BSpace"}, {"<Enter>", "Enter"},
	{"<Tab>", "Tab"}, {"<Esc>", "Escape"}, {"<Space>", "Space"},
	{"<F1>", "F1"}, {"<F2>", "F2"}, {"<F3>", "F3"}, {"<F4>", "F4"}, {"<F5>", "F5"}, {"<F6>", "F6"},
	{"<F7>", "F7"}, {"<F8>", "F8"}, {"<F9>", "F9"}, {"<F10>", "F10"}, {"<F11>", "F11"}, {"<F12>", "F12"},
	{"<C-a>", "C-a"}, {"<C-z>", "C-z"}, {"<C-A>", "C-A"}, {"<M-a>", "M-a"}, {"<M-A>", "M-A"},
	{"<C-M-a>", "C-M-a"}, {"<S-Tab>", "BTab"}, {"<M-Enter>", "M-Enter"}, {"<M-BS>", "M-BSpace"},
	{"<C-Space>", "C-Space"}, {"<M-Space>", "M-Space"}, {"<C-@>", "C-@"}, {"<C-[>", "C-["}, {"<C-]>", "C-]"},
	{"<C-\\>", "C-\\"}, {"<C-^>", "C-^"}, {"<C-_>", "C-_"}, {"<C-?>", "C-?"}, {"<C-/>", "C-/"}, {"<C-2>", "C-2"},
	{"<C-Up>", "C-Up"}, {"<M-Up>", "M-Up"}, {"<S-Up>", "S-Up"}, {"<C-M-Up>", "C-M-Up"}, {"<C-S-Up>", "C-S-Up"},
	{"<C-Left>", "C-Left"}, {"<M-Right>", "M-Right"}, {"<S-Down>", "S-Down"},
	{"<S-F1>", "S-F1"}, {"<C-F4>", "C-F4"}, {"<C-F5>", "C-F5"}, {"<M-F12>", "M-F12"},
	{"<C-Home>", "C-Home"}, {"<M-End>", "M-End"}, {"<C-Del>", "C-DC"}, {"<C-PgUp>", "C-PPage"},
	{"<S-PgDn>", "S-NPage"}, {"<M-Ins>", "M-IC"}, {"<M-é>", "M-é"}, {"<M-Esc>", "M-Escape"},
	{"<k0>", "KP0"}, {"<k9>", "KP9"}, {"<kPlus>", "KP+"}, {"<kMinus>", "KP-"},
	{"<kMultiply>", "KP*"}, {"<kDivide>", "KP/"}, {"<kPoint>", "KP."},
}

// TestAgainstTmux sends every key in tmuxCommon through tmux send-keys into
// a pane running cat in raw mode and checks Encode gives the same bytes, in
// normal and in application cursor and keypad modes, and that a multi-line
// paste equals tmux's paste-buffer -p.
func TestAgainstTmux(t *testing.T) {
	if testing.Short() {
		t.Skip("starts tmux")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	appCases := append([]tmuxCase{{"<kEnter>", "KPEnter"}}, tmuxCommon...)
	for _, c := range []struct {
		name  string
		setup string // printed by the pane before it reads, to set the modes
		m     Modes
		cases []tmuxCase
	}{
		{"normal", "", Modes{}, tmuxCommon},
		{"application", `\033[?1h\033=`, Modes{AppCursor: true, AppKeypad: true}, appCases},
	} {
		t.Run(c.name, func(t *testing.T) {
			tm := startTmux(t, c.setup)
			if c.setup != "" {
				tm.waitFormat("#{keypad_cursor_flag}#{keypad_flag}", "11")
			}
			names := make([]string, len(c.cases))
			for i, k := range c.cases {
				names[i] = k.tmux
			}
			got := tm.send(names)
			for i, k := range c.cases {
				if want := string(Encode(k.vim, c.m)); got[i] != want {
					t.Errorf("%s: Encode = %q, tmux %s sent %q", k.vim, want, k.tmux, got[i])
				}
			}
		})
	}
	t.Run("paste", func(t *testing.T) {
		// tmux 3.3a has no format for the paste mode, so the pane sets
		// cursor mode after it and the test waits for that flag: tmux
		// parses the output in order.
		tm := startTmux(t, `\033[?2004h\033[?1h`)
		tm.waitFormat("#{keypad_cursor_flag}", "1")
		text := "line1\nline2 \t x\nline3"
		tm.run("set-buffer", "--", text)
		got := tm.collect([]string{"paste-buffer", "-p", "-t", tm.target}, 1)[0]
		want := string(Encode(text, Modes{BracketedPaste: true}))
		if got != want {
			t.Errorf("Encode = %q, tmux paste-buffer -p sent %q", want, got)
		}
	})
}

type tmuxPane struct {
	t      *testing.T
	sock   string
	out    string
	target string
}

func startTmux(t *testing.T, setup string) *tmuxPane {
	dir, err := os.MkdirTemp("", "keys") // short: socket paths are limited to ~100 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	tm := &tmuxPane{t: t, sock: filepath.Join(dir, "s"), out: filepath.Join(dir, "out"), target: "k:0.0"}
	script := fmt.Sprintf("printf '%s'; stty raw -echo; exec cat > %s", setup, tm.out)
	tm.run("-f", "/dev/null", "new-session", "-d", "-s", "k", "-x", "80", "-y", "24", script)
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", tm.sock, "kill-server").Run() })
	// cat creates the file after stty made the tty raw.
	tm.poll(func() bool { _, err := os.Stat(tm.out); return err == nil }, "the pane to start")
	return tm
}

func (tm *tmuxPane) run(args ...string) string {
	tm.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", tm.sock}, args...)...).CombinedOutput()
	if err != nil {
		tm.t.Fatalf("tmux %v: %v: %s", args, err, out)
	}
	return string(out)
}

func (tm *tmuxPane) poll(ok func() bool, what string) {
	tm.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			tm.t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func (tm *tmuxPane) waitFormat(format, want string) {
	tm.t.Helper()
	tm.poll(func() bool {
		return strings.TrimSpace(tm.run("display-message", "-p", "-t", tm.target, format)) == want
	}, fmt.Sprintf("%s to be %s", format, want))
}

// send types each tmux key name and returns the bytes the pane received for
// each key.
func (tm *tmuxPane) send(names []string) []string {
	tm.t.Helper()
	var args []string
	for _, n := range names {
		args = append(args, "send-keys", "-t", tm.target, n, ";")
	}
	return tm.collect(args[:len(args)-1], len(names))
}

// collect runs n tmux commands (args, separated by ";" arguments) as one
// tmux invocation, each followed by a "#" typed as a marker, and returns the
// bytes the pane received for each command: waiting for the markers, not a
// time, tells when everything has arrived.
func (tm *tmuxPane) collect(args []string, n int) []string {
	tm.t.Helper()
	marked := []string{}
	for _, a := range args {
		if a == ";" {
			marked = append(marked, ";", "send-keys", "-t", tm.target, "-l", "#", ";")
			continue
		}
		marked = append(marked, a)
	}
	marked = append(marked, ";", "send-keys", "-t", tm.target, "-l", "#")
	start := 0
	if data, err := os.ReadFile(tm.out); err == nil {
		start = len(data)
	}
	tm.run(marked...)
	var data []byte
	tm.poll(func() bool {
		data, _ = os.ReadFile(tm.out)
		return bytes.Count(data[start:], []byte("#")) >= n
	}, fmt.Sprintf("%d markers", n))
	return strings.Split(string(data[start:]), "#")[:n]
}
