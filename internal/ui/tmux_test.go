package ui

import (
	"testing"

	"github.com/melmux/melmux/internal/tmuxtest"
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
	tmuxtest.Require(t)
	keys := []string{"a", "Z", "Space", "Up", "Down", "Right", "Left", "C-Up", "M-Up", "S-Up", "C-S-Up", "C-M-Left",
		"Home", "End", "C-Home", "S-End", "PPage", "NPage", "C-NPage", "IC", "DC", "C-DC",
		"F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "F9", "F10", "F11", "F12", "S-F1", "C-F2", "M-F3", "S-F5", "C-F12",
		"M-a", "C-a", "C-z", "C-M-a", "M-A", "BSpace", "M-BSpace", "Enter", "M-Enter", "Tab", "BTab",
		"Escape", "C-Space", `C-\`, "C-]", "C-^", "C-_", "C-?"}
	for _, mode := range []struct {
		name  string
		setup string
		m     term.Modes
	}{
		{"normal", "", term.Modes{}},
		{"app-cursor", `\033[?1h`, term.Modes{AppCursor: true}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			rec := tmuxtest.NewRecorder(t, mode.setup)
			if mode.setup != "" {
				rec.WaitFormat("#{keypad_cursor_flag}", "1")
			}
			got := rec.Keys(keys)
			for i, k := range keys {
				id, err := ParseKey(k)
				if err != nil {
					t.Fatalf("ParseKey(%q): %v", k, err)
				}
				if want, enc := got[i], string(EncodeKey(id, mode.m)); enc != want {
					t.Errorf("%s: EncodeKey %q, tmux sends %q", k, enc, want)
				}
			}
		})
	}
}
