package ui

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/melmux/melmux/pane/term"
)

// internal/ui must stay a leaf: no server, layout or pane internals, only
// the cell types of pane/term and the config's UI notation (internal/uiconf,
// itself a leaf).
func TestImports(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range af.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if strings.HasPrefix(p, "github.com/melmux/melmux/") && p != "github.com/melmux/melmux/pane/term" && p != "github.com/melmux/melmux/internal/uiconf" {
				t.Errorf("%s imports %s; internal/ui may import only pane/term and internal/uiconf of this module", f, p)
			}
		}
	}
}

// Scenes a confused caller might build must draw without panicking.
func TestDrawHostileScenes(t *testing.T) {
	ragged := screenOf(10, 3, "abc")
	ragged.Cells[1] = ragged.Cells[1][:2]
	ragged.Cells = append(ragged.Cells, nil)
	ragged.Cursor = term.Cursor{X: -5, Y: 99, Visible: true, Shape: term.CursorShape(200)}
	bad := []*Scene{
		{},
		{Cols: -1, Rows: -1},
		{Cols: W, Rows: H, Panes: []PaneView{{ID: 1, Frame: Rect{-5, -5, 3, 3}, Content: Rect{-5, -4, 3, 2}, Focused: true}}},
		{Cols: W, Rows: H, Panes: []PaneView{{ID: 1, Frame: Rect{30, 8, 100, 100}, Content: Rect{30, 9, 100, 99}, Screen: ragged, Focused: true}}},
		{Cols: W, Rows: H, Panes: []PaneView{{ID: 1, Frame: Rect{0, 0, 0, 0}, Content: Rect{0, 1, -3, -3}, Screen: ragged}}},
		{Cols: W, Rows: H, Panes: []PaneView{{ID: 1, Frame: Rect{0, 0, 10, 5}, Content: Rect{0, 1, 10, 4}, Focused: true,
			Copy: &CopyView{CursorX: 50, CursorY: -2, Selecting: true, SelFrom: Point{5, -3}, SelTo: Point{-1, 99}, Position: "[1/2]"}}}},
		{Cols: W, Rows: H, Prompt: &PromptView{Label: ":", Text: "日本語", Cursor: 99}},
		{Cols: W, Rows: H, Prompt: &PromptView{Label: strings.Repeat("long ", 20), Cursor: -1}},
		{Cols: W, Rows: H, Prompt: &PromptView{Label: ":", Choices: []string{"a", strings.Repeat("名", 40)}, Choice: 1}},
		{Cols: W, Rows: H, Prompt: &PromptView{Label: ":", Choices: []string{"a", "b"}, Choice: 7}},
		{Cols: W, Rows: H, Separators: []Rect{{-1, -1, 1, 100}, {39, 0, 5, 5}}, Help: true,
			Bindings: []BindingHelp{{Keys: strings.Repeat("k", 100), Command: strings.Repeat("c", 100)}}},
		{Cols: W, Rows: H, Tabs: []TabView{{Index: -1, Name: strings.Repeat("名", 50), Panes: -3, Attention: true}},
			Session: strings.Repeat("s", 100), SizeNote: strings.Repeat("n", 60), Message: "m", PrefixActive: true},
	}
	for _, sc := range bad {
		for _, size := range [][2]int{{W, H}, {1, 1}, {3, 2}} {
			s := newSim(t, size[0], size[1])
			Draw(s, sc)
			in := newIn(t, "", nil)
			for _, ev := range []tcell.Event{
				tcell.NewEventMouse(0, 0, tcell.Button1, 0), tcell.NewEventMouse(5, 5, tcell.WheelUp, 0),
				tcell.NewEventMouse(size[0]-1, size[1]-1, tcell.Button1, 0), tcell.NewEventMouse(3, 3, 0, 0),
				tcell.NewEventKey(tcell.KeyRune, 'a', 0),
			} {
				in.Handle(ev, sc)
			}
			in.Decorate(sc)
			Draw(s, sc)
		}
	}
}

// FuzzInput feeds arbitrary key and mouse events and pane resizes, with
// copy mode entered whenever it is asked for, and draws after each: nothing
// may panic.
func FuzzInput(f *testing.F) {
	f.Add([]byte("\x02[kkvjy\x02:ls\r"))
	f.Add([]byte("\x02x y\x02?q\x02%\x02\x02"))
	f.Add([]byte("\x02:l\x9b\x9b\x9b\r\x02:\x94\x94read-pane -t \x9b\x9b\rjj/l\rq"))
	f.Add([]byte{0x80, 10, 5, 0x81, 25, 8, 0x82, 20, 3, 0x83, 22, 3})
	f.Add([]byte("\x02:read-pane\rjj\xa0\x05jv\xa3\x17k\xa1\x02G\xa2\x0ey"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, src := copyScene()
		sc.Panes[0].Screen.Modes = term.Modes{MouseButton: len(data)%2 == 0, MouseSGR: len(data)%3 == 0, AppCursor: true}
		in := newIn(t, "", nil)
		var hist History
		in.SetPromptSupport(PromptSupport{History: &hist, Verbs: []string{"ls", "list-panes", "read-pane"},
			Panes: func() []Choice { return []Choice{{"3", "vim"}, {"33", ""}} }})
		s := newSim(t, 20, 6)
		keys := []tcell.Key{tcell.KeyRune, tcell.KeyEnter, tcell.KeyEsc, tcell.KeyBackspace, tcell.KeyUp,
			tcell.KeyLeft, tcell.KeyPgUp, tcell.KeyPgDn, tcell.KeyHome, tcell.KeyEnd, tcell.KeyDelete, tcell.KeyTab}
		for i := 0; i < len(data); i++ {
			c := data[i]
			var ev tcell.Event
			switch {
			case c >= 0x80 && c < 0x88 && i+2 < len(data):
				btn := []tcell.ButtonMask{tcell.Button1, 0, tcell.WheelUp, tcell.WheelDown, tcell.Button2, tcell.Button3, tcell.Button1, 0}[c-0x80]
				ev = tcell.NewEventMouse(int(data[i+1]%24)-2, int(data[i+2]%8)-1, btn, tcell.ModMask(c&3))
				i += 2
			case c >= 0x88 && c < 0x90:
				ev = tcell.NewEventPaste(c&1 == 0)
			case c >= 0x90 && c < 0xa0:
				ev = tcell.NewEventKey(keys[int(c-0x90)%len(keys)], 0, tcell.ModMask(c&7))
			case c >= 0xa0 && c < 0xa4 && i+1 < len(data):
				// The pane resized (a client's resize, a split): a view wraps again.
				content := &sc.Panes[0].Content
				content.W, content.H = int(data[i+1]%24)+1, int(c-0xa0)+2
				i++
				in.Decorate(sc)
				continue
			default:
				ev = tcell.NewEventKey(tcell.KeyRune, rune(c), 0)
			}
			for _, a := range in.Handle(ev, sc) {
				switch a := a.(type) {
				case EnterCopy:
					a.Start(in, src, 20, 4, 1, 1)
				case RunLine:
					in.ShowOutput(strings.Repeat(a.Line+"\t日\n", len(a.Line)), sc)
				}
			}
			in.Decorate(sc)
			Draw(s, sc)
			sc.Prompt, sc.Help, sc.Panes[0].Copy = nil, false, nil
		}
	})
}
