package server

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	mxclient "github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/sessionstate"
	"github.com/melmux/melmux/internal/testexec"
)

// lookElsewhere opens a pane in a tab of its own and focuses it: an
// attached person looks at it, so the panes under test are not the one
// they look at (of which nothing is told). It returns the pane's id.
func lookElsewhere(t *testing.T, s *Server, c *mxclient.Client) int {
	t.Helper()
	var r proto.OpenPaneResult
	if err := c.Call(context.Background(), "open_pane", proto.OpenPaneParams{Layout: "tab", Argv: []string{"sleep", "600"}, NoWait: true}, &r); err != nil {
		t.Fatal(err)
	}
	s.withLock(func() { _ = s.layout.Focus(r.ID) })
	return r.ID
}

// awaitNotifyCommands, called before startServer, has the test's end wait
// for the notify_commands of the server given to the func it returns:
// cleanups run last first, so after the server's end and before the
// temporary directory goes (one writing into the directory while it was
// removed failed the test).
func awaitNotifyCommands(t *testing.T) func(*Server) {
	var srv *Server
	t.Cleanup(func() {
		for deadline := time.Now().Add(30 * time.Second); srv != nil && len(srv.notifySlots) > 0 && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond) // a command's end has no channel to wait on
		}
	})
	return func(s *Server) { srv = s }
}

// A program flipping its status report (OSC 7501) between working and done
// every 50 ms for 3 s is told about at most once a second: the first change
// at once, the next ones merged into one told when the second is over, with
// how many it stands for in the OSC 9 text and $MELMUX_AGENT_MERGED.
// Without the limit each of its 30 finished turns rang.
func TestFlappingPaneIsNotifiedOncePerSecond(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "notified")
	notifying := awaitNotifyCommands(t)
	s, c := startServer(t, func(cfg *Config) {
		cfg.Agents = AgentsConfig{Bell: true, OSC9: true, NotifyCommand: `echo "$MELMUX_AGENT_STATE $MELMUX_AGENT_MERGED" >> ` + out}
	})
	notifying(s)
	viewer := &client{tty: newConnTty(nil, &sync.Mutex{}, 100, 30), quit: make(chan string, 1)}
	attachViewer(t, s, viewer)
	// It flaps once the person looks at another pane: nothing is told of
	// the pane they look at.
	newPane(t, c, "sh", "-c", `read go
i=0
while [ $i -lt 30 ]; do
	printf '\033]7501;state=working:app=claude-code\033\\'; sleep 0.05
	printf '\033]7501;state=done:app=claude-code\033\\'; sleep 0.05
	i=$((i+1))
done
echo flapped; exec sleep 600`)
	lookElsewhere(t, s, c)
	start := time.Now()
	call(t, c, "send_keys", proto.SendKeysParams{Pane: 1, Text: "go\n", NoWait: true}, nil)
	waitLine(t, c, 1, `^flapped$`)
	// The last change held back is told within a second of the flapping's end.
	var e *paneEntry
	s.withLock(func() { e = s.panes[1] })
	deadline := time.Now().Add(10 * time.Second)
	for {
		var held bool
		e.agentDo(func() { held = e.notify.pending != nil || e.notify.timer != nil })
		if !held {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a notification is still held back 10s after the flapping ended")
		}
		time.Sleep(20 * time.Millisecond) // a timer's end has no channel to wait on
	}
	took := time.Since(start)
	viewer.msgMu.Lock()
	notes := string(viewer.notes)
	viewer.msgMu.Unlock()
	bells := strings.Count(notes, "\a")
	most := int(took/DefaultNotifyEvery) + 2
	t.Logf("%d notifications in %s of flapping (%s)", bells, took.Round(time.Millisecond), notes)
	if bells < 2 || bells > most {
		t.Fatalf("%d bells in %s: want 2 to %d, one a second at most", bells, took.Round(time.Millisecond), most)
	}
	if n := strings.Count(notes, "\x1b]9;"); n != bells {
		t.Errorf("%d OSC 9 notifications for %d bells", n, bells)
	}
	merged := regexp.MustCompile(`finished its turn \((\d+) more changes merged\)`).FindAllStringSubmatch(notes, -1)
	if len(merged) == 0 {
		t.Fatalf("no notification says how many changes it merged: %q", notes)
	}
	// notify_command ran once per notification, with the merged count.
	var lines []string
	for deadline := time.Now().Add(10 * time.Second); ; {
		raw, _ := os.ReadFile(out)
		lines = strings.Split(strings.TrimSpace(string(raw)), "\n")
		if len(lines) >= bells {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("notify_command ran %d times for %d notifications: %q", len(lines), bells, lines)
		}
		time.Sleep(20 * time.Millisecond) // a command runs on its own; its file is all there is to watch
	}
	sum := 0
	for _, l := range lines {
		f := strings.Fields(l)
		n, err := strconv.Atoi(f[len(f)-1])
		if len(f) != 2 || err != nil {
			t.Fatalf("notify_command wrote %q, want STATE MERGED", l)
		}
		sum += n
	}
	if len(lines) != bells || sum == 0 || !strings.Contains(strings.Join(lines, "\n"), merged[len(merged)-1][1]) {
		t.Errorf("notify_command wrote %q for %d notifications, the last merging %s", lines, bells, merged[len(merged)-1][1])
	}
}

