package ui

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/melmux/melmux/pane/term"
)

// typed types text into whatever has the keyboard, one key a rune.
func typed(t *testing.T, in *Input, sc *Scene, text string) []Action {
	t.Helper()
	var keys []string
	for _, r := range text {
		if r == ' ' {
			keys = append(keys, "Space")
		} else {
			keys = append(keys, string(r))
		}
	}
	return press(t, in, sc, keys...)
}

// promptLine is the prompt's text with a "|" at the cursor, or "closed".
func promptLine(in *Input) string {
	if in.prompt == nil {
		return "closed"
	}
	v := in.prompt.view()
	r := []rune(v.Text)
	return string(r[:v.Cursor]) + "|" + string(r[v.Cursor:])
}

func TestPromptHistory(t *testing.T) {
	sc := oneScene(term.Modes{})
	var hist History
	a, b := newIn(t, "", nil), newIn(t, "", nil)
	a.SetPromptSupport(PromptSupport{History: &hist})
	b.SetPromptSupport(PromptSupport{History: &hist})
	for _, line := range []string{"list-panes", "read-pane -t 1", "read-pane -t 1", "'bad"} {
		press(t, a, sc, "C-b", ":")
		typed(t, a, sc, line)
		press(t, a, sc, "Enter")
	}
	press(t, a, sc, "C-b", ":", "Enter") // an empty line is not kept
	want := []string{"list-panes", "read-pane -t 1", "'bad"}
	if got := hist.Lines(); !reflect.DeepEqual(got, want) {
		t.Fatalf("history %q, want %q (a repeat and an empty line are not kept, a bad line is)", got, want)
	}
	// Another client of the same server recalls them: Up goes back, Down
	// forward, and past the newest is what was being typed.
	press(t, b, sc, "C-b", ":")
	typed(t, b, sc, "wa")
	for _, step := range []struct{ key, want string }{
		{"Up", "'bad|"}, {"Up", "read-pane -t 1|"}, {"C-p", "list-panes|"}, {"Up", "list-panes|"},
		{"Down", "read-pane -t 1|"}, {"C-n", "'bad|"}, {"Down", "wa|"}, {"Down", "wa|"},
	} {
		press(t, b, sc, step.key)
		if got := promptLine(b); got != step.want {
			t.Fatalf("after %s: %q, want %q", step.key, got, step.want)
		}
	}
	// A recalled line is edited and run like a typed one.
	press(t, b, sc, "Up", "Up", "BSpace")
	typed(t, b, sc, "2")
	if got := press(t, b, sc, "Enter"); !reflect.DeepEqual(got, []Action{RunLine{Line: "read-pane -t 2", Args: []string{"read-pane", "-t", "2"}}}) {
		t.Errorf("recalled and edited: %#v", got)
	}
	// Search prompts in copy mode have no history.
	sc2, src := copyScene()
	EnterCopy{Pane: 3}.Start(b, src, 20, 4, 0, 0)
	press(t, b, sc2, "/", "Up")
	if got := promptLine(b); got != "|" {
		t.Errorf("Up in a search prompt: %q", got)
	}
	// The history keeps the last historyLimit lines.
	var long History
	for i := range historyLimit + 5 {
		long.Add(fmt.Sprint("line ", i))
	}
	if l := long.Lines(); len(l) != historyLimit || l[0] != "line 5" {
		t.Errorf("history of %d lines starting %q", len(l), l[0])
	}
	// No history given: Up does nothing.
	c := newIn(t, "", nil)
	press(t, c, sc, "C-b", ":", "x", "Up")
	if got := promptLine(c); got != "x|" {
		t.Errorf("Up with no history: %q", got)
	}
}

