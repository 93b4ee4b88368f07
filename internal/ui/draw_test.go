package ui

import (
	"strings"
	"testing"

	"github.com/melmux/melmux/pane/term"
)

const W, H = 40, 12 // client size in the golden scenes; the status line is row 11

func intp(n int) *int { return &n }

// pane builds a PaneView for a frame, its content being the frame minus the title row.
func pane(id int, f Rect, focused bool, cmd string, lines ...string) PaneView {
	c := Rect{f.X, f.Y + 1, f.W, f.H - 1}
	return PaneView{ID: id, Frame: f, Content: c, Command: cmd, State: "idle", Focused: focused,
		Screen: screenOf(c.W, c.H, lines...)}
}

func scene(tabs []TabView, panes ...PaneView) *Scene {
	if tabs == nil {
		tabs = []TabView{{Index: 0, Name: "main", Panes: len(panes), Active: true}}
	}
	return &Scene{Cols: W, Rows: H, Session: "main", Tabs: tabs, Panes: panes}
}

func TestDrawGolden(t *testing.T) {
	full := Rect{0, 0, W, H - 1}
	left, right := Rect{0, 0, 20, H - 1}, Rect{21, 0, 19, H - 1}
	sep := Rect{20, 0, 1, H - 1}
	top, bottom := Rect{0, 0, W, 5}, Rect{0, 5, W, 6}

	onePane := scene(nil, pane(1, full, true, "bash", "$ ls", "a.txt  b.txt", "$ "))
	onePane.Panes[0].Screen.Cursor = term.Cursor{X: 2, Y: 2, Visible: true, Shape: term.CursorBar}

	splitRight := scene(nil, pane(1, left, false, "bash", "left side"), pane(2, right, true, "vim", "right side"))
	splitRight.Separators = []Rect{sep}
	splitRight.Panes[1].Title = "notes.md"

	splitDown := scene(nil, pane(1, top, true, "bash", "top"), pane(2, bottom, false, "htop", "bottom"))
	splitDown.Panes[1].State = "busy"

	nested := scene(nil,
		pane(1, left, false, "bash", "one"),
		pane(2, Rect{21, 0, 19, 5}, false, "claude", "two"),
		pane(3, Rect{21, 5, 19, 6}, true, "codex", "three"))
	nested.Separators = []Rect{sep}
	nested.Panes[1].State = "waiting"

	tabs := scene([]TabView{
		{Index: 0, Name: "shell", Panes: 1},
		{Index: 1, Name: "agents", Panes: 3, Active: true},
		{Index: 2, Name: "build", Panes: 2, Attention: true},
	}, pane(4, full, true, "bash", "tab one"))

	zoom := scene([]TabView{{Index: 0, Name: "main", Panes: 3, Active: true, Zoomed: true}},
		pane(2, full, true, "claude", "zoomed in"))

	markers := scene([]TabView{{Index: 0, Name: "main", Panes: 2, Active: true, Attention: true}},
		pane(1, full, true, "bash"))
	markers.PrefixActive = true
	markers.SizeNote = "40x12"
	markers.Message = "hello"

	wide := scene(nil, pane(1, full, true, "cat", "日本語 text", "e\u0301 é", "🙂 emoji", "abcdefghijklmnopqrstuvwxyz0123456789abc日"))
	wide.Panes[0].Screen.Cursor.Visible = false

	exited := scene(nil, pane(1, left, false, "make", "build failed"), pane(2, right, true, "sleep", "zzz"))
	exited.Separators = []Rect{sep}
	exited.Panes[0].Exited, exited.Panes[0].ExitCode = true, intp(2)
	exited.Panes[1].Exited, exited.Panes[1].Signal = true, "SIGKILL"
	// A remote pane whose link dropped: its state in the attention colour.
	disconnected := scene(nil, pane(1, full, true, "h1: make", "building"))
	disconnected.Panes[0].State, disconnected.Panes[0].Alert = "disconnected since 12:34:56", true

	help := scene(nil, pane(1, full, true, "bash"))
	in, err := NewInput("", nil)
	if err != nil {
		t.Fatal(err)
	}
	help.Help, help.Bindings = true, in.Bindings()

	prompt := scene(nil, pane(1, full, true, "bash"))
	prompt.Prompt = &PromptView{Label: ":", Text: "open-pane --layout right", Cursor: 9}

	helpShort := scene(nil, pane(1, full, true, "bash"))
	helpShort.Help, helpShort.Bindings = true, in.Bindings()

	var many []TabView
	for i := range 8 {
		many = append(many, TabView{Index: i, Name: "tab", Panes: 1, Active: i == 6})
	}
	overflow := scene(many, pane(1, full, true, "bash"))

	longPrompt := scene(nil, pane(1, full, true, "bash"))
	longPrompt.Prompt = &PromptView{Label: ":", Text: "open-pane --layout right --title 'a long title for a pane' -- htop", Cursor: 60}

	for _, tc := range []struct {
		name string
		sc   *Scene
	}{
		{"tabs_overflow", overflow}, {"prompt_long", longPrompt}, {"help_short", helpShort},
		{"one_pane", onePane}, {"split_right", splitRight}, {"split_down", splitDown},
		{"nested", nested}, {"tabs", tabs}, {"zoom", zoom}, {"status_markers", markers},
		{"wide", wide}, {"exited", exited}, {"help", help}, {"prompt", prompt},
		{"disconnected", disconnected},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSim(t, W, H)
			if tc.name == "help" {
				// the overlay lists every binding; give it a usual terminal height
				s.SetSize(W, 24)
				tc.sc.Rows = 24
			}
			Draw(s, tc.sc)
			golden(t, tc.name, dump(s, tc.name == "tabs" || tc.name == "status_markers" || tc.name == "split_right" || tc.name == "exited" || tc.name == "disconnected"))
		})
	}
}