// notesOf is what the client's terminal was sent beside its frames (bells,
// OSC 9 notifications), taken: the next call gives what came after.
func notesOf(c *client) string {
	c.msgMu.Lock()
	defer c.msgMu.Unlock()
	n := string(c.notes)
	c.notes = nil
	return n
}

// marks is each tab's attention mark as the viewer's status line shows
// it: "!" needs you, "+" done, "" nothing.
func marks(s *Server, viewer *client) []string {
	sc, _ := s.scene(viewer)
	viewer.scene = sc // drawn: the next frame is not the client's first
	var out []string
	for _, t := range sc.Tabs {
		switch {
		case t.Attention:
			out = append(out, "!")
		case t.Done:
			out = append(out, "+")
		default:
			out = append(out, "")
		}
	}
	return out
}

// waitMarks waits until the tabs' marks are want, drawing no frame (a
// frame visits the tab it shows): the scene's marks are read under the
// lock as a frame would read them.
func waitMarks(t *testing.T, s *Server, want ...string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var got []string
		s.withLock(func() {
			for _, tab := range s.layout.Tabs() {
				m := ""
				for _, id := range tab.Panes {
					if e, ok := s.panes[id]; ok {
						var mark attention
						e.agentDo(func() { mark = e.notify.mark })
						switch {
						case mark == attnNeeds:
							m = "!"
						case mark == attnDone && m == "":
							m = "+"
						}
					}
				}
				got = append(got, m)
			}
		})
		if slices.Equal(got, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("tab marks %q, want %q", got, want)
		}
		time.Sleep(20 * time.Millisecond) // a pane's exit is handled on its own goroutine
	}
}