func TestPromptCompletion(t *testing.T) {
	sc := oneScene(term.Modes{})
	in := newIn(t, "", nil)
	in.SetPromptSupport(PromptSupport{
		Verbs: []string{"kill-pane", "list-panes", "ls", "read-agent", "read-pane", "send-keys"},
		Panes: func() []Choice { return []Choice{{"1", "bash"}, {"2", "vim"}, {"12", "claude"}} },
	})
	choices := func() ([]string, int) {
		sc := oneScene(term.Modes{})
		in.Decorate(sc)
		return sc.Prompt.Choices, sc.Prompt.Choice
	}
	press(t, in, sc, "C-b", ":")
	typed(t, in, sc, "se")
	press(t, in, sc, "Tab")
	if got := promptLine(in); got != "send-keys |" {
		t.Errorf("one choice: %q", got)
	}
	press(t, in, sc, "C-u")
	typed(t, in, sc, "re")
	press(t, in, sc, "Tab") // what both choices share, and the list
	if got := promptLine(in); got != "read-|" {
		t.Errorf("shared part: %q", got)
	}
	if list, at := choices(); !reflect.DeepEqual(list, []string{"read-agent", "read-pane"}) || at != -1 {
		t.Errorf("listed %q at %d", list, at)
	}
	press(t, in, sc, "Tab")
	if got := promptLine(in); got != "read-agent|" {
		t.Errorf("first Tab through the list: %q", got)
	}
	if _, at := choices(); at != 0 {
		t.Errorf("choice %d, want 0", at)
	}
	press(t, in, sc, "Tab", "Tab")
	if got := promptLine(in); got != "read-agent|" {
		t.Errorf("Tab wraps around: %q", got)
	}
	press(t, in, sc, "BTab")
	if got := promptLine(in); got != "read-pane|" {
		t.Errorf("BTab: %q", got)
	}
	typed(t, in, sc, " -t ") // any other key ends the list
	if list, _ := choices(); list != nil {
		t.Errorf("list still shown after typing: %q", list)
	}
	press(t, in, sc, "Tab")
	if list, _ := choices(); !reflect.DeepEqual(list, []string{"1:bash", "2:vim", "12:claude"}) {
		t.Errorf("panes listed %q", list)
	}
	typed(t, in, sc, "1")
	press(t, in, sc, "BTab") // "1" and "12" share only "1": the list shows
	if got := promptLine(in); got != "read-pane -t 1|" {
		t.Errorf("BTab with nothing shared: %q", got)
	}
	press(t, in, sc, "BTab")
	if got := promptLine(in); got != "read-pane -t 12|" {
		t.Errorf("BTab from the list's start goes to its end: %q", got)
	}
	// Completing in the middle of the line keeps what follows the cursor.
	press(t, in, sc, "C-u")
	typed(t, in, sc, "rea -t 2")
	press(t, in, sc, "Home", "Right", "Right", "Right", "Tab")
	if got := promptLine(in); got != "read-| -t 2" {
		t.Errorf("middle of the line: %q", got)
	}
	// Nothing to complete: flags, other words, unknown prefixes.
	for _, line := range []string{"read-pane --li", "read-pane -t 1 x", "zzz"} {
		press(t, in, sc, "End", "C-u")
		typed(t, in, sc, line)
		press(t, in, sc, "Tab")
		if got := promptLine(in); got != line+"|" {
			t.Errorf("Tab after %q: %q", line, got)
		}
	}
	// A search prompt takes Tab as nothing.
	sc2, src := copyScene()
	press(t, in, sc, "Escape")
	EnterCopy{Pane: 3}.Start(in, src, 20, 4, 0, 0)
	press(t, in, sc2, "/", "l", "Tab")
	if got := promptLine(in); got != "l|" {
		t.Errorf("Tab in a search prompt: %q", got)
	}
}

