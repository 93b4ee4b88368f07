package ui

import (
	"fmt"

	"github.com/gdamore/tcell/v2"
	"github.com/melmux/melmux/pane/term"
)

// wheelLines is how far one wheel notch scrolls copy mode.
const wheelLines = 3

// mouseState remembers what the buttons were doing, because tcell reports
// only the buttons held now: presses, releases and drags are told apart by
// comparing with the previous event.
type mouseState struct {
	buttons tcell.ButtonMask // buttons held at the last event
	capture int              // pane that got a forwarded press and gets its drag and release; -1 none
	drag    *borderDrag      // a border being dragged
	sel     *dragSelect      // a text selection being dragged out
	lastX   int              // position of the last forwarded motion
	lastY   int
}

type borderDrag struct {
	pane     int
	vertical bool
	at       int // the column (vertical) or row being dragged
}

// dragSelect is a selection made with the mouse in a pane whose application
// does not take the mouse: pressing sets the anchor, dragging enters copy
// mode and extends the selection, releasing copies it and leaves, as in tmux.
// Coordinates are in the pane's view.
type dragSelect struct {
	pane         int
	x0, y0       int // where the button went down
	lastX, lastY int
	moved        bool // the pointer left the anchor cell
	asked        bool // EnterCopy was sent for this drag
	started      bool // the copy-mode selection is anchored
}

const buttonMask = tcell.Button1 | tcell.Button2 | tcell.Button3

// wantsMouse reports whether an application asked for mouse reports.
func wantsMouse(m term.Modes) bool {
	return m.MouseX10 || m.MouseButton || m.MouseDrag || m.MouseMotion
}

func paneModes(p *PaneView) term.Modes {
	if p == nil || p.Screen == nil || p.Exited {
		return term.Modes{}
	}
	return p.Screen.Modes
}

