package ui

// Action is something the server does on behalf of one client's input.
// Actions are plain data; the server executes them in order.
type Action interface{ action() }

// SendBytes writes Bytes to pane Pane's input (its PTY).
type SendBytes struct {
	Pane  int
	Bytes []byte
}

// Command is a named session command from a key binding: split-right,
// split-down, new-tab, next-tab, prev-tab, select-tab N, focus
// left|right|up|down, zoom, kill-pane (already confirmed by the person),
// detach, paste-buffer (send the melmux buffer to the focused pane with
// PasteBytes), diff (open the pane's worktree diff with Input.ShowDiff).
// Pane is the focused pane when the key was pressed.
type Command struct {
	Name string
	Args []string
	Pane int
}

// RunLine runs a CLI verb line typed at the ":" prompt or bound with "run":
// Args is the line split into words as a shell would (quotes, backslashes).
type RunLine struct {
	Line string
	Args []string
}

// FocusPane focuses the pane (a click on it).
type FocusPane struct{ Pane int }

// SelectTab makes tab Index active (a click on it in the status line).
type SelectTab struct{ Index int }

// EnterCopy asks the server to start copy mode on Pane for this client: take
// a snapshot of the pane's history and screen and call Input.StartCopy with
// NewCopyMode over it, then Scroll it by Scroll lines (negative is back).
// ByMouse is passed on to the CopyMode (the wheel opened it).
type EnterCopy struct {
	Pane    int
	Scroll  int
	ByMouse bool
	PageUp  bool // then a page up (PgUp after the prefix, tmux's copy-mode -u)
}

// ExitCopy reports that copy mode on Pane ended (the server may drop its snapshot).
type ExitCopy struct{ Pane int }

// Copy puts Text in the melmux paste buffer and, with OSC52, on the system
// clipboard of the client's terminal.
type Copy struct{ Text string }

// DragBorder moves an edge of Pane by Delta cells: its right edge (the
// separator after it) when Vertical, else its bottom edge (the title bar of
// the pane below). Positive Delta moves right or down.
type DragBorder struct {
	Pane     int
	Vertical bool
	Delta    int
}

// AnswerQuestion answers the question pane Pane's agent asks, through the
// same answer command as `melmux answer`: Choice is the option's key,
// Question the text the person read (refused when the pane now asks
// something else).
type AnswerQuestion struct {
	Pane             int
	Question, Choice string
}

// Redraw asks for a new frame for this client (prefix indicator, prompt,
// help or copy view changed) without anything else happening.
type Redraw struct{}

func (SendBytes) action()  {}
func (Command) action()    {}
func (RunLine) action()    {}
func (FocusPane) action()  {}
func (SelectTab) action()  {}
func (EnterCopy) action()  {}
func (ExitCopy) action()   {}
func (Copy) action()       {}
func (DragBorder) action() {}
func (Redraw) action()     {}

func (AnswerQuestion) action() {}

// Start is the server's half of EnterCopy: it builds copy mode over src (the
// pane's snapshot: history then screen) in the pane's content size, with the
// cursor at the pane's cursor (cx, cy), applies the scroll and hands it to in.
func (e EnterCopy) Start(in *Input, src LineSource, width, height, cx, cy int) {
	cm := NewCopyMode(src, width, height, cx, cy)
	cm.ByMouse = e.ByMouse
	if e.Scroll != 0 {
		cm.Scroll(e.Scroll)
	}
	if e.PageUp {
		cm.Page(-1)
	}
	in.StartCopy(e.Pane, cm)
}
