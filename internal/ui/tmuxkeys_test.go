package ui

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
)

// threePanes is a scene of panes 3, 12 and 1 (12 focused) in tab 1 of two.
func threePanes() *Scene {
	tabs := []TabView{{Index: 0, Name: "build", Panes: 1}, {Index: 1, Name: "work", Panes: 3, Active: true}}
	return scene(tabs,
		pane(3, Rect{0, 0, 13, H - 1}, false, "bash"),
		pane(12, Rect{14, 0, 12, H - 1}, true, "vim"),
		pane(1, Rect{27, 0, 13, H - 1}, false, "top"))
}

// clocked is an Input whose keys happen at the time *now says.
func clocked(t *testing.T, now *time.Time) *Input {
	in := newIn(t, "", nil)
	in.tmux.when = func(*tcell.EventKey) time.Time { return *now }
	return in
}

func TestTmuxKeys(t *testing.T) {
	cmd := func(name string, args ...string) []Action {
		return []Action{Command{Name: name, Args: args, Pane: 12}}
	}
	for _, tc := range []struct {
		keys []string
		want []Action
	}{
		{[]string{"C-b", "o"}, cmd("next-pane")},
		{[]string{"C-b", ";"}, cmd("last-pane")},
		{[]string{"C-b", "!"}, cmd("break-pane")},
		{[]string{"C-b", "{"}, cmd("swap-pane", "prev")},
		{[]string{"C-b", "}"}, cmd("swap-pane", "next")},
		{[]string{"C-b", "Space"}, cmd("next-layout")},
		{[]string{"C-b", "s"}, cmd("choose-session")},
		{[]string{"C-b", "PgUp"}, []Action{EnterCopy{Pane: 12, PageUp: true}}},
		{[]string{"C-b", "&", "y"}, cmd("kill-tab", "1")},
		{[]string{"C-b", "&", "n"}, nil},
		{[]string{"C-b", ",", "C-u", "e", "d", "Enter"}, cmd("rename-tab", "1", "ed")},
		{[]string{"C-b", ",", "BSpace", "Enter"}, cmd("rename-tab", "1", "wor")},
		{[]string{"C-b", "'", "1", "2", "Enter"}, cmd("select-tab", "12")},
		{[]string{"C-b", "w", "0"}, []Action{SelectTab{Index: 0}}},
		{[]string{"C-b", "w", "Up", "Enter"}, []Action{SelectTab{Index: 0}}},
		{[]string{"C-b", "w", "q", "a"}, []Action{SendBytes{Pane: 12, Bytes: []byte("a")}}},
		{[]string{"C-b", "q", "3"}, []Action{FocusPane{Pane: 3}}},
		// 1 could go on to 12: the next digit decides, or Enter takes 1.
		{[]string{"C-b", "q", "1", "2"}, []Action{FocusPane{Pane: 12}}},
		{[]string{"C-b", "q", "1", "Enter"}, []Action{FocusPane{Pane: 1}}},
		{[]string{"C-b", "q", "x", "a"}, []Action{SendBytes{Pane: 12, Bytes: []byte("a")}}},
	} {
		in := newIn(t, "", nil)
		got := press(t, in, threePanes(), tc.keys...)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%v: got %#v, want %#v", tc.keys, got, tc.want)
		}
		if in.prefix || in.prompt != nil || in.tmux.chooser != nil || in.tmux.panes != nil {
			t.Errorf("%v: state left behind", tc.keys)
		}
	}
}

func TestTmuxKeysErrors(t *testing.T) {
	in := newIn(t, "", nil)
	sc := threePanes()
	if got := press(t, in, sc, "C-b", "'", "x", "Enter"); got != nil || !strings.Contains(in.msg, `"x" is not a tab number`) {
		t.Errorf("a bad tab number: %v, message %q", got, in.msg)
	}
	if got := press(t, in, sc, "C-b", "q", "7"); got != nil || !strings.Contains(in.msg, "no pane 7 here (panes shown: 3, 12, 1)") {
		t.Errorf("a pane not shown: %v, message %q", got, in.msg)
	}
	if got := press(t, in, sc, "C-b", "w", "5"); got != nil || !strings.Contains(in.msg, "tabs: no item 5 (0-1)") || in.tmux.chooser == nil {
		t.Errorf("a tab not listed: %v, message %q", got, in.msg)
	}
}