// Mouse handles one mouse event: clicks focus panes and select tabs, the
// wheel scrolls copy mode (entering it) unless the application asked for
// mouse reports, a press on a separator or a title bar with a pane above it
// drags that border, dragging over text the application does not take the
// mouse for selects it (copied on release), and everything the application
// asked for is forwarded to it in pane coordinates. The client's tcell
// screen must report drags (EnableMouse with MouseDragEvents, or
// MouseMotionEvents for applications that track all motion).
func (in *Input) Mouse(ev *tcell.EventMouse, sc *Scene) []Action {
	x, y := ev.Position()
	held := ev.Buttons() & buttonMask
	prev := in.mouse.buttons
	in.mouse.buttons = held
	mod := ev.Modifiers()
	if sc == nil {
		return nil
	}

	if w := ev.Buttons() & (tcell.WheelUp | tcell.WheelDown); w != 0 {
		return in.wheel(sc, x, y, w == tcell.WheelUp, mod)
	}

	if d := in.mouse.drag; d != nil {
		if held == 0 {
			in.mouse.drag = nil
			return nil
		}
		pos := y
		if d.vertical {
			pos = x
		}
		if delta := pos - d.at; delta != 0 {
			d.at = pos
			return []Action{DragBorder{Pane: d.pane, Vertical: d.vertical, Delta: delta}}
		}
		return nil
	}

	if id := in.mouse.capture; id >= 0 {
		p := paneByID(sc, id)
		m := paneModes(p)
		if p == nil || !wantsMouse(m) {
			in.mouse.capture = -1
			return nil
		}
		px, py := paneXY(p, x, y)
		switch {
		case held == 0:
			in.mouse.capture = -1
			if m.MouseX10 && !(m.MouseButton || m.MouseDrag || m.MouseMotion) {
				return nil // X10 reports presses only
			}
			return sendMouse(p.ID, buttonCode(prev)|modBits(mod), px, py, true, m)
		case held == prev && (m.MouseDrag || m.MouseMotion):
			if px == in.mouse.lastX && py == in.mouse.lastY {
				return nil
			}
			in.mouse.lastX, in.mouse.lastY = px, py
			return sendMouse(p.ID, buttonCode(held)|32|modBits(mod), px, py, false, m)
		}
		return nil
	}

	if d := in.mouse.sel; d != nil {
		return in.dragSelectTo(d, sc, x, y, held&tcell.Button1 != 0)
	}

	pressed := held &^ prev
	if pressed == 0 {
		// Motion with no button: only for applications tracking all motion.
		if held == 0 {
			if p := sc.Focused(); p != nil && p.Content.Contains(x, y) && paneModes(p).MouseMotion {
				px, py := paneXY(p, x, y)
				if px != in.mouse.lastX || py != in.mouse.lastY {
					in.mouse.lastX, in.mouse.lastY = px, py
					return sendMouse(p.ID, 3|32|modBits(mod), px, py, false, paneModes(p))
				}
			}
		}
		return nil
	}

	if sc.Rows > 0 && y == sc.Rows-1 {
		if pressed&tcell.Button1 == 0 || sc.Prompt != nil {
			return nil
		}
		for _, g := range statusLayout(sc, sc.StatusStyle.OrDefault(), sc.Cols) {
			if g.Tab >= 0 && x >= g.X && x < g.X+g.W {
				return []Action{SelectTab{Index: g.Tab}}
			}
		}
		return nil
	}

	if pressed&tcell.Button1 != 0 {
		for _, s := range sc.Separators {
			if s.Contains(x, y) {
				for i := range sc.Panes {
					f := sc.Panes[i].Frame
					if f.X+f.W == s.X && y >= f.Y && y < f.Y+f.H {
						in.mouse.drag = &borderDrag{pane: sc.Panes[i].ID, vertical: true, at: x}
						return nil
					}
				}
			}
		}
	}

	p := sc.PaneAt(x, y)
	if p == nil {
		return nil
	}
	if y == p.Frame.Y {
		if pressed&tcell.Button1 != 0 {
			for i := range sc.Panes {
				f := sc.Panes[i].Frame
				if f.Y+f.H == y && x >= f.X && x < f.X+f.W {
					in.mouse.drag = &borderDrag{pane: sc.Panes[i].ID, at: y}
					return nil
				}
			}
		}
		if !p.Focused {
			return []Action{FocusPane{Pane: p.ID}}
		}
		return nil
	}
	if !p.Focused {
		return []Action{FocusPane{Pane: p.ID}}
	}
	m := paneModes(p)
	inCopy := in.copy != nil && in.copyPane == p.ID
	if !wantsMouse(m) || inCopy {
		if pressed&tcell.Button1 == 0 {
			return nil
		}
		px, py := paneXY(p, x, y)
		in.mouse.sel = &dragSelect{pane: p.ID, x0: px, y0: py, lastX: px, lastY: py}
		if inCopy {
			// A click in copy mode moves the cursor there and drops the selection.
			in.copy.SetViewCursor(px, py)
			if in.copy.Selecting() {
				in.copy.StartSelection()
			}
			return []Action{Redraw{}}
		}
		return nil
	}
	in.mouse.capture = p.ID
	px, py := paneXY(p, x, y)
	in.mouse.lastX, in.mouse.lastY = px, py
	code := buttonCode(pressed)
	if !m.MouseX10 || m.MouseButton || m.MouseDrag || m.MouseMotion {
		code |= modBits(mod)
	}
	return sendMouse(p.ID, code, px, py, false, m)
}

// dragSelectTo follows a mouse selection to (x, y); down is whether the
// button is still held. Copy mode is asked for on the first move; the
// selection is anchored once it is on (whoever started it), and a release
// after a move copies the selection and leaves copy mode.
func (in *Input) dragSelectTo(d *dragSelect, sc *Scene, x, y int, down bool) []Action {
	p := paneByID(sc, d.pane)
	if p == nil {
		in.mouse.sel = nil
		return nil
	}
	px, py := paneXY(p, x, y)
	if px != d.lastX || py != d.lastY {
		d.moved = true
	}
	d.lastX, d.lastY = px, py
	inCopy := in.copy != nil && in.copyPane == d.pane
	if !down {
		in.mouse.sel = nil
		if !d.moved || !inCopy {
			return nil // a plain click, or copy mode never came
		}
		in.extendDrag(d, px, py)
		return in.copySelection()
	}
	if !d.moved {
		return nil
	}
	if !inCopy {
		if d.asked {
			return nil
		}
		d.asked = true
		return []Action{EnterCopy{Pane: d.pane, ByMouse: true}}
	}
	in.extendDrag(d, px, py)
	return []Action{Redraw{}}
}