func TestDrawColours(t *testing.T) {
	p := pane(1, Rect{0, 0, W, 7}, true, "colours")
	row := p.Screen.Cells
	x := putText(row[0], 0, "red", term.Cell{FG: term.Indexed(1)})
	x = putText(row[0], x+1, "bgblue", term.Cell{BG: term.Indexed(12)})
	putText(row[0], x+1, "c208", term.Cell{FG: term.Indexed(208), BG: term.Indexed(236)})
	x = putText(row[1], 0, "rgb", term.Cell{FG: term.RGB(0x12, 0x34, 0x56), BG: term.RGB(0xff, 0xee, 0xdd)})
	putText(row[1], x+1, "hid", term.Cell{FG: term.Indexed(1), BG: term.Indexed(2), Attr: term.AttrHidden})
	attrs := []struct {
		s string
		a term.Attr
	}{{"bold", term.AttrBold}, {"dim", term.AttrDim}, {"ital", term.AttrItalic}, {"undl", term.AttrUnderline},
		{"blnk", term.AttrBlink}, {"rev", term.AttrReverse}, {"strk", term.AttrStrike}}
	x = 0
	for _, a := range attrs {
		x = putText(row[2], x, a.s, term.Cell{Attr: a.a}) + 1
	}
	putText(row[3], 0, "all", term.Cell{FG: term.Indexed(3), Attr: term.AttrBold | term.AttrItalic | term.AttrUnderline | term.AttrReverse})
	putText(row[4], 0, "宽", term.Cell{FG: term.Indexed(5)})
	sc := scene(nil, p)
	s := newSim(t, W, H)
	Draw(s, sc)
	golden(t, "colours", dump(s, true))
}

func TestDrawCopyModeSelection(t *testing.T) {
	hist := CellRows(screenOf(W, 6, "old one", "old two", "old three", "", "", "").Cells[:3])
	scr := screenOf(W, 10, "$ echo hello world", "hello world", "$ ")
	var src CellRows
	src = append(src, hist...)
	src = append(src, scr.Cells...)
	in, _ := NewInput("", nil)
	EnterCopy{Pane: 1}.Start(in, src, W, 10, 2, 2)
	cm := in.copy
	cm.Scroll(-2) // show two history lines
	cm.cur = Point{7, 3}
	cm.StartSelection()
	cm.Move(0, 1)
	cm.LineEnd()
	drawCopyGolden(t, in, scr, "copy_selection")
	if got, want := cm.Selection(), "hello world\nhello world"; got != want {
		t.Errorf("selection %q, want %q", got, want)
	}
}

// TestDrawCopyModeSearch: every match of the search on screen is
// highlighted, the current one (under the cursor) in its own colour, and a
// bold match stays bold.
func TestDrawCopyModeSearch(t *testing.T) {
	scr := screenOf(W, 10, "$ grep -n todo *.go", "a.go:3: // todo: todo twice", "b.go:9: 日todo", "$ ")
	putText(scr.Cells[1][11:], 0, "todo", term.Cell{Attr: term.AttrBold})
	in, _ := NewInput("", nil)
	EnterCopy{Pane: 1}.Start(in, CellRows(scr.Cells), W, 10, 2, 3)
	if !in.copy.Search("todo", true) || in.copy.Cursor() != (Point{10, 2}) {
		t.Fatalf("search up: cursor %v", in.copy.Cursor())
	}
	drawCopyGolden(t, in, scr, "copy_search")
}

