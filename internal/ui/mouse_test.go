package ui

import (
	"reflect"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/melmux/melmux/pane/term"
)

// mouseScene: pane 1 on the left, panes 2 (top) and 3 (bottom, focused) on
// the right; pane 3's content starts at (21, 6).
func mouseScene(m term.Modes) *Scene {
	sc := scene([]TabView{{Index: 0, Name: "shell", Panes: 1}, {Index: 1, Name: "agents", Panes: 3, Active: true}},
		pane(1, Rect{0, 0, 20, H - 1}, false, "bash"),
		pane(2, Rect{21, 0, 19, 5}, false, "claude"),
		pane(3, Rect{21, 5, 19, 6}, true, "vim"))
	sc.Separators = []Rect{{20, 0, 1, H - 1}}
	sc.Panes[2].Screen.Modes = m
	return sc
}

type mev struct {
	x, y int
	b    tcell.ButtonMask
	mod  tcell.ModMask
}

func run(in *Input, sc *Scene, evs ...mev) []Action {
	var out []Action
	for _, e := range evs {
		for _, a := range in.Mouse(tcell.NewEventMouse(e.x, e.y, e.b, e.mod), sc) {
			if _, ok := a.(Redraw); !ok {
				out = append(out, a)
			}
		}
	}
	return out
}

func send(pane int, s string) Action { return SendBytes{Pane: pane, Bytes: []byte(s)} }

func TestMouse(t *testing.T) {
	none := term.Modes{}
	sgr := term.Modes{MouseButton: true, MouseSGR: true}
	sgrDrag := term.Modes{MouseDrag: true, MouseSGR: true}
	normal := term.Modes{MouseButton: true}
	x10 := term.Modes{MouseX10: true}
	motion := term.Modes{MouseMotion: true, MouseSGR: true}
	b1, b2, b3 := tcell.Button1, tcell.Button2, tcell.Button3
	up, down := tcell.WheelUp, tcell.WheelDown
	for _, tc := range []struct {
		name string
		m    term.Modes
		evs  []mev
		want []Action
	}{
		{"click focuses", none, []mev{{5, 3, b1, 0}, {5, 3, 0, 0}}, []Action{FocusPane{1}}},
		{"click on a title focuses", none, []mev{{3, 0, b1, 0}, {3, 0, 0, 0}}, []Action{FocusPane{1}}},
		{"click on a tab", none, []mev{{20, 11, b1, 0}, {20, 11, 0, 0}}, []Action{SelectTab{1}}},
		{"click on the status line elsewhere", none, []mev{{39, 11, b1, 0}}, nil},
		{"click in the focused pane, no mouse mode", none, []mev{{25, 8, b1, 0}, {25, 8, 0, 0}}, nil},
		{"drag the separator", none, []mev{{20, 3, b1, 0}, {22, 3, b1, 0}, {22, 4, b1, 0}, {21, 4, b1, 0}, {21, 4, 0, 0}},
			[]Action{DragBorder{Pane: 1, Vertical: true, Delta: 2}, DragBorder{Pane: 1, Vertical: true, Delta: -1}}},
		{"drag a title bar with a pane above", none, []mev{{30, 5, b1, 0}, {30, 3, b1, 0}, {30, 3, 0, 0}},
			[]Action{DragBorder{Pane: 2, Delta: -2}}},
		{"right button on a separator does not drag", none, []mev{{20, 3, b2, 0}, {22, 3, b2, 0}}, nil},
		{"wheel up enters copy mode", none, []mev{{25, 8, up, 0}}, []Action{EnterCopy{Pane: 3, Scroll: -3, ByMouse: true}}},
		{"wheel up on another pane scrolls it and leaves focus alone", none, []mev{{5, 5, up, 0}},
			[]Action{EnterCopy{Pane: 1, Scroll: -3, ByMouse: true}}},
		{"wheel down outside copy mode", none, []mev{{25, 8, down, 0}}, nil},
		{"wheel on a title bar", none, []mev{{25, 5, up, 0}}, nil},
		{"wheel forwarded, SGR", sgr, []mev{{25, 8, up, 0}, {25, 8, down, tcell.ModShift}},
			[]Action{send(3, "\x1b[<64;5;3M"), send(3, "\x1b[<69;5;3M")}},
		{"click forwarded, SGR", sgr, []mev{{25, 8, b1, 0}, {26, 8, b1, 0}, {26, 8, 0, 0}},
			[]Action{send(3, "\x1b[<0;5;3M"), send(3, "\x1b[<0;6;3m")}},
		{"drag forwarded with 1002", sgrDrag, []mev{{25, 8, b1, 0}, {26, 8, b1, 0}, {26, 8, b1, 0}, {90, 99, b1, 0}, {26, 8, 0, 0}},
			[]Action{send(3, "\x1b[<0;5;3M"), send(3, "\x1b[<32;6;3M"), send(3, "\x1b[<32;19;5M"), send(3, "\x1b[<0;6;3m")}},
		{"buttons and modifiers", sgr, []mev{{21, 6, b2, 0}, {21, 6, 0, 0}, {21, 6, b3, tcell.ModCtrl}, {21, 6, 0, 0}},
			[]Action{send(3, "\x1b[<2;1;1M"), send(3, "\x1b[<2;1;1m"), send(3, "\x1b[<17;1;1M"), send(3, "\x1b[<1;1;1m")}},
		{"normal encoding", normal, []mev{{25, 8, b1, tcell.ModAlt}, {25, 8, 0, 0}},
			[]Action{send(3, "\x1b[M(%#"), send(3, "\x1b[M#%#")}},
		{"X10 reports presses only, no modifiers", x10, []mev{{25, 8, b1, tcell.ModCtrl}, {25, 8, 0, 0}, {25, 8, up, 0}},
			[]Action{send(3, "\x1b[M %#"), EnterCopy{Pane: 3, Scroll: -3, ByMouse: true}}},
		{"motion with 1003", motion, []mev{{25, 8, 0, 0}, {26, 8, 0, 0}, {26, 8, 0, 0}},
			[]Action{send(3, "\x1b[<35;5;3M"), send(3, "\x1b[<35;6;3M")}},
		{"motion without 1003", sgr, []mev{{25, 8, 0, 0}}, nil},
		{"a click in an unfocused pane focuses, not forwarded", sgr, []mev{{5, 3, b1, 0}, {5, 3, 0, 0}}, []Action{FocusPane{1}}},
	} {
		in := newIn(t, "", nil)
		if got := run(in, mouseScene(tc.m), tc.evs...); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %#v\nwant %#v", tc.name, got, tc.want)
		}
	}
}

