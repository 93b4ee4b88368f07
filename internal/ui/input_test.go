package ui

import (
	"reflect"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/melmux/melmux/pane/term"
)

// key makes a tcell event for a key in ParseKey notation.
func key(t *testing.T, s string) *tcell.EventKey {
	t.Helper()
	k, err := ParseKey(s)
	if err != nil {
		t.Fatal(err)
	}
	return tcell.NewEventKey(k.Key, k.Rune, k.Mod)
}

func newIn(t *testing.T, prefix string, b map[string]string) *Input {
	t.Helper()
	in, err := NewInput(prefix, b)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// press feeds keys and returns the actions, dropping Redraw.
func press(t *testing.T, in *Input, sc *Scene, keys ...string) []Action {
	t.Helper()
	var out []Action
	for _, k := range keys {
		for _, a := range in.Key(key(t, k), sc) {
			if _, ok := a.(Redraw); !ok {
				out = append(out, a)
			}
		}
	}
	return out
}

func oneScene(modes term.Modes) *Scene {
	sc := scene(nil, pane(7, Rect{0, 0, W, H - 1}, true, "bash", "$ "))
	sc.Panes[0].Screen.Modes = modes
	return sc
}

func TestPrefixBindings(t *testing.T) {
	sc := oneScene(term.Modes{})
	cmd := func(name string, args ...string) []Action {
		return []Action{Command{Name: name, Args: args, Pane: 7}}
	}
	for _, tc := range []struct {
		keys []string
		want []Action
	}{
		{[]string{"C-b", "%"}, cmd("split-right")},
		{[]string{"C-b", `"`}, cmd("split-down")},
		{[]string{"C-b", "c"}, cmd("new-tab")},
		{[]string{"C-b", "n"}, cmd("next-tab")},
		{[]string{"C-b", "p"}, cmd("prev-tab")},
		{[]string{"C-b", "0"}, cmd("select-tab", "0")},
		{[]string{"C-b", "9"}, cmd("select-tab", "9")},
		{[]string{"C-b", "Left"}, cmd("focus", "left")},
		{[]string{"C-b", "Down"}, cmd("focus", "down")},
		{[]string{"C-b", "h"}, cmd("focus", "left")},
		{[]string{"C-b", "j"}, cmd("focus", "down")},
		{[]string{"C-b", "k"}, cmd("focus", "up")},
		{[]string{"C-b", "l"}, cmd("focus", "right")},
		{[]string{"C-b", "z"}, cmd("zoom")},
		{[]string{"C-b", "d"}, cmd("detach")},
		{[]string{"C-b", "]"}, cmd("paste-buffer")},
		{[]string{"C-b", "["}, []Action{EnterCopy{Pane: 7}}},
		{[]string{"C-b", "C-b"}, []Action{SendBytes{Pane: 7, Bytes: []byte{2}}}},
		{[]string{"C-b", "x", "y"}, cmd("kill-pane")},
		{[]string{"C-b", "x", "n"}, nil},
		{[]string{"C-b", "x", "Escape"}, nil},
		{[]string{"C-b", "Q"}, nil},                                                   // unbound: swallowed
		{[]string{"C-b", "Q", "a"}, []Action{SendBytes{Pane: 7, Bytes: []byte("a")}}}, // and the prefix is over
		{[]string{"a"}, []Action{SendBytes{Pane: 7, Bytes: []byte("a")}}},
		{[]string{"C-b", "?", "x", "a"}, []Action{SendBytes{Pane: 7, Bytes: []byte("a")}}}, // help closes on any key
		{[]string{"C-b", ":", "l", "s", "Enter"}, []Action{RunLine{Line: "ls", Args: []string{"ls"}}}},
	} {
		in := newIn(t, "", nil)
		got := press(t, in, sc, tc.keys...)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%v: got %#v, want %#v", tc.keys, got, tc.want)
		}
		if in.prefix || in.prompt != nil || in.help {
			t.Errorf("%v: state left behind (prefix %v prompt %v help %v)", tc.keys, in.prefix, in.prompt != nil, in.help)
		}
	}
}