func (in *Input) extendDrag(d *dragSelect, px, py int) {
	if !d.started {
		in.copy.SetViewCursor(d.x0, d.y0)
		if in.copy.Selecting() {
			in.copy.StartSelection() // drop an older selection
		}
		in.copy.StartSelection()
		d.started = true
	}
	in.copy.SetViewCursor(px, py)
}

// wheel scrolls copy mode on the pane under the pointer or forwards the
// wheel to an application that asked for mouse reports; either way focus
// stays where it was.
func (in *Input) wheel(sc *Scene, x, y int, up bool, mod tcell.ModMask) []Action {
	p := sc.PaneAt(x, y)
	if p == nil || !p.Content.Contains(x, y) {
		return nil
	}
	n := wheelLines
	if up {
		n = -n
	}
	if in.copy != nil && in.copyPane == p.ID {
		in.copy.Scroll(n)
		if !up && in.copy.ByMouse && in.copy.AtBottom() {
			in.copy = nil
			return []Action{ExitCopy{Pane: p.ID}, Redraw{}}
		}
		return []Action{Redraw{}}
	}
	m := paneModes(p)
	if m.MouseButton || m.MouseDrag || m.MouseMotion {
		code := 64 | modBits(mod)
		if !up {
			code = 65 | modBits(mod)
		}
		px, py := paneXY(p, x, y)
		return sendMouse(p.ID, code, px, py, false, m)
	}
	if !up || p.Exited && p.Screen == nil {
		return nil
	}
	// The wheel scrolls the pane under the pointer but leaves focus where
	// it is, as in tmux: reading another pane's history while typing in
	// this one is what the wheel is for. Copy mode waits on an unfocused
	// pane (keys go to the focused one) until the wheel takes it back down.
	return []Action{EnterCopy{Pane: p.ID, Scroll: n, ByMouse: true}}
}

func paneByID(sc *Scene, id int) *PaneView {
	for i := range sc.Panes {
		if sc.Panes[i].ID == id {
			return &sc.Panes[i]
		}
	}
	return nil
}

// paneXY converts screen coordinates to the pane's own, clamped to its
// content (a drag may leave it).
func paneXY(p *PaneView, x, y int) (int, int) {
	px := min(max(x-p.Content.X, 0), max(p.Content.W-1, 0))
	py := min(max(y-p.Content.Y, 0), max(p.Content.H-1, 0))
	return px, py
}

// buttonCode is the xterm button number of the lowest button in b: 0 left,
// 1 middle, 2 right (tcell calls the right button Button2).
func buttonCode(b tcell.ButtonMask) int {
	switch {
	case b&tcell.Button1 != 0:
		return 0
	case b&tcell.Button3 != 0:
		return 1
	case b&tcell.Button2 != 0:
		return 2
	}
	return 3
}

// modBits are the xterm mouse modifier bits: Shift 4, Alt 8, Ctrl 16.
func modBits(m tcell.ModMask) int {
	n := 0
	if m&tcell.ModShift != 0 {
		n |= 4
	}
	if m&tcell.ModAlt != 0 {
		n |= 8
	}
	if m&tcell.ModCtrl != 0 {
		n |= 16
	}
	return n
}

func sendMouse(pane, code, x, y int, release bool, m term.Modes) []Action {
	if b := EncodeMouse(code, x, y, release, m); b != nil {
		return []Action{SendBytes{Pane: pane, Bytes: b}}
	}
	return nil
}

// EncodeMouse returns the report xterm sends for a mouse event at pane cell
// (x, y) (zero-based): code is the button number plus modifier (4, 8, 16) and
// motion (32) bits, 64/65 for the wheel. With SGR mode (1006) it is
// ESC [ < code ; x ; y M (m on release); otherwise the X10 form ESC [ M with
// three bytes offset by 32, where a release is button 3 and positions past
// 222 cannot be sent (nil).
func EncodeMouse(code, x, y int, release bool, m term.Modes) []byte {
	if m.MouseSGR {
		final := 'M'
		if release {
			final = 'm'
		}
		return fmt.Appendf(nil, "\x1b[<%d;%d;%d%c", code, x+1, y+1, final)
	}
	if release {
		code = code&^3 | 3
	}
	if x+1+32 > 255 || y+1+32 > 255 || code+32 > 255 {
		return nil
	}
	return []byte{0x1b, '[', 'M', byte(32 + code), byte(32 + x + 1), byte(32 + y + 1)}
}
