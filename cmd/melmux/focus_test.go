package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestScriptPanesLeaveTheFocusInsideTmux: a person types into pane 1 while a
// script opens panes beside it and in a new tab. The keys typed after the
// script's open-pane still reach pane 1 (before, the new pane took the
// focus and its tab, and a permission answer went to the wrong agent).
// open-pane --focus moves the focus; so does open-pane typed at the person's
// own ":" prompt.
func TestScriptPanesLeaveTheFocusInsideTmux(t *testing.T) {
	t.Parallel()
	se, outer, keys := attachedInTmux(t, 100, 30, "exec cat")
	outer.WaitFor(outerPane, 15*time.Second, "the status line", func(s string) bool { return strings.Contains(s, "[main] 0:") })
	focused := func() int {
		t.Helper()
		for _, p := range listPanes(t, se) {
			if p.Focused {
				return p.ID
			}
		}
		return 0
	}
	// typedInto types a line into the attached terminal and waits for the
	// pane that has the focus by the session's account to echo it.
	typedInto := func(want int, line string) {
		t.Helper()
		if got := focused(); got != want {
			t.Fatalf("before typing %q: pane %d has the focus, want pane %d", line, got, want)
		}
		keys("-l", line)
		keys("Enter")
		if _, err := se.run("wait", "-t", strconv.Itoa(want), "--match", "^"+line+"$", "--screen", "--timeout", "15s"); err != nil {
			for _, p := range listPanes(t, se) {
				screen, _ := se.run("read-pane", "-t", strconv.Itoa(p.ID))
				t.Logf("pane %d:\n%s", p.ID, screen)
			}
			t.Fatalf("%q never reached pane %d: %v", line, want, err)
		}
	}

	se.must("open-pane", "--layout", "right", "--", "cat") // pane 2, beside 1
	se.must("open-pane", "--layout", "tab", "--", "cat")   // pane 3, in tab 1
	typedInto(1, "typed-after-the-script")
	for _, p := range []int{2, 3} {
		if screen := se.must("read-pane", "-t", strconv.Itoa(p)); strings.Contains(screen, "typed-after") {
			t.Fatalf("pane %d took keys meant for pane 1:\n%s", p, screen)
		}
	}

	// --focus asks for the focus: the new pane and its tab.
	dir := filepath.Join(t.TempDir(), "pane-4-dir")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	se.must("open-pane", "--layout", "tab", "--focus", "--cwd", dir, "--", "cat") // pane 4, in tab 2
	// Keys go to the pane the person sees focused: type once it shows.
	outer.WaitFor(outerPane, 15*time.Second, "tab 2 shown", func(s string) bool {
		return strings.Contains(s, "─ 4 ") && !strings.Contains(s, "─ 1 ")
	})
	typedInto(4, "typed-after-focus")

	// The person's own ":" prompt gives the focus too, and runs its verb in
	// the focused pane's directory, as a split from the keys starts there.
	keys("C-b", ":")
	keys("-l", `open-pane --layout right -- sh -c 'echo "in $(basename "$PWD")"; exec cat'`)
	keys("Enter")
	outer.WaitFor(outerPane, 15*time.Second, "pane 5 beside pane 4", func(s string) bool {
		return strings.Contains(s, "─ 5 ") && strings.Contains(s, "─ 4 ")
	})
	if _, err := se.run("wait", "-t", "5", "--match", "^in pane-4-dir$", "--screen", "--timeout", "15s"); err != nil {
		screen, _ := se.run("read-pane", "-t", "5")
		t.Fatalf("the prompt's open-pane should start in pane 4's directory %s: %v\n%s", dir, err, screen)
	}
	typedInto(5, "typed-after-the-prompt")
}
