package ui

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
)

// sampleAgents are the rows the server hands the agents view: a Claude Code
// asking a question (first: it waits on the person), a Codex at work in a
// worktree, a Mel worker with a cost, a Gemini CLI that exited.
func sampleAgents() []AgentRow {
	return []AgentRow{
		{Pane: 4, Tab: 1, Name: "claude", State: "waiting", For: 75 * time.Second, NeedsYou: true,
			Question: "Do you want to proceed?", Wants: "Bash go test ./...",
			Options: []AgentOption{{Key: "1", Label: "Yes"}, {Key: "2", Label: "No, and tell Claude what to do differently (esc)"}}},
		{Pane: 2, Tab: 0, Name: "codex", State: "working", For: 12 * time.Second, Branch: "melmux/fix-login",
			Diff: &DiffCount{Added: 12, Deleted: 3}},
		{Pane: 3, Tab: 0, Name: "mel worker", State: "idle", For: 2*time.Hour + 7*time.Minute, Cost: "0.0123", Focused: true},
		{Pane: 5, Tab: 2, Name: "gemini", State: "exited", For: 3 * time.Second},
	}
}

// agentsScene is a frame of a client of 100x14 with the agents view open
// over its one pane, as the server fills it.
func agentsScene(rows []AgentRow) *Scene {
	sc := scene(nil, pane(3, Rect{0, 0, 100, 13}, true, "bash", "$ "))
	sc.Cols, sc.Rows = 100, 14
	sc.Agents = &AgentsView{Rows: rows}
	return sc
}

// TestAgentsViewGolden: C-b a opens the view over the panes: the table of
// agents (the first selected, the waiting one's state in the attention
// colour, a worktree's +A −D in green and red), the selected agent's
// question with its keys at the bottom, the cursor hidden. Another key
// selects the next agent, whose lack of a question leaves the bottom empty.
func TestAgentsViewGolden(t *testing.T) {
	in := newIn(t, "", nil)
	sc := agentsScene(sampleAgents())
	if acts := press(t, in, sc, "C-b", "a"); len(acts) != 0 || !in.AgentsOpen() {
		t.Fatalf("C-b a should open the agents view, with nothing for the server to do: %v (open %v)", acts, in.AgentsOpen())
	}
	in.Decorate(sc)
	s := newSim(t, 100, 14)
	var p Painter
	p.Draw(s, sc)
	// The status line is not the view's: blanked, so that its look can
	// change without this golden screen.
	for x := 0; x < 100; x++ {
		s.SetContent(x, 13, ' ', nil, tcell.StyleDefault)
	}
	golden(t, "agents_view", dump(s, true))

	press(t, in, sc, "Down")
	sc = agentsScene(sampleAgents())
	in.Decorate(sc)
	p.Draw(s, sc)
	got := dump(s, false)
	lines := strings.Split(got, "\n")
	if !strings.Contains(lines[3], "codex") || strings.Contains(got, "asks:") {
		t.Errorf("Down should select codex, which asks nothing:\n%s", got)
	}
}

// An agents view with no agent says so; one too short for every agent
// scrolls to keep the selected one in view.
func TestAgentsViewEmptyAndScrolled(t *testing.T) {
	in := newIn(t, "", nil)
	sc := agentsScene(nil)
	press(t, in, sc, "C-b", "a")
	in.Decorate(sc)
	s := newSim(t, 100, 14)
	Draw(s, sc)
	if got := dump(s, false); !strings.Contains(got, "No agent runs in this session") {
		t.Errorf("an empty view should say there is no agent:\n%s", got)
	}

	var many []AgentRow
	for i := 1; i <= 20; i++ {
		many = append(many, AgentRow{Pane: i, Name: "claude", State: "idle"})
	}
	sc = agentsScene(many)
	press(t, in, sc, "G")
	sc = agentsScene(many)
	in.Decorate(sc)
	Draw(s, sc)
	got := dump(s, false)
	if sc.Agents.Selected != 19 || !strings.Contains(got, " 20  ") {
		t.Errorf("G should select the last agent (20), in view:\n%s", got)
	}
}

