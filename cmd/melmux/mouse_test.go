package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/tmuxtest"
)

// TestMouseInsideTmux drives the attached UI with the mouse: the bytes an
// xterm sends for SGR mouse events are typed into the outer tmux pane, so the
// client passes them on exactly as it would a real terminal's.
func TestMouseInsideTmux(t *testing.T) {
	t.Parallel()
	tmuxtest.Require(t)
	se := newSessionEnv(t)
	se.must("new", "-d", "-x", "100", "-y", "30", "--", "sh", "-c", "seq 1 200; exec sh")
	se.must("open-pane", "--layout", "right", "--focus", "--", "sh")
	outer := tmuxtest.Start(t, 100, 30, se.inShell(se.bin+" attach"))
	const pane = "%0"
	screen := outer.WaitFor(pane, 15*time.Second, "both panes", func(s string) bool {
		return strings.Contains(s, "─ 1 ") && strings.Contains(s, "─ 2 ")
	})
	// mouse sends one SGR event; x and y are 0-based screen cells.
	mouse := func(button, x, y int, release bool) {
		t.Helper()
		end := "M"
		if release {
			end = "m"
		}
		if _, err := outer.Run("send-keys", "-t", pane, "-l", fmt.Sprintf("\x1b[<%d;%d;%d%s", button, x+1, y+1, end)); err != nil {
			t.Fatal(err)
		}
	}
	click := func(x, y int) { mouse(0, x, y, false); mouse(0, x, y, true) }
	focused := func() int {
		for _, p := range listPanes(t, se) {
			if p.Focused {
				return p.ID
			}
		}
		return 0
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				last, _ := outer.Run("capture-pane", "-p", "-t", pane)
				t.Fatalf("never %s; screen:\n%s", what, last)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	// A click in the left pane focuses it.
	if focused() != 2 {
		t.Fatalf("pane 2 should start focused, got %d", focused())
	}
	click(10, 10)
	waitFor("focused pane 1 by a click", func() bool { return focused() == 1 })

	// Dragging the separator resizes the split.
	sep := strings.Index(strings.Split(screen, "\n")[1], "│")
	if sep < 0 {
		t.Fatalf("no separator on row 1:\n%s", screen)
	}
	sepX := len([]rune(strings.Split(screen, "\n")[1][:sep]))
	before := listPanes(t, se)[0].Cols
	mouse(0, sepX, 10, false)
	mouse(32, sepX-10, 10, false)
	mouse(0, sepX-10, 10, true)
	waitFor("the separator dragged 10 columns left", func() bool { return listPanes(t, se)[0].Cols == before-10 })

	// The keyboard moves it too: C-b C-Right by one cell, C-b M-Left by five.
	if _, err := outer.Run("send-keys", "-t", pane, "C-b", "C-Right"); err != nil {
		t.Fatal(err)
	}
	waitFor("the split one column wider", func() bool { return listPanes(t, se)[0].Cols == before-9 })
	if _, err := outer.Run("send-keys", "-t", pane, "C-b", "M-Left"); err != nil {
		t.Fatal(err)
	}
	waitFor("the split five columns narrower", func() bool { return listPanes(t, se)[0].Cols == before-14 })

	position := regexp.MustCompile(`\[\d+/\d+\]`)
	// The wheel over the unfocused right pane scrolls it; focus stays on
	// pane 1 (the frame showing copy mode was drawn after any focus change).
	mouse(64, 90, 10, false)
	outer.WaitFor(pane, 10*time.Second, "copy mode on pane 2", position.MatchString)
	if got := focused(); got != 1 {
		t.Fatalf("the wheel over pane 2 moved focus to pane %d", got)
	}
	mouse(65, 90, 10, false)
	outer.WaitFor(pane, 10*time.Second, "pane 2's copy mode left", func(s string) bool { return !position.MatchString(s) })

	// The wheel over a pane scrolls its history (copy mode, with its position shown).
	mouse(64, 10, 10, false)
	outer.WaitFor(pane, 10*time.Second, "copy mode's position indicator", position.MatchString)
	// Wheeling back down to the bottom leaves copy mode, as in tmux.
	for i := 0; i < 3; i++ {
		mouse(65, 10, 10, false)
	}
	outer.WaitFor(pane, 10*time.Second, "copy mode left at the bottom", func(s string) bool { return !position.MatchString(s) })

	// A click on a tab in the status line selects it.
	se.must("open-pane", "--layout", "tab", "--", "sh")
	status := outer.WaitFor(pane, 10*time.Second, "the second tab", func(s string) bool { return strings.Contains(s, " 1:") })
	lines := strings.Split(strings.TrimRight(status, "\n"), "\n")
	last := lines[len(lines)-1]
	at := strings.Index(last, "0:")
	if at < 0 {
		t.Fatalf("no tab 0 in the status line %q", last)
	}
	click(len([]rune(last[:at]))+1, len(lines)-1)
	outer.WaitFor(pane, 10*time.Second, "tab 0 shown again", func(s string) bool { return strings.Contains(s, "─ 1 ") })
}

// TestCopyPasteInsideTmux copies a line in copy mode and pastes it with the
// prefix key, and checks the copy reached the terminal's clipboard (OSC 52).
func TestCopyPasteInsideTmux(t *testing.T) {
	t.Parallel()
	tmuxtest.Require(t)
	se := newSessionEnv(t)
	se.must("new", "-d", "-x", "80", "-y", "24", "--", "sh", "-c", "echo copy-me-42; exec sh")
	outer := tmuxtest.Start(t, 80, 24, se.inShell(se.bin+" attach"))
	// tmux keeps OSC 52 from a pane when set-clipboard allows it.
	if _, err := outer.Run("set", "-g", "set-clipboard", "on"); err != nil {
		t.Fatal(err)
	}
	const pane = "%0"
	keys := func(k ...string) {
		t.Helper()
		if _, err := outer.Run(append([]string{"send-keys", "-t", pane}, k...)...); err != nil {
			t.Fatal(err)
		}
	}
	outer.WaitFor(pane, 15*time.Second, "the pane", func(s string) bool { return strings.Contains(s, "copy-me-42") })
	se.must("wait", "-t", "1", "--idle", "300ms", "--timeout", "10s")
	keys("C-b", "[")
	outer.WaitFor(pane, 10*time.Second, "copy mode", regexp.MustCompile(`\[\d+/\d+\]`).MatchString)
	keys("k", "0", "v", "$", "y")
	outer.WaitFor(pane, 10*time.Second, "the copy message", func(s string) bool { return strings.Contains(s, "copied") })
	keys("C-b", "]")
	se.must("wait", "-t", "1", "--match", `^\$ copy-me-42`, "--screen", "--timeout", "10s")
	buf, err := outer.Run("show-buffer")
	if err != nil || !strings.Contains(buf, "copy-me-42") {
		t.Fatalf("the copy did not reach the terminal's clipboard (OSC 52): %q, %v", buf, err)
	}
}

// TestPromptHelpAndKillInsideTmux: the help overlay, a CLI verb run from the
// ":" prompt, and kill-pane's confirmation.
func TestPromptHelpAndKillInsideTmux(t *testing.T) {
	t.Parallel()
	tmuxtest.Require(t)
	se := newSessionEnv(t)
	se.must("new", "-d", "-x", "100", "-y", "30", "--", "sleep", "600")
	outer := tmuxtest.Start(t, 100, 30, se.inShell(se.bin+" attach"))
	const pane = "%0"
	keys := func(k ...string) {
		t.Helper()
		if _, err := outer.Run(append([]string{"send-keys", "-t", pane}, k...)...); err != nil {
			t.Fatal(err)
		}
	}
	has := func(s string) func(string) bool {
		return func(screen string) bool { return strings.Contains(screen, s) }
	}
	outer.WaitFor(pane, 15*time.Second, "the status line", has("[main]"))

	keys("C-b", "?")
	outer.WaitFor(pane, 10*time.Second, "the help overlay", func(s string) bool {
		return strings.Contains(s, "split-right") && strings.Contains(s, "copy-mode") && strings.Contains(s, "detach")
	})
	keys("q")
	outer.WaitFor(pane, 10*time.Second, "the overlay gone", func(s string) bool { return !strings.Contains(s, "split-right") })

	keys("C-b", ":")
	keys("-l", "open-pane --layout right -- sleep 601")
	keys("Enter")
	deadline := time.Now().Add(10 * time.Second)
	for len(listPanes(t, se)) != 2 {
		if time.Now().After(deadline) {
			t.Fatalf("the prompt's open-pane did not run: %+v", listPanes(t, se))
		}
		time.Sleep(50 * time.Millisecond)
	}
	outer.WaitFor(pane, 10*time.Second, "pane 2", has("─ 2 "))

	keys("C-b", "x")
	outer.WaitFor(pane, 10*time.Second, "the confirmation", has("kill pane 2? (y/n)"))
	keys("n")
	// The client's loop runs an answered prompt's command before it draws
	// again: once a frame shows the prompt gone, a kill would be done.
	outer.WaitFor(pane, 10*time.Second, "the confirmation answered", func(s string) bool { return !strings.Contains(s, "kill pane 2?") })
	if n := len(listPanes(t, se)); n != 2 {
		t.Fatalf("'n' killed the pane anyway: %d panes", n)
	}
	keys("C-b", "x")
	outer.WaitFor(pane, 10*time.Second, "the confirmation", has("kill pane 2? (y/n)"))
	keys("y")
	deadline = time.Now().Add(10 * time.Second)
	for len(listPanes(t, se)) != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("'y' did not kill pane 2: %+v", listPanes(t, se))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestConfigPrefixInsideTmux: the prefix and bindings of config.toml apply to
// attached clients.
func TestConfigPrefixInsideTmux(t *testing.T) {
	t.Parallel()
	tmuxtest.Require(t)
	se := newSessionEnv(t)
	cfg := filepath.Join(se.home, "melmux", "config.toml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte("prefix = \"C-a\"\n[bindings]\n\"|\" = \"split-right\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	se.must("new", "-d", "-x", "100", "-y", "30", "--", "sh", "-c", "stty raw -echo; exec cat > /dev/null")
	outer := tmuxtest.Start(t, 100, 30, se.inShell(se.bin+" attach"))
	const pane = "%0"
	outer.WaitFor(pane, 15*time.Second, "the status line", func(s string) bool { return strings.Contains(s, "[main]") })
	// C-b is no longer the prefix: it and % go to the pane.
	if _, err := outer.Run("send-keys", "-t", pane, "C-b", "%"); err != nil {
		t.Fatal(err)
	}
	if _, err := outer.Run("send-keys", "-t", pane, "C-a", "|"); err != nil {
		t.Fatal(err)
	}
	outer.WaitFor(pane, 10*time.Second, "pane 2 from C-a |", func(s string) bool { return strings.Contains(s, "─ 2 ") })
	if n := len(listPanes(t, se)); n != 2 {
		t.Fatalf("want 2 panes (C-b %% is not a binding any more), got %d", n)
	}
}