func TestPrefixIndicatorAndHelpState(t *testing.T) {
	sc := oneScene(term.Modes{})
	in := newIn(t, "", nil)
	press(t, in, sc, "C-b")
	in.Decorate(sc)
	if !sc.PrefixActive {
		t.Error("prefix pressed but PrefixActive is false")
	}
	press(t, in, sc, "?")
	sc = oneScene(term.Modes{})
	in.Decorate(sc)
	if !sc.Help || len(sc.Bindings) == 0 || sc.PrefixActive {
		t.Errorf("help: Help %v, %d bindings, prefix %v", sc.Help, len(sc.Bindings), sc.PrefixActive)
	}
}

func TestConfiguredPrefixAndBindings(t *testing.T) {
	sc := oneScene(term.Modes{})
	in := newIn(t, "C-a", map[string]string{"|": "split-right", "%": "none", "a": "run open-pane --title 'my pane'"})
	for _, tc := range []struct {
		keys []string
		want []Action
	}{
		{[]string{"C-a", "|"}, []Action{Command{Name: "split-right", Pane: 7}}},
		{[]string{"C-a", "%"}, nil},
		{[]string{"C-a", "C-a"}, []Action{SendBytes{Pane: 7, Bytes: []byte{1}}}},
		{[]string{"C-b"}, []Action{SendBytes{Pane: 7, Bytes: []byte{2}}}}, // no longer the prefix
		{[]string{"C-a", "a"}, []Action{RunLine{Line: "open-pane --title 'my pane'", Args: []string{"open-pane", "--title", "my pane"}}}},
	} {
		if got := press(t, in, sc, tc.keys...); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%v: got %#v, want %#v", tc.keys, got, tc.want)
		}
	}
	if _, err := NewInput("C-", nil); err == nil {
		t.Error("bad prefix accepted")
	}
	if _, err := NewInput("", map[string]string{"x": "explode"}); err == nil {
		t.Error("unknown command accepted")
	}
	if _, err := NewInput("", map[string]string{"Nope-x": "zoom"}); err == nil {
		t.Error("bad key accepted")
	}
}

func TestKeysFollowPaneModes(t *testing.T) {
	in := newIn(t, "", nil)
	for _, tc := range []struct {
		m    term.Modes
		key  string
		want string
	}{
		{term.Modes{}, "Up", "\x1b[A"},
		{term.Modes{AppCursor: true}, "Up", "\x1bOA"},
		{term.Modes{}, "M-x", "\x1bx"},
	} {
		got := press(t, in, oneScene(tc.m), tc.key)
		want := []Action{SendBytes{Pane: 7, Bytes: []byte(tc.want)}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s with %+v: got %#v, want %#v", tc.key, tc.m, got, want)
		}
	}
	// An exited pane takes no keys, but commands still reach it.
	sc := oneScene(term.Modes{})
	sc.Panes[0].Exited = true
	if got := press(t, in, sc, "a"); got != nil {
		t.Errorf("exited pane: got %#v", got)
	}
	if got := press(t, in, sc, "C-b", "x", "y"); !reflect.DeepEqual(got, []Action{Command{Name: "kill-pane", Pane: 7}}) {
		t.Errorf("kill an exited pane: got %#v", got)
	}
	// No focused pane: keys go nowhere.
	if got := in.Key(key(t, "a"), &Scene{}); got != nil {
		t.Errorf("no pane: got %#v", got)
	}
}