func TestMouseClickScrolledTabs(t *testing.T) {
	var many []TabView
	for i := range 8 {
		many = append(many, TabView{Index: i, Name: "tab", Panes: 1, Active: i == 6})
	}
	sc := scene(many, pane(1, Rect{0, 0, W, H - 1}, true, "bash"))
	// The status line reads "[main] < 4:tab(1) 5:tab(1) 6:tab(1)* 7:t":
	// the first tab shown is 4, at columns 9-16.
	in := newIn(t, "", nil)
	if got := run(in, sc, mev{10, H - 1, tcell.Button1, 0}); !reflect.DeepEqual(got, []Action{SelectTab{4}}) {
		t.Errorf("click on the first tab shown: %#v", got)
	}
}

func TestMouseWheelInCopyMode(t *testing.T) {
	sc := mouseScene(term.Modes{})
	in := newIn(t, "", nil)
	acts := run(in, sc, mev{25, 8, tcell.WheelUp, 0})
	ec := acts[0].(EnterCopy)
	ec.Start(in, numbered(50, 19), 19, 5, 0, 4)
	if got := in.copy.Top(); got != 42 {
		t.Fatalf("after one notch top = %d, want 42", got)
	}
	run(in, sc, mev{25, 8, tcell.WheelUp, 0})
	if got := in.copy.Top(); got != 39 {
		t.Errorf("second notch top = %d, want 39", got)
	}
	run(in, sc, mev{25, 8, tcell.WheelDown, 0})
	if in.copy == nil {
		t.Fatal("left copy mode before the bottom")
	}
	if got := run(in, sc, mev{25, 8, tcell.WheelDown, 0}); !reflect.DeepEqual(got, []Action{ExitCopy{Pane: 3}}) {
		t.Errorf("scrolling to the bottom: %#v", got)
	}
	// Copy mode entered with the keyboard stays at the bottom.
	EnterCopy{Pane: 3}.Start(in, numbered(50, 19), 19, 5, 0, 4)
	run(in, sc, mev{25, 8, tcell.WheelUp, 0}, mev{25, 8, tcell.WheelDown, 0}, mev{25, 8, tcell.WheelDown, 0})
	if in.copy == nil {
		t.Error("keyboard copy mode left by the wheel")
	}
}

func TestEncodeMouse(t *testing.T) {
	if b := EncodeMouse(0, 223, 0, false, term.Modes{MouseButton: true}); b != nil {
		t.Errorf("x=223 cannot be sent in X10 form, got %q", b)
	}
	if b := EncodeMouse(0, 221, 221, false, term.Modes{MouseButton: true}); string(b) != "\x1b[M \xfe\xfe" {
		t.Errorf("x=221: %q", b)
	}
	if b := EncodeMouse(0, 500, 300, false, term.Modes{MouseSGR: true}); string(b) != "\x1b[<0;501;301M" {
		t.Errorf("SGR large: %q", b)
	}
}

