package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// `melmux source-file` gives a running session, and the client attached to
// it, the prefix and bindings of the file read again, naming the entry it
// left out; a key bound to `run source-file` does the same from the
// attached client.
func TestSourceFileChangesThePrefixInsideTmux(t *testing.T) {
	t.Parallel()
	se, outer, keys := attachedInTmux(t, 100, 30, "exec sh")
	const pane = outerPane
	wait := func(what string, cond func(string) bool) string {
		t.Helper()
		return outer.WaitFor(pane, 15*time.Second, what, cond)
	}
	wait("the status line", func(s string) bool { return strings.Contains(s, "[main] 0:") })

	file := filepath.Join(se.home, "melmux", "config.toml") // $XDG_CONFIG_HOME is home
	write := func(text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("prefix = \"C-a\"\n[bindings]\nq = \"quit-everything\"\nR = \"run source-file\"\n")
	out, err := se.run("source-file")
	if err == nil || !strings.Contains(out, file+":3: bindings.q: bad command") ||
		!strings.Contains(err.Error(), "1 entries left out (each named above); the rest of the file applies") {
		t.Fatalf("source-file of a file with a bad binding: %v\nstdout: %s", err, out)
	}
	keys("C-a", "%")
	wait("pane 2, split by the new prefix", func(s string) bool { return strings.Contains(s, "─ 2 ") })

	// Back to C-b, by the key the file bound under the prefix of the moment.
	write("prefix = \"C-b\"\n")
	keys("C-a", "R")
	// The status line has room for the start of the answer only.
	wait("the reload's answer", func(s string) bool { return strings.Contains(s, "applied /") })
	keys("C-b", "%")
	wait("pane 3, split by C-b again", func(s string) bool { return strings.Contains(s, "─ 3 ") })
	if n := len(listPanes(t, se)); n != 3 {
		t.Fatalf("%d panes, want 3", n)
	}
}
