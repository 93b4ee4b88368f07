package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/tmuxtest"
)

// waitPanes polls list-panes until cond holds, or fails with the last list.
func tmWaitPanes(t *testing.T, se *sessionEnv, what string, cond func([]proto.PaneInfo) bool) []proto.PaneInfo {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		panes := listPanes(t, se)
		if cond(panes) {
			return panes
		}
		if time.Now().After(deadline) {
			t.Fatalf("never %s: %+v", what, panes)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func tmFocused(panes []proto.PaneInfo) int {
	for _, p := range panes {
		if p.Focused {
			return p.ID
		}
	}
	return 0
}

func tmPane(panes []proto.PaneInfo, id int) proto.PaneInfo {
	for _, p := range panes {
		if p.ID == id {
			return p
		}
	}
	return proto.PaneInfo{}
}

func tmOrder(panes []proto.PaneInfo) string {
	ids := make([]string, len(panes))
	for i, p := range panes {
		ids[i] = strconv.Itoa(p.ID)
	}
	return strings.Join(ids, " ")
}

// TestTmuxKeysAttached types the keys tmux users reach for into an
// attached client and checks what each did to the session: o ; { } Space !
// , w ' q PgUp, the resize keys repeating, & and C-b % with no room, and
// tmux's command names at the ":" prompt.
func TestTmuxKeysAttached(t *testing.T) {
	se, outer, keys := attachedInTmux(t, 100, 30, "seq 1 300; exec sh")
	wait := func(what string, cond func(string) bool) string {
		t.Helper()
		return outer.WaitFor(outerPane, 10*time.Second, what, cond)
	}
	has := func(s string) func(string) bool {
		return func(screen string) bool { return strings.Contains(screen, s) }
	}
	// Keys that act on what the person sees (the tab to rename or kill,
	// the panes to number) are typed once the screen shows it.
	shown := func(tab, panes int) {
		t.Helper()
		re := regexp.MustCompile(fmt.Sprintf(`\b%d:\S*\(%d\)\*`, tab, panes))
		wait(fmt.Sprintf("tab %d of %d panes shown active", tab, panes), re.MatchString)
	}
	wait("the pane", has("300"))

	keys("C-b", "%")
	tmWaitPanes(t, se, "pane 2 focused", func(p []proto.PaneInfo) bool { return len(p) == 2 && tmFocused(p) == 2 })
	keys("C-b", "o")
	tmWaitPanes(t, se, "o: the next pane (wrapping) focused", func(p []proto.PaneInfo) bool { return tmFocused(p) == 1 })
	keys("C-b", `\;`) // tmux reads a lone ; as its command separator
	tmWaitPanes(t, se, ";: the last pane focused", func(p []proto.PaneInfo) bool { return tmFocused(p) == 2 })
	keys("C-b", "{")
	tmWaitPanes(t, se, "{: pane 2 swapped before pane 1", func(p []proto.PaneInfo) bool { return tmOrder(p) == "2 1" && tmFocused(p) == 2 })
	keys("C-b", "}")
	tmWaitPanes(t, se, "}: pane 2 swapped after pane 1", func(p []proto.PaneInfo) bool { return tmOrder(p) == "1 2" })

	// Space cycles the arrangements: three side by side, then stacked.
	keys("C-b", `"`)
	tmWaitPanes(t, se, "pane 3", func(p []proto.PaneInfo) bool { return len(p) == 3 })
	keys("C-b", "Space")
	wait("the layout's name", has("layout: even-horizontal"))
	tmWaitPanes(t, se, "even-horizontal", func(p []proto.PaneInfo) bool {
		return p[0].Rows == 28 && p[1].Rows == 28 && p[2].Rows == 28 && p[0].Cols+p[1].Cols+p[2].Cols+2 == 100
	})
	keys("C-b", "Space")
	tmWaitPanes(t, se, "even-vertical", func(p []proto.PaneInfo) bool {
		return p[0].Cols == 100 && p[1].Cols == 100 && p[2].Cols == 100
	})

	// ! breaks the focused pane (3) out to a tab of its own.
	keys("C-b", "!")
	tmWaitPanes(t, se, "pane 3 in tab 1", func(p []proto.PaneInfo) bool {
		return tmPane(p, 3).Tab == 1 && tmPane(p, 3).Focused && tmPane(p, 1).Tab == 0
	})
	// , renames it.
	shown(1, 1)
	keys("C-b", ",")
	wait("the rename prompt", has("rename tab 1: "))
	keys("C-u")
	keys("-l", "logs")
	keys("Enter")
	wait("the new name", has("1:logs("))
	// w chooses tab 0; ' then 1 goes back.
	keys("C-b", "w")
	wait("the tab chooser", has("(1) 1: logs (1 pane) *"))
	keys("0")
	tmWaitPanes(t, se, "w 0: tab 0", func(p []proto.PaneInfo) bool { return tmPane(p, 3).Tab == 1 && !tmPane(p, 3).Focused })
	keys("C-b", "'")
	wait("the tab prompt", func(s string) bool { return strings.HasSuffix(strings.TrimRight(s, "\n "), "tab:") })
	keys("1", "Enter")
	tmWaitPanes(t, se, "' 1: tab 1", func(p []proto.PaneInfo) bool { return tmPane(p, 3).Focused })
	keys("C-b", "0")
	shown(0, 2)

	// q shows the pane numbers, a digit jumps (typed at once: the numbers
	// stay two seconds).
	before := tmFocused(listPanes(t, se))
	other := 1
	if before == 1 {
		other = 2
	}
	keys("C-b", "q", strconv.Itoa(other))
	tmWaitPanes(t, se, "q: the pane typed focused", func(p []proto.PaneInfo) bool { return tmFocused(p) == other })

	// The resize keys repeat without the prefix: two C-Up after one prefix
	// move pane 1's bottom edge two rows.
	keys("C-b", "q", "1")
	rows := tmWaitPanes(t, se, "pane 1 focused", func(p []proto.PaneInfo) bool { return tmFocused(p) == 1 })
	r1 := tmPane(rows, 1).Rows
	keys("C-b", "C-Up", "C-Up")
	tmWaitPanes(t, se, "pane 1 two rows lower", func(p []proto.PaneInfo) bool { return tmPane(p, 1).Rows == r1-2 })

	// PgUp: copy mode a page up.
	keys("C-b", "PgUp")
	position := regexp.MustCompile(`\[(\d+)/(\d+)\]`)
	wait("copy mode a page up", func(s string) bool {
		m := position.FindStringSubmatch(s)
		if m == nil {
			return false
		}
		n, _ := strconv.Atoi(m[1])
		return n > 0
	})
	keys("q")
	wait("copy mode left", func(s string) bool { return !position.MatchString(s) })

	// tmux's names at the ":" prompt.
	keys("C-b", ":")
	keys("-l", "new-window")
	keys("Enter")
	tmWaitPanes(t, se, ":new-window: a tab", func(p []proto.PaneInfo) bool { return len(p) == 4 && tmPane(p, 4).Tab == 2 })
	keys("C-b", ":")
	keys("-l", "split-window -h")
	keys("Enter")
	tmWaitPanes(t, se, ":split-window -h: pane 4 split", func(p []proto.PaneInfo) bool { return len(p) == 5 && tmPane(p, 5).Tab == 2 })
	keys("C-b", ":")
	keys("-l", "split-window -l 5")
	keys("Enter")
	wait("split-window's flags refused", has("split-window -l: melmux takes -h"))

	// & kills the tab, once confirmed.
	shown(2, 2)
	keys("C-b", "&")
	wait("the confirmation", has("kill tab 2 (2 panes)? (y/n)"))
	keys("y")
	tmWaitPanes(t, se, "tab 2 gone", func(p []proto.PaneInfo) bool { return len(p) == 3 })

	// C-b % with no room says so and opens nothing. Tab 1 (pane 3) is the
	// whole width: 100 -> 49 + 50 -> 24 + 25 -> no room for 12.
	keys("C-b", "1")
	tmWaitPanes(t, se, "tab 1", func(p []proto.PaneInfo) bool { return tmPane(p, 3).Focused })
	keys("C-b", "%")
	tmWaitPanes(t, se, "pane 6", func(p []proto.PaneInfo) bool { return len(p) == 4 })
	keys("C-b", "%")
	tmWaitPanes(t, se, "pane 7", func(p []proto.PaneInfo) bool { return len(p) == 5 && tmPane(p, 7).Tab == 1 && tmPane(p, 7).Focused })
	// The key acts on the pane the client last drew as focused: wait for
	// pane 7 to be drawn before pressing it.
	wait("pane 7 drawn", has("─ 7 "))
	keys("C-b", "%")
	wait("no room said", has("no room: right split of pane 7"))
	if p := listPanes(t, se); len(p) != 5 {
		t.Fatalf("C-b %% with no room opened a pane: %+v", p)
	}
}

// TestAttachMostRecentAndSessionChooser: attach -t NAME attaches to NAME,
// attach with no name to the session used last, and C-b s switches the
// client to another session.
func TestAttachMostRecentAndSessionChooser(t *testing.T) {
	t.Parallel()
	tmuxtest.Require(t)
	se := newSessionEnv(t)
	if _, err := se.run("attach"); err == nil || !strings.Contains(err.Error(), "no session runs in") {
		t.Fatalf("attach with no session: %v", err)
	}
	if _, err := se.run("attach", "-t", "a/b"); err == nil || !strings.Contains(err.Error(), "-s:") {
		t.Fatalf("attach -t with a bad name: %v", err)
	}
	if _, err := se.run("attach", "extra"); err == nil || !strings.Contains(err.Error(), "attach takes no arguments (a session is -t NAME)") {
		t.Fatalf("attach with an argument: %v", err)
	}
	se.must("-s", "alpha", "new", "-d", "--", "sh", "-c", "echo in-alpha; exec sleep 600")
	se.must("-s", "beta", "new", "-d", "--", "sh", "-c", "echo in-beta; exec sleep 600")
	outer := tmuxtest.Start(t, 80, 24, se.inShell("PS1='outer$ ' /bin/sh"))
	keys := sendKeys(t, outer, outerPane)
	wait := func(what string, cond func(string) bool) string {
		t.Helper()
		return outer.WaitFor(outerPane, 10*time.Second, what, cond)
	}
	has := func(s string) func(string) bool {
		return func(screen string) bool { return strings.Contains(screen, s) }
	}
	wait("the outer prompt", has("outer$"))

	// Neither was attached: beta was created last.
	keys("clear; "+se.bin+" attach", "Enter")
	wait("beta", has("in-beta"))
	keys("C-b", "d")
	wait("detached from beta", has("[detached (from session beta)]"))
	keys("clear; "+se.bin+" attach -t alpha", "Enter")
	wait("alpha", has("in-alpha"))
	keys("C-b", "d")
	wait("detached from alpha", has("[detached (from session alpha)]"))
	// alpha was left last.
	keys("clear; "+se.bin+" attach", "Enter")
	wait("alpha, used last", has("[alpha]"))

	// C-b s lists both, this one first; 1 switches to beta.
	keys("C-b", "s")
	wait("the session chooser", func(s string) bool {
		return strings.Contains(s, "(0) alpha: 1 pane, 1 attached *") && strings.Contains(s, "(1) beta: 1 pane")
	})
	keys("1")
	wait("beta through the chooser", has("[beta]"))

	// Leaving counts as using: a second terminal attaches to alpha after
	// this one came to beta and leaves first; this one then leaves beta,
	// the session used last.
	second := tmuxtest.Start(t, 80, 24, se.inShell(se.bin+" attach -t alpha"))
	second.WaitFor(outerPane, 10*time.Second, "alpha in the second terminal", has("[alpha]"))
	sendKeys(t, second, outerPane)("C-b", "d")
	tmWaitSession(t, se, "alpha", func(s proto.SessionInfo) bool { return s.Clients == 0 })
	keys("C-b", "d")
	wait("detached from beta", has("[detached (from session beta)]"))
	keys("clear; "+se.bin+" attach", "Enter")
	wait("beta, left last", has("[beta]"))
}

// tmWaitSession waits until session name satisfies cond.
func tmWaitSession(t *testing.T, se *sessionEnv, name string, cond func(proto.SessionInfo) bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var info proto.SessionInfo
		out, err := se.run("-s", name, "ls", "--json")
		var all []proto.SessionInfo
		if err == nil && json.Unmarshal([]byte(out), &all) == nil {
			for _, s := range all {
				if s.Name == name {
					info = s
				}
			}
			if info.Name == name && cond(info) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("session %s never as wanted: %+v (%v)", name, info, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
