package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/testexec"
)

// fakeClaude is a stand-in for Claude Code: a program named claude that asks
// its permission question at once (one key answers it), or with "later"
// works until a line is typed and then asks.
const fakeClaude = `#!/bin/sh
case " $* " in *" later "*)
	printf '\342\234\273 Thinking\342\200\246 (3s \302\267 esc to interrupt)\n'
	read answer
	printf '\033[2J\033[H'
esac
printf 'Bash command\n  go test ./...\n\nDo you want to proceed?\n\342\235\257 1. Yes\n  2. No, and tell Claude what to do differently (esc)\n'
stty -icanon -echo min 1
dd bs=1 count=1 >/dev/null 2>&1
printf '\033[2J\033[H'
printf '\342\227\217 Done. All tests pass.\n\n> '
read answer
`

// focusedPane is the session's focused pane.
func focusedPane(t *testing.T, se *sessionEnv) int {
	t.Helper()
	var panes []proto.PaneInfo
	if err := json.Unmarshal([]byte(se.must("list-panes", "--json")), &panes); err != nil {
		t.Fatal(err)
	}
	for _, p := range panes {
		if p.Focused {
			return p.ID
		}
	}
	return 0
}

// waitFocus waits until pane id is the focused one.
func waitFocus(t *testing.T, se *sessionEnv, id int, why string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for focusedPane(t, se) != id {
		if time.Now().After(deadline) {
			t.Fatalf("%s: pane %d should be focused, pane %d is", why, id, focusedPane(t, se))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestAgentsViewInsideTmux: an attached client's C-b a shows every agent
// pane, the one waiting on a question first with its question and keys;
// Enter goes to the selected agent (Down selects the next); an option's key
// answers the selected agent's question; C-b A, from any pane, goes to the
// agent waiting longest, then to the next one.
func TestAgentsViewInsideTmux(t *testing.T) {
	t.Parallel()
	se, outer, keys := attachedInTmux(t, 120, 30, "exec sleep 600")
	bin := t.TempDir()
	claude := filepath.Join(bin, "claude")
	testexec.Write(t, claude, []byte(fakeClaude))
	wait := func(what string, cond func(string) bool) string {
		t.Helper()
		return outer.WaitFor(outerPane, 15*time.Second, what, cond)
	}
	se.must("open-pane", "--layout", "tab", "--", claude)
	se.must("wait", "-t", "2", "--state", "waiting", "--timeout", "20s")
	se.must("open-pane", "--focus", "--layout", "tab", "--", claude, "later")
	se.must("wait", "-t", "3", "--state", "working", "--timeout", "20s")
	waitFocus(t, se, 3, "the pane opened last")

	// The view: pane 2 (asking) first, then pane 3 (working); the sleep in
	// pane 1 is no agent. The question and its keys are at the bottom.
	keys("C-b", "a")
	rowOf := func(pane, state string) *regexp.Regexp {
		return regexp.MustCompile(`(?m)^ ` + pane + ` +[0-9] +claude +` + state + ` +[0-9]+s `)
	}
	screen := wait("the agents view", func(s string) bool {
		return strings.Contains(s, "PANE  TAB  AGENT") && strings.Contains(s, "pane 2 asks: Do you want to proceed?")
	})
	lines := strings.Split(screen, "\n")
	if len(lines) < 4 || !strings.Contains(lines[0], "agents") || !rowOf("2", "waiting").MatchString(lines[2]) || !rowOf(`3\*`, "working").MatchString(lines[3]) {
		t.Fatalf("the view should list pane 2 (waiting) then pane 3 (working, focused):\n%s", screen)
	}
	if !strings.Contains(screen, "[1] Yes  [<Esc>] No, and tell Claude what to do differently") || regexp.MustCompile(`(?m)^ 1 `).MatchString(screen) {
		t.Fatalf("the view should show pane 2's options and not pane 1:\n%s", screen)
	}
	// Enter goes to the selected agent (the first: pane 2) and closes it.
	keys("Enter")
	waitFocus(t, se, 2, "Enter on pane 2's row")
	wait("the view closed", func(s string) bool { return !strings.Contains(s, "PANE  TAB  AGENT") })
	// Down selects pane 3; Enter goes there.
	keys("C-b", "a")
	wait("the agents view again", func(s string) bool { return strings.Contains(s, "PANE  TAB  AGENT") })
	keys("Down")
	wait("pane 3 selected (it asks nothing)", func(s string) bool {
		return strings.Contains(s, "PANE  TAB  AGENT") && !strings.Contains(s, "pane 2 asks")
	})
	keys("Enter")
	waitFocus(t, se, 3, "Enter on pane 3's row")

	// An option's key answers the selected agent's question.
	keys("C-b", "a")
	wait("the agents view with pane 2's question", func(s string) bool { return strings.Contains(s, "pane 2 asks:") })
	keys("1")
	wait("the answer told", func(s string) bool {
		return strings.Contains(s, `pane 2: answered "Do you want to proceed?" with 1 (Yes)`)
	})
	if out := se.must("read-pane", "-t", "2"); !strings.Contains(out, "Done. All tests pass.") {
		t.Fatalf("pane 2 should have taken the answer:\n%s", out)
	}
	keys("q")
	wait("the view closed", func(s string) bool { return !strings.Contains(s, "PANE  TAB  AGENT") })

	// Two agents ask: pane 4 first, then pane 3. From pane 1, C-b A goes to
	// pane 4, which has waited longer, and again to pane 3.
	se.must("open-pane", "--layout", "tab", "--", claude)
	se.must("wait", "-t", "4", "--state", "waiting", "--timeout", "20s")
	se.must("send-keys", "-t", "3", `\n`)
	se.must("wait", "-t", "3", "--state", "waiting", "--timeout", "20s")
	keys("C-b", "0")
	waitFocus(t, se, 1, "C-b 0")
	keys("C-b", "A")
	waitFocus(t, se, 4, "C-b A: the agent waiting longest")
	wait("what it asks, in the status line", func(s string) bool {
		return strings.Contains(s, `pane 4: claude asks "Do you want to proceed?"`)
	})
	keys("C-b", "A")
	waitFocus(t, se, 3, "C-b A again: the next one")
}