func TestMouseDragSelect(t *testing.T) {
	sc := mouseScene(term.Modes{})
	src := numbered(10, 19) // the view shows "line 5".."line 9"
	b1 := tcell.Button1
	for _, viaStart := range []bool{true, false} {
		in := newIn(t, "", nil)
		var got []Action
		for _, e := range []mev{{22, 7, b1, 0}, {25, 8, b1, 0}, {26, 8, b1, 0}, {26, 8, 0, 0}} {
			for _, a := range run(in, sc, e) {
				got = append(got, a)
				if ec, ok := a.(EnterCopy); ok {
					if viaStart {
						ec.Start(in, src, 19, 5, 0, 4)
					} else { // as a server that builds copy mode itself does
						in.StartCopy(ec.Pane, NewCopyMode(src, 19, 5, 0, 4))
					}
				}
			}
		}
		want := []Action{EnterCopy{Pane: 3, ByMouse: true}, Copy{Text: "ine 6\nline 7"}, ExitCopy{Pane: 3}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("via Start %v: got %#v\nwant %#v", viaStart, got, want)
		}
		if _, on := in.CopyPane(); on {
			t.Error("still in copy mode after the release")
		}
	}

	// A click without a move selects nothing and does not enter copy mode.
	in := newIn(t, "", nil)
	if got := run(in, sc, mev{22, 7, b1, 0}, mev{22, 7, 0, 0}); got != nil {
		t.Errorf("plain click: %#v", got)
	}
	// A release before copy mode came copies nothing.
	if got := run(in, sc, mev{22, 7, b1, 0}, mev{24, 7, b1, 0}, mev{24, 7, 0, 0}); !reflect.DeepEqual(got, []Action{EnterCopy{Pane: 3, ByMouse: true}}) {
		t.Errorf("release before copy mode: %#v", got)
	}
	// In copy mode a click moves the cursor and drops the selection.
	EnterCopy{Pane: 3}.Start(in, src, 19, 5, 0, 4)
	in.copy.StartSelection()
	run(in, sc, mev{24, 9, b1, 0}, mev{24, 9, 0, 0})
	if in.copy == nil || in.copy.Selecting() || in.copy.Cursor() != (Point{3, 8}) {
		t.Errorf("click in copy mode: copy %v", in.copy)
	}
	// Dragging in copy mode selects and copies as well.
	got := run(in, sc, mev{21, 6, b1, 0}, mev{23, 6, b1, 0}, mev{23, 6, 0, 0})
	if want := []Action{Copy{Text: "lin"}, ExitCopy{Pane: 3}}; !reflect.DeepEqual(got, want) {
		t.Errorf("drag in copy mode: %#v", got)
	}
}

// TestMouseWheelKeepsFocus: the wheel over an unfocused pane scrolls that
// pane (its copy mode, or its application's wheel reports) and focus stays,
// so typing still goes to the focused pane.
func TestMouseWheelKeepsFocus(t *testing.T) {
	sc := mouseScene(term.Modes{}) // pane 3 focused
	in := newIn(t, "", nil)
	acts := run(in, sc, mev{5, 5, tcell.WheelUp, 0})
	if !reflect.DeepEqual(acts, []Action{EnterCopy{Pane: 1, Scroll: -3, ByMouse: true}}) {
		t.Fatalf("wheel over pane 1: %#v", acts)
	}
	acts[0].(EnterCopy).Start(in, numbered(50, 20), 20, 10, 0, 9)
	top := in.copy.Top()
	if got := run(in, sc, mev{5, 5, tcell.WheelUp, 0}); len(got) != 0 || in.copy.Top() != top-3 {
		t.Errorf("second notch over pane 1: %#v, top %d (was %d)", got, in.copy.Top(), top)
	}
	if got := press(t, in, sc, "x"); !reflect.DeepEqual(got, []Action{send(3, "x")}) {
		t.Errorf("a key while pane 1 scrolls back: %#v", got)
	}
	in.Decorate(sc)
	if sc.Panes[0].Copy == nil || sc.Focused().ID != 3 {
		t.Errorf("pane 1 should show copy mode with pane 3 focused")
	}
	run(in, sc, mev{5, 5, tcell.WheelDown, 0}, mev{5, 5, tcell.WheelDown, 0})
	if _, on := in.CopyPane(); on {
		t.Error("wheeling pane 1 back to the bottom did not leave copy mode")
	}
	// An application that takes the mouse gets the wheel; focus stays too.
	sc.Panes[0].Screen.Modes = term.Modes{MouseButton: true, MouseSGR: true}
	if got := run(in, sc, mev{5, 5, tcell.WheelUp, 0}); !reflect.DeepEqual(got, []Action{send(1, "\x1b[<64;6;5M")}) {
		t.Errorf("wheel forwarded to pane 1: %#v", got)
	}
}