// Three kinds of change: needs you (a question, a failed turn, a failed
// program) marks its tab "!", done (a finished turn, a program ending with
// exit code 0) "+", both ring and notify saying which; ready for the next
// message (a melmux agent that registered, an agent at its first prompt)
// marks, rings and runs nothing. notify_command has $MELMUX_ATTENTION.
func TestAttentionKinds(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "notified")
	s, c := startServer(t, func(cfg *Config) {
		cfg.Agents = AgentsConfig{Bell: true, OSC9: true, NotifyCommand: `echo "$MELMUX_PANE $MELMUX_ATTENTION $MELMUX_AGENT_STATE" >> ` + out}
	})
	viewer := &client{tty: newConnTty(nil, &sync.Mutex{}, 100, 30), quit: make(chan string, 1)}
	newPane(t, c, "sleep", "600") // pane 1, tab 0: where the person looks
	open := func(argv ...string) {
		t.Helper()
		call(t, c, "open_pane", proto.OpenPaneParams{Layout: "tab", Argv: argv, NoWait: true}, nil)
	}
	open("sleep", "600")                         // 2: codex, by its hooks
	open("sleep", "600")                         // 3: a melmux agent
	open("sh", "-c", "read x; exit 3")           // 4: fails
	open("sh", "-c", "read x; echo built; exit") // 5: ends well
	s.withLock(func() { _ = s.layout.Focus(1) })
	attachViewer(t, s, viewer)
	marks(s, viewer) // the person sees tab 0

	// A question needs you.
	notify(t, c, proto.NotifyParams{Pane: 2, State: "working", Kind: "codex"})
	notify(t, c, proto.NotifyParams{Pane: 2, State: "waiting", Message: "approve make", Kind: "codex"})
	call(t, c, "wait", proto.WaitParams{Pane: 2, State: "waiting", TimeoutMS: 10000}, nil)
	if n, want := notesOf(viewer), "\a\x1b]9;melmux: codex in pane 2 is waiting on you: approve make\x1b\\"; n != want {
		t.Errorf("a question: notes %q, want %q", n, want)
	}
	waitMarks(t, s, "", "!", "", "", "")

	// A melmux agent registering is ready for its first message: nothing.
	a := registerAgent(t, s, 3, "worker", "")
	call(t, c, "wait", proto.WaitParams{Pane: 3, State: "waiting", TimeoutMS: 10000}, nil)
	// Its finished turn is done; its failed turn needs you.
	send(t, c, 3, "build it", "")
	m := a.next()
	a.report("working", m.Turn, "", 1)
	a.report("idle", m.Turn, "It is built.", 1)
	a.report("idle", m.Turn, "", 1) // resting after the turn: no news
	if n, want := notesOf(viewer), "\a\x1b]9;melmux: melmux in pane 3 finished its turn: It is built.\x1b\\"; n != want {
		t.Errorf("a melmux agent registered and finished a turn: notes %q, want %q", n, want)
	}
	waitMarks(t, s, "", "!", "+", "", "")

	// A program failing needs you; one ending with exit code 0 is done.
	call(t, c, "send_keys", proto.SendKeysParams{Pane: 4, Text: "x\n", NoWait: true}, nil)
	waitMarks(t, s, "", "!", "+", "!", "")
	if n, want := notesOf(viewer), "\a\x1b]9;melmux: pane 4 (sh -c read x; exit 3) needs you: it exited (exit code 3)\x1b\\"; n != want {
		t.Errorf("a failure: notes %q, want %q", n, want)
	}
	call(t, c, "send_keys", proto.SendKeysParams{Pane: 5, Text: "x\n", NoWait: true}, nil)
	waitMarks(t, s, "", "!", "+", "!", "+")
	if n, want := notesOf(viewer), "\a\x1b]9;melmux: pane 5 (sh -c read x; echo built; exit) is done: it exited (exit code 0)\x1b\\"; n != want {
		t.Errorf("an end: notes %q, want %q", n, want)
	}

	// The question answered (by anyone): nobody is needed there any more;
	// its turn finished is done.
	notify(t, c, proto.NotifyParams{Pane: 2, State: "working", Kind: "codex"})
	waitMarks(t, s, "", "", "+", "!", "+")
	notify(t, c, proto.NotifyParams{Pane: 2, State: "idle", Message: "Made.", Kind: "codex"})
	waitMarks(t, s, "", "+", "+", "!", "+")

	// The commands ran with what kind of change each was.
	want := []string{"2 done idle", "2 needs-you waiting", "3 done idle", "4 needs-you exited", "5 done exited"} // sorted
	for deadline := time.Now().Add(15 * time.Second); ; {
		raw, _ := os.ReadFile(out)
		lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
		slices.Sort(lines)
		if slices.Equal(lines, want) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("notify_command wrote %q, want %q", lines, want)
		}
		time.Sleep(20 * time.Millisecond) // a command runs on its own; its file is all there is to watch
	}
}