// The resize keys repeat without the prefix for RepeatTime after each, as
// tmux's bind -r; another key ends that, and so does the time.
func TestRepeatKeys(t *testing.T) {
	now := time.Unix(1000, 0)
	in := clocked(t, &now)
	sc := threePanes()
	resize := func(d, n string) Action {
		args := []string{d}
		if n != "" {
			args = append(args, n)
		}
		return Command{Name: "resize", Args: args, Pane: 12}
	}
	if got := press(t, in, sc, "C-b", "C-Left", "C-Left", "M-Up"); !reflect.DeepEqual(got, []Action{resize("left", ""), resize("left", ""), resize("up", "5")}) {
		t.Fatalf("repeated: %#v", got)
	}
	now = now.Add(RepeatTime - time.Millisecond)
	if got := press(t, in, sc, "C-Right"); !reflect.DeepEqual(got, []Action{resize("right", "")}) {
		t.Fatalf("within the time since the last: %#v", got)
	}
	now = now.Add(RepeatTime)
	if got := press(t, in, sc, "C-Right"); len(got) != 1 || reflect.DeepEqual(got[0], resize("right", "")) {
		t.Fatalf("after the time the key goes to the pane: %#v", got)
	}
	// A key that is not repeatable ends the repeat and goes to the pane.
	press(t, in, sc, "C-b", "C-Left")
	if got := press(t, in, sc, "a", "C-Left"); !reflect.DeepEqual(got[0], SendBytes{Pane: 12, Bytes: []byte("a")}) || len(got) != 2 || reflect.DeepEqual(got[1], resize("left", "")) {
		t.Fatalf("another key: %#v", got)
	}
	// A prefix key that is not repeatable runs once.
	if got := press(t, in, sc, "C-b", "o", "o"); !reflect.DeepEqual(got, []Action{Command{Name: "next-pane", Pane: 12}, SendBytes{Pane: 12, Bytes: []byte("o")}}) {
		t.Fatalf("o does not repeat: %#v", got)
	}
}

// The pane numbers go after DisplayPanesTime: a digit then goes to the pane.
func TestPaneNumbersTime(t *testing.T) {
	now := time.Now()
	in := clocked(t, &now)
	sc := threePanes()
	press(t, in, sc, "C-b", "q")
	in.Decorate(sc)
	if !sc.PaneNumbers || in.Wakeup() <= 0 || in.Wakeup() > DisplayPanesTime {
		t.Fatalf("numbers %v, wakeup %v", sc.PaneNumbers, in.Wakeup())
	}
	now = now.Add(DisplayPanesTime)
	if got := press(t, in, sc, "3"); !reflect.DeepEqual(got, []Action{SendBytes{Pane: 12, Bytes: []byte("3")}}) {
		t.Fatalf("a digit after the time: %#v", got)
	}
}

