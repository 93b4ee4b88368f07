package ui

import "github.com/melmux/melmux/pane/term"

// Rect is a rectangle of screen cells; W or H of zero is empty.
type Rect struct{ X, Y, W, H int }

// Contains reports whether the cell (x, y) lies inside r.
func (r Rect) Contains(x, y int) bool {
	return x >= r.X && x < r.X+r.W && y >= r.Y && y < r.Y+r.H
}

// PaneView is what Draw needs to know about one visible pane.
type PaneView struct {
	ID int
	// Frame is the pane's whole area; its first row is the title bar.
	// Content is the area the pane's screen is drawn in (Frame minus that row).
	Frame, Content Rect
	Title          string // the application's or user's title; Command is shown when empty
	Command        string
	State          string // activity or agent state: "busy", "idle", "waiting"...
	Focused        bool
	Exited         bool
	ExitCode       *int   // set when the process exited with a code
	Signal         string // set when the process was killed by a signal ("SIGKILL")
	// Screen is the pane's screen. While the application holds synchronized
	// output (Modes.SyncOutput) the server passes the last complete screen.
	// Nil draws an empty pane.
	Screen *term.Screen
	// Copy, when set, replaces the live screen with the copy-mode view
	// (frozen scrollback, cursor and selection). Input.Decorate fills it.
	Copy *CopyView
	// Diff is what a pane's git worktree changed, shown as "+A −D" in its
	// border; nil for a pane without a worktree (or not counted yet).
	Diff *DiffCount
	// Alert draws State in the attention colour, as "waiting" is: it says
	// something the person should see (a remote pane's dropped link).
	Alert bool
}

// DiffCount is the lines a worktree holds that its base branch does not.
type DiffCount struct{ Added, Deleted int }

// TabView is one tab in the status line.
type TabView struct {
	Index  int
	Name   string
	Panes  int
	Active bool
	Zoomed bool // one pane fills the tab for now
	// Attention: a pane in it needs the person (a question, a failure);
	// Done: one finished (a turn, its program); each until the person
	// visits the pane or the tab.
	Attention bool
	Done      bool
}

// PromptView is the status-line prompt: the ":" command line or a y/n question.
type PromptView struct {
	Label  string // ":" or "kill pane 3? (y/n)"
	Text   string // what has been typed
	Cursor int    // cursor position in runes within Text
	// Choices are Tab's completions, listed on the row above the prompt;
	// Choice is the one in the line, -1 for none.
	Choices []string
	Choice  int
}

// BindingHelp is one line of the help overlay.
type BindingHelp struct {
	Keys    string // "C-b %"
	Command string // "split-right"
}

// Scene is everything Draw puts on one client's screen for one frame.
type Scene struct {
	Cols, Rows   int // the client's size; the status line is row Rows-1
	Session      string
	Tabs         []TabView
	Panes        []PaneView
	Separators   []Rect // vertical one-column separators between side-by-side panes
	PrefixActive bool
	SizeNote     string // e.g. "80x24 (smallest client)"
	Message      string // a transient message shown in the status line
	Prompt       *PromptView
	Help         bool
	Bindings     []BindingHelp
	Agents       *AgentsView  // the agents view (C-b a) over the panes, nil when closed
	PaneNumbers  bool         // each pane's id over it (C-b q)
	Chooser      *ChooserView // the tab or session chooser (C-b w, C-b s), nil when closed
	StatusStyle  StatusStyle
}

// Focused returns the focused pane, or nil.
func (sc *Scene) Focused() *PaneView {
	for i := range sc.Panes {
		if sc.Panes[i].Focused {
			return &sc.Panes[i]
		}
	}
	return nil
}

// PaneAt returns the pane whose frame holds the cell (x, y), or nil.
func (sc *Scene) PaneAt(x, y int) *PaneView {
	for i := range sc.Panes {
		if sc.Panes[i].Frame.Contains(x, y) {
			return &sc.Panes[i]
		}
	}
	return nil
}