func TestPromptEditing(t *testing.T) {
	sc := oneScene(term.Modes{})
	in := newIn(t, "", nil)
	press(t, in, sc, "C-b", ":", "o", "p", "e", "n", "Left", "Left", "BSpace", "Home", "x", "End", "!")
	in.Decorate(sc)
	if sc.Prompt == nil || sc.Prompt.Text != "xoen!" || sc.Prompt.Cursor != 5 || sc.Prompt.Label != ":" {
		t.Fatalf("prompt %+v", sc.Prompt)
	}
	press(t, in, sc, "C-w")
	in.Decorate(sc)
	if sc.Prompt.Text != "" {
		t.Errorf("C-w left %q", sc.Prompt.Text)
	}
	// Paste into the prompt inserts the text without line breaks.
	in.Paste("open-pane\n --layout down", sc)
	got := press(t, in, sc, "Enter")
	want := []Action{RunLine{Line: "open-pane --layout down", Args: []string{"open-pane", "--layout", "down"}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v, want %#v", got, want)
	}
	// A bad line is not run; the message says why.
	press(t, in, sc, "C-b", ":", "'", "a", "Enter")
	sc = oneScene(term.Modes{})
	in.Decorate(sc)
	if sc.Message == "" {
		t.Error("unterminated quote gave no message")
	}
	// BSpace on an empty prompt closes it, Escape too.
	press(t, in, sc, "C-b", ":", "BSpace")
	if in.prompt != nil {
		t.Error("BSpace on empty prompt did not close it")
	}
}

func TestPasteEvents(t *testing.T) {
	for _, tc := range []struct {
		m    term.Modes
		want string
	}{
		{term.Modes{}, "echo hi\rls"},
		{term.Modes{BracketedPaste: true}, "\x1b[200~echo hi\rls\x1b[201~"},
	} {
		sc := oneScene(tc.m)
		in := newIn(t, "", nil)
		var got []Action
		got = append(got, in.Handle(tcell.NewEventPaste(true), sc)...)
		for _, r := range "echo hi" {
			got = append(got, in.Handle(tcell.NewEventKey(tcell.KeyRune, r, 0), sc)...)
		}
		got = append(got, in.Handle(tcell.NewEventKey(tcell.KeyEnter, 0, 0), sc)...)
		got = append(got, in.Handle(tcell.NewEventKey(tcell.KeyRune, 'l', 0), sc)...)
		got = append(got, in.Handle(tcell.NewEventKey(tcell.KeyRune, 's', 0), sc)...)
		got = append(got, in.Handle(tcell.NewEventPaste(false), sc)...)
		want := []Action{SendBytes{Pane: 7, Bytes: []byte(tc.want)}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%+v: got %#v, want %#v", tc.m, got, want)
		}
	}
	// The prefix key inside a paste is text, not the prefix.
	sc := oneScene(term.Modes{})
	in := newIn(t, "", nil)
	in.Handle(tcell.NewEventPaste(true), sc)
	in.Handle(tcell.NewEventKey(tcell.KeyCtrlB, 0, tcell.ModCtrl), sc)
	in.Handle(tcell.NewEventPaste(false), sc)
	if in.prefix {
		t.Error("C-b inside a paste started the prefix")
	}
}

func copyScene() (*Scene, CellRows) {
	src := CellRows(screenOf(20, 8, "alpha beta", "gamma delta", "", "epsilon", "zeta eta theta", "", "beta again", "$ ").Cells)
	sc := &Scene{Cols: 20, Rows: 6, Panes: []PaneView{{ID: 3, Frame: Rect{0, 0, 20, 5}, Content: Rect{0, 1, 20, 4}, Focused: true,
		Screen: screenOf(20, 4)}}}
	return sc, src
}

func TestCopyModeKeys(t *testing.T) {
	sc, src := copyScene()
	in := newIn(t, "", nil)
	if got := press(t, in, sc, "C-b", "["); !reflect.DeepEqual(got, []Action{EnterCopy{Pane: 3}}) {
		t.Fatalf("got %#v", got)
	}
	EnterCopy{Pane: 3}.Start(in, src, 20, 4, 2, 3)
	cm := in.copy
	if cm.Cursor() != (Point{2, 7}) || cm.Top() != 4 {
		t.Fatalf("start: cursor %v top %d", cm.Cursor(), cm.Top())
	}
	press(t, in, sc, "g")
	if cm.Cursor() != (Point{0, 0}) || cm.Top() != 0 {
		t.Fatalf("g: cursor %v top %d", cm.Cursor(), cm.Top())
	}
	press(t, in, sc, "w", "v", "j", "$")
	if got := cm.Selection(); got != "beta\ngamma delta" {
		t.Errorf("selection %q", got)
	}
	got := press(t, in, sc, "y")
	want := []Action{Copy{Text: "beta\ngamma delta"}, ExitCopy{Pane: 3}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("y: got %#v, want %#v", got, want)
	}
	if _, on := in.CopyPane(); on {
		t.Error("still in copy mode after y")
	}

	// Search forward, then n and N; q leaves.
	EnterCopy{Pane: 3}.Start(in, src, 20, 4, 0, 0)
	cm = in.copy
	press(t, in, sc, "g", "/", "b", "e", "t", "a", "Enter")
	if cm.Cursor() != (Point{6, 0}) {
		t.Errorf("/beta: cursor %v", cm.Cursor())
	}
	press(t, in, sc, "n")
	if cm.Cursor() != (Point{0, 6}) {
		t.Errorf("n: cursor %v", cm.Cursor())
	}
	press(t, in, sc, "n")
	if cm.Cursor() != (Point{6, 0}) {
		t.Errorf("n wraps: cursor %v", cm.Cursor())
	}
	press(t, in, sc, "N")
	if cm.Cursor() != (Point{0, 6}) {
		t.Errorf("N: cursor %v", cm.Cursor())
	}
	press(t, in, sc, "?", "e", "t", "a", "Enter")
	if cm.Cursor() != (Point{11, 4}) { // the nearest match before the cursor: "th[eta]"
		t.Errorf("?eta: cursor %v", cm.Cursor())
	}
	press(t, in, sc, "/", "Enter")    // repeats "eta", now forwards
	if cm.Cursor() != (Point{1, 6}) { // "b[eta] again"
		t.Errorf("/ Enter: cursor %v", cm.Cursor())
	}
	press(t, in, sc, "/", "n", "o", "p", "e", "Enter")
	sc2, _ := copyScene()
	in.Decorate(sc2)
	if sc2.Message != "not found: nope" || sc2.Panes[0].Copy == nil {
		t.Errorf("message %q, copy view %v", sc2.Message, sc2.Panes[0].Copy)
	}
	if got := press(t, in, sc, "q"); !reflect.DeepEqual(got, []Action{ExitCopy{Pane: 3}}) {
		t.Errorf("q: %#v", got)
	}
	// Escape clears a selection first, then leaves.
	EnterCopy{Pane: 3}.Start(in, src, 20, 4, 0, 0)
	press(t, in, sc, "v", "Escape")
	if in.copy == nil || in.copy.Selecting() {
		t.Error("Escape should clear the selection and stay")
	}
	press(t, in, sc, "Escape")
	if in.copy != nil {
		t.Error("second Escape should leave")
	}
	// Enter without a selection leaves and copies nothing.
	EnterCopy{Pane: 3}.Start(in, src, 20, 4, 0, 0)
	if got := press(t, in, sc, "Enter"); !reflect.DeepEqual(got, []Action{ExitCopy{Pane: 3}}) {
		t.Errorf("Enter: %#v", got)
	}
	// The prefix still works in copy mode.
	EnterCopy{Pane: 3}.Start(in, src, 20, 4, 0, 0)
	if got := press(t, in, sc, "C-b", "n"); !reflect.DeepEqual(got, []Action{Command{Name: "next-tab", Pane: 3}}) {
		t.Errorf("prefix in copy mode: %#v", got)
	}
}

func TestCopyModeBelongsToItsPane(t *testing.T) {
	sc, src := copyScene()
	in := newIn(t, "", nil)
	EnterCopy{Pane: 3}.Start(in, src, 20, 4, 0, 0)
	// Focus moves to another pane (pane 3 in another tab, say): keys go there.
	other := oneScene(term.Modes{})
	if got := press(t, in, other, "q"); !reflect.DeepEqual(got, []Action{SendBytes{Pane: 7, Bytes: []byte("q")}}) {
		t.Errorf("key with focus elsewhere: %#v", got)
	}
	if _, on := in.CopyPane(); !on {
		t.Fatal("copy mode ended when focus moved away")
	}
	// Back on pane 3 the keys drive copy mode again.
	if got := press(t, in, sc, "q"); !reflect.DeepEqual(got, []Action{ExitCopy{Pane: 3}}) {
		t.Errorf("back on the pane: %#v", got)
	}
}

func TestPasteLimits(t *testing.T) {
	sc := oneScene(term.Modes{})
	in := newIn(t, "", nil)
	if got := in.Handle(tcell.NewEventPaste(false), sc); got != nil {
		t.Errorf("end without start: %#v", got)
	}
	in.Handle(tcell.NewEventPaste(true), sc)
	if got := in.Handle(tcell.NewEventPaste(false), sc); got != nil {
		t.Errorf("empty paste: %#v", got)
	}
}