func TestTmuxNamesAtThePrompt(t *testing.T) {
	cmd := func(name string, args ...string) []Action {
		return []Action{Command{Name: name, Args: args, Pane: 12}}
	}
	for _, tc := range []struct {
		line string
		want []Action
		msg  string
	}{
		{"split-window -h", cmd("split-right"), ""},
		{"split-window", cmd("split-down"), ""},
		{"splitw -h", []Action{RunLine{Line: "splitw -h", Args: []string{"splitw", "-h"}}}, ""},
		{"new-window", cmd("new-tab"), ""},
		{"next-window", cmd("next-tab"), ""},
		{"previous-window", cmd("prev-tab"), ""},
		{"select-window -t :4", cmd("select-tab", "4"), ""},
		{"rename-window 'my tab'", cmd("rename-tab", "1", "my tab"), ""},
		{"kill-window", nil, ""}, // asks first
		{"select-pane -L", cmd("focus", "left"), ""},
		{"last-pane", cmd("last-pane"), ""},
		{"swap-pane -U", cmd("swap-pane", "prev"), ""},
		{"break-pane", cmd("break-pane"), ""},
		{"next-layout", cmd("next-layout"), ""},
		{"resize-pane -R 3", cmd("resize", "right", "3"), ""},
		{"resize-pane -Z", cmd("zoom"), ""},
		{"detach-client", cmd("detach"), ""},
		{"copy-mode -u", []Action{EnterCopy{Pane: 12, PageUp: true}}, ""},
		{"choose-tree -s", cmd("choose-session"), ""},
		// melmux's own binding names too.
		{"zoom", cmd("zoom"), ""},
		{"select-tab 11", cmd("select-tab", "11"), ""},
		// A verb of the CLI wins over a binding of the same name.
		{"kill-pane -t 3", []Action{RunLine{Line: "kill-pane -t 3", Args: []string{"kill-pane", "-t", "3"}}}, ""},
		{"split-window -p 30", nil, "split-window -p: melmux takes -h (side by side) or -v (stacked) here; for a command, a directory or a size use open-pane"},
		{"new-window htop", nil, "new-window htop: melmux takes no flags here"},
		{"swap-pane -s 2", nil, "swap-pane takes -U (with the previous pane) or -D (with the next)"},
		{"next-layout now", nil, `melmux's next-layout takes no arguments here, got "now"`},
		{"select-tab x", nil, `select-tab "x": the tab number must be 0 or more`},
	} {
		in := newIn(t, "", nil)
		in.SetPromptSupport(PromptSupport{Verbs: []string{"kill-pane", "ls", "open-pane"}})
		got := press(t, in, threePanes(), "C-b", ":")
		got = append(got, in.Paste(tc.line, threePanes())...)
		got = append(got, press(t, in, threePanes(), "Enter")...)
		var acts []Action
		for _, a := range got {
			if _, ok := a.(Redraw); !ok {
				acts = append(acts, a)
			}
		}
		if !reflect.DeepEqual(acts, tc.want) {
			t.Errorf("%q: got %#v, want %#v", tc.line, acts, tc.want)
		}
		if !strings.Contains(in.msg, tc.msg) {
			t.Errorf("%q: message %q, want %q", tc.line, in.msg, tc.msg)
		}
	}
}

func TestDrawPaneNumbersAndChooser(t *testing.T) {
	sc := threePanes()
	in := newIn(t, "", nil)
	press(t, in, sc, "C-b", "q")
	in.Decorate(sc)
	s := newSim(t, W, H)
	Draw(s, sc)
	text := simText(s)
	for _, want := range []string{" 3 ", " 12 ", " 1 "} {
		if row := text[1+(H-2)/2]; !strings.Contains(row, want) {
			t.Errorf("pane number %q not in the middle row %q", want, row)
		}
	}
	sc = threePanes()
	press(t, in, sc, "Escape", "C-b", "w")
	in.Decorate(sc)
	Draw(s, sc)
	text = simText(s)
	joined := strings.Join(text, "\n")
	if !strings.Contains(joined, "(0) 0: build (1 pane)") || !strings.Contains(joined, "(1) 1: work (3 panes) *") || !strings.Contains(joined, " tabs ") {
		t.Errorf("the tab chooser:\n%s", joined)
	}
}

// simText is the simulation screen's rows as text.
func simText(s tcell.SimulationScreen) []string {
	cells, w, h := s.GetContents()
	rows := make([]string, h)
	for y := 0; y < h; y++ {
		var b strings.Builder
		for x := 0; x < w; x++ {
			c := cells[y*w+x]
			if len(c.Runes) == 0 {
				b.WriteByte(' ')
				continue
			}
			b.WriteString(string(c.Runes))
		}
		rows[y] = b.String()
	}
	return rows
}