// drawCopyGolden draws one full-window pane 1 showing scr, decorated by in
// (in copy mode on it), and compares with the golden screen and styles.
func drawCopyGolden(t *testing.T, in *Input, scr *term.Screen, name string) {
	t.Helper()
	p := pane(1, Rect{0, 0, W, H - 1}, true, "bash")
	p.Screen = scr
	sc := scene(nil, p)
	in.Decorate(sc)
	s := newSim(t, W, H)
	Draw(s, sc)
	golden(t, name, dump(s, true))
}

func TestDrawClipsToSmallScreen(t *testing.T) {
	// A scene laid out for a larger client must not draw outside a smaller screen.
	sc := scene(nil, pane(1, Rect{0, 0, 100, 40}, true, "bash", "x"))
	sc.Cols, sc.Rows = 100, 41
	s := newSim(t, 10, 4)
	Draw(s, sc)
	got := dump(s, false)
	want := "─ 1 bash ─|\nx         |\n          |\n[main] 0:m|\ncursor 0,1\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// Drawing a frame over an older one must give the same screen as drawing it
// fresh: nothing of the old frame may survive in gaps, short screens or
// behind wide runes.
func TestDrawLeavesNothingBehind(t *testing.T) {
	old := scene(nil, pane(1, Rect{0, 0, W, H - 1}, true, "bash",
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"))
	old.Help = true
	old.Bindings = []BindingHelp{{Keys: "C-b x", Command: "something long enough"}}
	next := scene(nil,
		pane(1, Rect{0, 0, 15, 6}, true, "bash", "日本"), // leaves gaps right and below
		pane(2, Rect{21, 0, 19, 6}, false, "sh"))
	next.Panes[1].Screen = screenOf(5, 2, "short") // smaller than its content area
	next.Panes[1].Content.H -= 2                   // and a frame taller than title + content
	fresh := newSim(t, W, H)
	Draw(fresh, next)
	over := newSim(t, W, H)
	Draw(over, old)
	Draw(over, next)
	if a, b := dump(fresh, true), dump(over, true); a != b {
		t.Errorf("drawn over an old frame:\n%s\nfresh:\n%s", b, a)
	}
	// A scene smaller than the screen (the session follows a smaller
	// client) leaves the rest of the screen blank.
	small := scene(nil, pane(1, Rect{0, 0, 20, 5}, true, "bash", "hi"))
	small.Cols, small.Rows = 20, 6
	xs := strings.Repeat("x", W)
	Draw(over, scene(nil, pane(1, Rect{0, 0, W, H - 1}, true, "bash", xs, xs, xs, xs, xs, xs, xs, xs, xs, xs)))
	Draw(over, small)
	got := dump(over, false)
	for y, line := range strings.Split(got, "\n")[:H] {
		if y >= 6 && strings.TrimRight(line, " |") != "" || len([]rune(line)) != W+1 {
			t.Fatalf("row %d not blank beyond the scene: %q\n%s", y, line, got)
		}
		if y < 6 && strings.TrimRight(string([]rune(line)[20:]), " |") != "" {
			t.Fatalf("row %d not blank right of the scene: %q", y, line)
		}
	}
}

func TestDrawControlCellsBlank(t *testing.T) {
	p := pane(1, Rect{0, 0, 10, 3}, true, "x")
	row := p.Screen.Cells[0]
	for i, r := range []rune{'a', 0x7f, 'b', 0x85, 'c', 0x01, 'd', 0} {
		row[i] = term.Cell{Rune: r, Width: 1}
	}
	sc := scene(nil, p)
	s := newSim(t, W, H)
	Draw(s, sc)
	got := strings.SplitN(dump(s, false), "\n", 3)[1]
	if want := "a b c d   "; !strings.HasPrefix(got, want) {
		t.Errorf("row %q, want prefix %q", got, want)
	}
}

// On an 80x24 terminal the help overlay flows into columns so every binding
// shows.
func TestHelpFitsInColumns(t *testing.T) {
	in, err := NewInput("", nil)
	if err != nil {
		t.Fatal(err)
	}
	sc := scene(nil, pane(1, Rect{0, 0, 80, 23}, true, "bash"))
	sc.Cols, sc.Rows = 80, 24
	sc.Help, sc.Bindings = true, in.Bindings()
	s := newSim(t, 80, 24)
	Draw(s, sc)
	golden(t, "help_columns", dump(s, false))
	text := dump(s, false)
	for _, b := range in.Bindings() {
		if !strings.Contains(text, b.Command) {
			t.Errorf("binding %q (%s) is missing from the 80x24 help", b.Keys, b.Command)
		}
	}
	if strings.Contains(text, "more") {
		t.Error("the 80x24 help should not need to leave bindings out")
	}
}
