package ui

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/melmux/melmux/pane/term"
)

// TestEncodeKeyMatchesTmux types every key of the list into a tmux pane
// whose program records its raw input, in normal and in application
// cursor-key mode, and compares with EncodeKey. tmux's key names are
// ParseKey's. Skipped when tmux is not installed.
func TestEncodeKeyMatchesTmux(t *testing.T) {
	if testing.Short() {
		t.Skip("starts tmux")
	}
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux not installed")
	}
	keys := []string{"a", "Z", "Space", "Up", "Down", "Right", "Left", "C-Up", "M-Up", "S-Up", "C-S-Up", "C-M-Left",
		"Home", "End", "C-Home", "S-End", "PPage", "NPage", "C-NPage", "IC", "DC", "C-DC",
		"F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "F9", "F10", "F11", "F12", "S-F1", "C-F2", "M-F3", "S-F5", "C-F12",
		"M-a", "C-a", "C-z", "C-M-a", "M-A", "BSpace", "M-BSpace", "Enter", "M-Enter", "Tab", "BTab",
		"Escape", "C-Space", `C-\`, "C-]", "C-^", "C-_", "C-?"}
	dir := t.TempDir()
	for _, mode := range []struct {
		name  string
		setup string
		m     term.Modes
	}{
		{"normal", "", term.Modes{}},
		{"app-cursor", `printf '\033[?1h';`, term.Modes{AppCursor: true}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			// A server of its own per mode: a server whose last session
			// ends exits, racing with the next new-session on its socket.
			sock := filepath.Join(dir, mode.name+".sock")
			out := filepath.Join(dir, mode.name+".bin")
			ready := filepath.Join(dir, mode.name+".ready")
			run := func(args ...string) {
				t.Helper()
				cmd := exec.Command(tmux, append([]string{"-S", sock, "-f", "/dev/null"}, args...)...)
				cmd.Env = append(os.Environ(), "TMUX=")
				if b, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("tmux %v: %v\n%s", args, err, b)
				}
			}
			shell := fmt.Sprintf("stty raw -echo; %s touch %s; exec cat > %s", mode.setup, ready, out)
			run("new-session", "-d", "-s", mode.name, "-x", "80", "-y", "24", shell)
			defer run("kill-server")
			waitFor(t, func() bool { _, err := os.Stat(ready); return err == nil })
			for _, k := range keys {
				run("send-keys", "-t", mode.name, k, "|")
			}
			run("send-keys", "-t", mode.name, "-l", "#END#")
			var got []byte
			waitFor(t, func() bool {
				got, _ = os.ReadFile(out)
				return bytes.HasSuffix(got, []byte("#END#"))
			})
			parts := strings.Split(strings.TrimSuffix(string(got), "#END#"), "|")
			if len(parts) != len(keys)+1 {
				t.Fatalf("%d keys but %d recorded: %q", len(keys), len(parts)-1, got)
			}
			for i, k := range keys {
				id, err := ParseKey(k)
				if err != nil {
					t.Fatalf("ParseKey(%q): %v", k, err)
				}
				if want, enc := parts[i], string(EncodeKey(id, mode.m)); enc != want {
					t.Errorf("%s: EncodeKey %q, tmux sends %q", k, enc, want)
				}
			}
		})
	}
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting for tmux")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
