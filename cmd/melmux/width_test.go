package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/tmuxtest"
)

// TestClustersDrawnAsInTmux attaches inside tmux to a pane showing flags and
// ZWJ sequences followed by a mark at a fixed column, and compares the outer
// terminal's rows with tmux showing the same bytes itself: 🇫🇷 is drawn (two
// columns of one letter each), 👨‍👩‍👧 takes two columns, and everything after
// them stands where tmux puts it.
func TestClustersDrawnAsInTmux(t *testing.T) {
	t.Parallel()
	tmuxtest.Require(t)
	se := newSessionEnv(t)
	text := strings.Join([]string{
		"flag A🇫🇷B\x1b[20G|",
		"fam C👨\u200d👩\u200d👧D\x1b[20G|",
		"both 🇫🇷👨\u200d👩\u200d👧🇫🇷\x1b[20G|",
	}, "\n") + "\n"
	file := filepath.Join(t.TempDir(), "clusters")
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	show := "cat '" + file + "'; exec sleep 600"
	ref := tmuxtest.Start(t, 60, 10, show)
	want := tmuxtest.Lines(ref.WaitFor("%0", 15*time.Second, "tmux's own rows", func(s string) bool { return strings.Contains(s, "both") }))[:3]

	se.must("new", "-d", "-x", "60", "-y", "10", "--", "sh", "-c", show)
	outer := tmuxtest.Start(t, 60, 10, se.inShell(se.bin+" attach"))
	screen := outer.WaitFor("%0", 15*time.Second, "the pane drawn", func(s string) bool { return strings.Contains(s, "both") })
	rows := tmuxtest.Lines(screen)
	// Row 0 is the pane's border; its content starts at row 1, column 0.
	if len(rows) < 4 {
		t.Fatalf("screen:\n%s", screen)
	}
	tmuxtest.CompareRows(t, "attached", want, rows[1:4], nil)
}