func TestShowOutput(t *testing.T) {
	sc := oneScene(term.Modes{}) // pane 7: 40x10 content
	in := newIn(t, "", nil)
	var lines []string
	for i := range 30 {
		lines = append(lines, fmt.Sprintf("out %d", i))
	}
	if !in.ShowOutput(strings.Join(lines, "\n")+"\n", sc) {
		t.Fatal("no pane to show it in")
	}
	top := func() int { return in.copy.Top() }
	if pane, on := in.CopyPane(); !on || pane != 7 || top() != 0 || in.copy.Cursor() != (Point{}) {
		t.Fatalf("view on pane %d (%v) top %d cursor %v", pane, on, top(), in.copy.Cursor())
	}
	// The arrows scroll at once, the cursor staying on its row.
	press(t, in, sc, "Down", "Down", "j")
	if top() != 3 || in.copy.Cursor() != (Point{0, 3}) {
		t.Errorf("after three lines down: top %d cursor %v", top(), in.copy.Cursor())
	}
	press(t, in, sc, "Up", "k")
	if top() != 1 {
		t.Errorf("after two up: top %d", top())
	}
	press(t, in, sc, "PgDn", "PgDn")
	if top() != 20 {
		t.Errorf("paged to the end: top %d", top())
	}
	// At the end the cursor moves on down.
	y := in.copy.Cursor().Y
	press(t, in, sc, "Down")
	if top() != 20 || in.copy.Cursor().Y != y+1 {
		t.Errorf("Down at the end: top %d cursor %v", top(), in.copy.Cursor())
	}
	// Search and the rest of copy mode work on it.
	press(t, in, sc, "g", "/")
	typed(t, in, sc, "out 25")
	press(t, in, sc, "Enter")
	if in.copy.Cursor() != (Point{0, 25}) {
		t.Errorf("search in the view: cursor %v", in.copy.Cursor())
	}
	if got := press(t, in, sc, "q"); !reflect.DeepEqual(got, []Action{ExitCopy{Pane: 7}}) {
		t.Errorf("q: %#v", got)
	}
	in.ShowOutput("a\nb", sc)
	if got := press(t, in, sc, "Escape"); !reflect.DeepEqual(got, []Action{ExitCopy{Pane: 7}}) {
		t.Errorf("Escape: %#v", got)
	}
	if in.ShowOutput("x\ny", &Scene{}) || in.ShowOutput("x", nil) {
		t.Error("shown with no focused pane")
	}
}

func TestTextRows(t *testing.T) {
	row := func(r []term.Cell) string { text, _ := rowText(r, 0, len(r)); return text }
	rows := textRows("ab\tc\n日本語x\n\x1b[1mbold\r\ne\u0301\n\n", 5)
	var got []string
	for _, r := range rows {
		got = append(got, row(r))
	}
	want := []string{"ab   ", "c", "日本", "語x", "[1mbo", "ld", "e\u0301", ""}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows %q, want %q", got, want)
	}
	many := textRows(strings.Repeat("x\n", maxViewRows+10), 20)
	if len(many) != maxViewRows || !strings.HasPrefix(row(many[maxViewRows-1]), "… 11 more lines") {
		t.Errorf("%d rows, last %q", len(many), row(many[len(many)-1]))
	}
}

// TestDrawOutputViewAndChoices: golden screens of a verb's output shown in
// the focused pane (scrolled one line, with its position), and of Tab's
// choices listed above the prompt, the one in the line reversed, the list
// starting late enough to show it.
func TestDrawOutputViewAndChoices(t *testing.T) {
	left, right := Rect{0, 0, 20, H - 1}, Rect{21, 0, 19, H - 1}
	sc := scene(nil, pane(1, left, false, "bash", "left"), pane(2, right, true, "vim", "right"))
	sc.Separators = []Rect{{20, 0, 1, H - 1}}
	in := newIn(t, "", nil)
	out := "ID  COMMAND  SIZE   STATE\n1   bash     20x10  idle\n2   vim      19x10  idle\n"
	for i := 3; i <= 12; i++ {
		out += fmt.Sprintf("line %d\n", i)
	}
	in.ShowOutput(out, sc)
	press(t, in, sc, "Down")
	in.Decorate(sc)
	s := newSim(t, W, H)
	Draw(s, sc)
	golden(t, "output_view", dump(s, false))

	in = newIn(t, "", nil)
	in.SetPromptSupport(PromptSupport{Verbs: []string{"kill-pane", "kill-server", "list-panes", "ls", "open-pane", "read-agent", "read-pane", "resize"}})
	sc = scene(nil, pane(1, Rect{0, 0, W, H - 1}, true, "bash"))
	press(t, in, sc, "C-b", ":", "Tab", "Tab", "BTab", "BTab", "BTab")
	in.Decorate(sc)
	Draw(s, sc)
	golden(t, "prompt_choices", dump(s, true))
}