// Keys in the view: the arrows and j k move the selection, an option's key
// answers the selected agent's question through AnswerQuestion (its
// question's text with it), a key that is no option says what the options
// are, Enter goes to the selected agent and closes the view, q and Escape
// close it, C-b a toggles it, C-b A (next-waiting) closes it and asks the
// server, and a paste goes nowhere while it is open.
func TestAgentsViewKeys(t *testing.T) {
	in := newIn(t, "", nil)
	sc := agentsScene(sampleAgents())
	frame := func() {
		sc = agentsScene(sampleAgents())
		in.Decorate(sc)
	}
	press(t, in, sc, "C-b", "a")
	frame()
	if acts := press(t, in, sc, "1"); !reflect.DeepEqual(acts, []Action{AnswerQuestion{Pane: 4, Question: "Do you want to proceed?", Choice: "1"}}) {
		t.Fatalf("1 should answer pane 4's question with option 1: %#v", acts)
	}
	if acts := press(t, in, sc, "7"); len(acts) != 0 || !strings.Contains(in.msg, "its options are 1 Yes, 2 No") {
		t.Fatalf("7 answers nothing: %v, %q", acts, in.msg)
	}
	if acts := in.Paste("1", sc); len(acts) != 0 {
		t.Fatalf("a paste into the open view went to a pane: %v", acts)
	}
	press(t, in, sc, "j")
	frame()
	if sc.Agents.Selected != 1 {
		t.Fatalf("j should select the second agent, selected %d", sc.Agents.Selected)
	}
	if acts := press(t, in, sc, "1"); len(acts) != 0 || in.msg != "pane 2 asks nothing" {
		t.Fatalf("codex asks nothing: %v, %q", acts, in.msg)
	}
	press(t, in, sc, "Down", "Down", "Down", "Up")
	frame()
	if sc.Agents.Selected != 2 {
		t.Fatalf("Down past the end stays on the last; Up goes back: selected %d", sc.Agents.Selected)
	}
	// The rows move (pane 3 comes first): the selection follows pane 3.
	rows := sampleAgents()
	rows[0], rows[2] = rows[2], rows[0]
	sc = agentsScene(rows)
	in.Decorate(sc)
	if sc.Agents.Selected != 0 {
		t.Fatalf("the selection should follow pane 3 to the first row, selected %d", sc.Agents.Selected)
	}
	if acts := press(t, in, sc, "Enter"); !reflect.DeepEqual(acts, []Action{FocusPane{Pane: 3}}) || in.AgentsOpen() {
		t.Fatalf("Enter should go to pane 3 and close the view: %v (open %v)", acts, in.AgentsOpen())
	}

	for _, keys := range [][]string{{"q"}, {"Esc"}, {"C-b", "a"}} {
		press(t, in, sc, "C-b", "a")
		frame()
		press(t, in, sc, keys...)
		if in.AgentsOpen() {
			t.Errorf("%v should close the view", keys)
		}
	}
	press(t, in, sc, "C-b", "a")
	if acts := press(t, in, sc, "C-b", "A"); len(acts) != 1 || acts[0].(Command).Name != "next-waiting" || in.AgentsOpen() {
		t.Fatalf("C-b A should ask the server for next-waiting and close the view: %v (open %v)", acts, in.AgentsOpen())
	}
	// From anywhere: C-b A with the view closed.
	if acts := press(t, in, sc, "C-b", "A"); len(acts) != 1 || acts[0].(Command).Name != "next-waiting" {
		t.Fatalf("C-b A with the view closed: %v", acts)
	}
}

// The help lists both keys; the config may bind them elsewhere.
func TestAgentsBindings(t *testing.T) {
	in := newIn(t, "", map[string]string{"W": "agents", "a": "none"})
	var help []string
	for _, b := range in.Bindings() {
		help = append(help, b.Keys+" "+b.Command)
	}
	all := strings.Join(help, "\n")
	if !strings.Contains(all, "C-b A next-waiting") || !strings.Contains(all, "C-b W agents") || strings.Contains(all, "C-b a agents") {
		t.Errorf("help:\n%s", all)
	}
}

func TestAgeText(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0s", 42 * time.Second: "42s", 185 * time.Second: "3m05s",
		2*time.Hour + 7*time.Minute + 30*time.Second: "2h07m", -time.Second: "0s",
	} {
		if got := AgeText(d); got != want {
			t.Errorf("AgeText(%v) = %q, want %q", d, got, want)
		}
	}
}