// Nothing is told of the pane the person looks at (the focused pane while a
// client is attached); visiting a pane, or the tab it is in, clears its
// mark.
func TestAttentionForWhatThePersonLooksAt(t *testing.T) {
	t.Parallel()
	s, c := startServer(t, func(cfg *Config) { cfg.Agents = AgentsConfig{Bell: true, OSC9: true} })
	viewer := &client{tty: newConnTty(nil, &sync.Mutex{}, 100, 30), quit: make(chan string, 1)}
	newPane(t, c, "sleep", "600")                                                                                                // 1, tab 0
	call(t, c, "open_pane", proto.OpenPaneParams{Layout: "right", Target: 1, Argv: []string{"sleep", "600"}, NoWait: true}, nil) // 2, tab 0
	call(t, c, "open_pane", proto.OpenPaneParams{Layout: "tab", Argv: []string{"sleep", "600"}, NoWait: true}, nil)              // 3, tab 1
	s.withLock(func() { _ = s.layout.Focus(1) })
	attachViewer(t, s, viewer)
	marks(s, viewer)
	ask := func(pane int) {
		t.Helper()
		notify(t, c, proto.NotifyParams{Pane: pane, State: "working", Kind: "claude"})
		notify(t, c, proto.NotifyParams{Pane: pane, State: "waiting", Message: "approve", Kind: "claude"})
		call(t, c, "wait", proto.WaitParams{Pane: pane, State: "waiting", TimeoutMS: 10000}, nil)
	}
	// The focused pane asks: the person sees it; no bell, no mark.
	ask(1)
	if n := notesOf(viewer); n != "" {
		t.Errorf("the focused pane's question rang: %q", n)
	}
	waitMarks(t, s, "", "")
	// The pane beside it and the one in the other tab: told and marked.
	ask(2)
	ask(3)
	if n := notesOf(viewer); strings.Count(n, "\a") != 2 {
		t.Errorf("two questions elsewhere: notes %q", n)
	}
	waitMarks(t, s, "!", "!")
	// Frames of tab 0 as it was keep pane 2's mark until it is focused.
	if m := marks(s, viewer); !slices.Equal(m, []string{"!", "!"}) {
		t.Errorf("before any visit: %q", m)
	}
	s.withLock(func() { _ = s.layout.Focus(2) })
	if m := marks(s, viewer); !slices.Equal(m, []string{"", "!"}) {
		t.Errorf("pane 2 focused: %q, want tab 0's mark gone", m)
	}
	// Visiting tab 1 clears its mark.
	s.withLock(func() { _ = s.layout.SelectTab(1) })
	if m := marks(s, viewer); !slices.Equal(m, []string{"", ""}) {
		t.Errorf("tab 1 visited: %q, want no mark", m)
	}
	// With no client attached, the focused pane is nobody's to look at.
	s.clients.leave(viewer)
	notify(t, c, proto.NotifyParams{Pane: 3, State: "idle", Message: "done", Kind: "claude"})
	waitMarks(t, s, "", "+")
}

// A restore notifies nobody: the states its panes come back in — a
// question still on an agent's screen, a program failing at once, an
// agent resumed by the line restore types into a shell — are where the
// restored session starts, not news. Input typed into a pane afterwards
// makes its changes news again. (Six notifications fired within a second
// of a restore, and every tab had its `!`.)
func TestRestoreNotifiesNobody(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "t.json")
	dir, bin := t.TempDir(), t.TempDir()
	// A Claude Code stand-in: it asks, works on the answer until told to
	// go on, and asks again.
	claude := filepath.Join(bin, "claude")
	script := "#!/bin/sh\nwhile :; do\n" +
		"\tprintf '\\033[2J\\033[HDo you want to proceed?\\n1. Yes\\n2. No\\nEsc to cancel\\n'; read answer\n" +
		"\tprintf '\\033[2J\\033[H* Working (esc to interrupt)\\n'; read go\ndone\n"
	testexec.Write(t, claude, []byte(script))
	writeState(t, file, &sessionstate.State{Version: sessionstate.Version, Saved: time.Now(), Cols: 100, Rows: 30,
		Layout: `active=0; tab "" focus=1 right(0.5 1 2); tab "" focus=3 3; tab "" focus=4 4`,
		Panes: []sessionstate.Pane{
			{ID: 1, Argv: []string{"sleep", "600"}, Cwd: dir},
			{ID: 2, Argv: []string{claude}, Cwd: dir},                               // asks as it comes back
			{ID: 3, Argv: []string{"sh", "-c", "exit 3"}, Cwd: dir},                 // fails at once
			{ID: 4, Argv: []string{"sh"}, Foreground: []string{"claude"}, Cwd: dir}, // resumed by a typed line
		}})
	out := filepath.Join(t.TempDir(), "notified")
	s, c := startServer(t, withState(file), func(cfg *Config) {
		cfg.Agents = AgentsConfig{Bell: true, OSC9: true, NotifyCommand: `echo "$MELMUX_PANE $MELMUX_ATTENTION" >> ` + out}
	})
	viewer := &client{tty: newConnTty(nil, &sync.Mutex{}, 100, 30), quit: make(chan string, 1)}
	attachViewer(t, s, viewer)
	env := append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "PS1=$ ")
	var res proto.RestoreResult
	call(t, c, "restore", proto.RestoreParams{Env: env}, &res)
	if len(res.Panes) != 4 || !strings.Contains(res.Panes[3].How, "in the shell") {
		t.Fatalf("restored: %+v", res.Panes)
	}
	call(t, c, "wait", proto.WaitParams{Pane: 2, State: "waiting", TimeoutMS: 20000}, nil)
	call(t, c, "wait", proto.WaitParams{Pane: 3, Exit: true, TimeoutMS: 20000}, nil)
	call(t, c, "wait", proto.WaitParams{Pane: 4, State: "waiting", ForAgent: true, TimeoutMS: 20000}, nil)
	if n := notesOf(viewer); n != "" {
		t.Errorf("the restore rang: %q", n)
	}
	waitMarks(t, s, "", "", "")
	if raw, _ := os.ReadFile(out); len(raw) > 0 {
		t.Errorf("notify_command ran for the restore: %q", raw)
	}
	// Answered and asked again: news.
	call(t, c, "send_keys", proto.SendKeysParams{Pane: 2, Text: "1\n", NoWait: true}, nil)
	call(t, c, "wait", proto.WaitParams{Pane: 2, State: "working", TimeoutMS: 20000}, nil)
	call(t, c, "send_keys", proto.SendKeysParams{Pane: 2, Text: "\n", NoWait: true}, nil)
	call(t, c, "wait", proto.WaitParams{Pane: 2, State: "waiting", TimeoutMS: 20000}, nil)
	waitMarks(t, s, "!", "", "")
	if n := notesOf(viewer); !strings.Contains(n, "melmux: claude in pane 2 is waiting on you") {
		t.Errorf("a question after the person's answer: notes %q", n)
	}
}

// Ending the session tells nothing: the panes it closes are not told as
// exited (killed by SIGHUP), by the clients or by notify_command. Before,
// every pane the person did not look at ran notify_command as the session
// went, and one writing into a test's directory while it was removed
// failed the test.
func TestASessionEndingTellsNothing(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "notified")
	s, c := startServer(t, func(cfg *Config) {
		cfg.Agents = AgentsConfig{Bell: true, OSC9: true, NotifyCommand: `echo "$MELMUX_PANE $MELMUX_AGENT_STATE" >> ` + out}
	})
	newPane(t, c, "sleep", "600")
	call(t, c, "open_pane", proto.OpenPaneParams{Layout: "tab", Argv: []string{"sh", "-c", "read x; exit 3"}, NoWait: true}, nil)
	lookElsewhere(t, s, c)
	s.Shutdown("test over")
	<-s.done
	for deadline := time.Now().Add(30 * time.Second); len(s.notifySlots) > 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond) // a command's end has no channel to wait on
	}
	if raw, err := os.ReadFile(out); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("notify_command ran as the session ended: %q (%v)", raw, err)
	}
}
