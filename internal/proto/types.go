package proto

// Parameters and results of the session commands. The JSON names are the
// contract (docs/cli.md); the CLI, agents and MCP all see these shapes.

// NewParams creates the first pane of a fresh session.
type NewParams struct {
	Command []string `json:"command,omitempty"` // argv; empty runs $SHELL
	Cwd     string   `json:"cwd,omitempty"`
	Cols    int      `json:"cols,omitempty"` // session size; default 200x50
	Rows    int      `json:"rows,omitempty"`
	Env     []string `json:"env,omitempty"` // the creating client's environment
}

// OpenPaneParams opens a pane.
type OpenPaneParams struct {
	Layout  string   `json:"layout,omitempty"`  // right | down | tab; anything else means tab
	Command string   `json:"command,omitempty"` // a shell command line; empty runs $SHELL
	Argv    []string `json:"argv,omitempty"`    // an exact argv, instead of Command
	Target  int      `json:"target,omitempty"`  // the pane to split; 0 means the focused pane
	Cwd     string   `json:"cwd,omitempty"`
	Title   string   `json:"title,omitempty"`
	NoWait  bool     `json:"no_wait,omitempty"` // do not wait for the first screen
}

// OpenPaneResult names the new pane and where it went.
type OpenPaneResult struct {
	ID     int      `json:"id"`
	Tab    int      `json:"tab"`
	Layout string   `json:"layout"`         // the layout used
	Note   string   `json:"note,omitempty"` // why it differs from the one asked for
	Cols   int      `json:"cols"`
	Rows   int      `json:"rows"`
	Lines  []string `json:"lines,omitempty"` // the first screen
}

// PaneRef names one pane.
type PaneRef struct {
	Pane int `json:"pane"`
}

// AgentInfo describes the agent running in a pane.
type AgentInfo struct {
	ID    string `json:"id"`
	Role  string `json:"role"`
	Kind  string `json:"kind"`
	State string `json:"state"`
	Model string `json:"model"`
}

// PaneInfo is one row of list_panes.
type PaneInfo struct {
	ID       int        `json:"id"`
	Tab      int        `json:"tab"`
	Title    string     `json:"title"`
	Command  string     `json:"command"`
	Cwd      string     `json:"cwd"`
	PID      int        `json:"pid"`
	Status   string     `json:"status"` // running | exited
	ExitCode *int       `json:"exit_code"`
	Signal   *string    `json:"signal"`
	Cols     int        `json:"cols"`
	Rows     int        `json:"rows"`
	Focused  bool       `json:"focused"`
	Activity string     `json:"activity"` // busy | idle
	IdleMS   int64      `json:"idle_ms"`
	Agent    *AgentInfo `json:"agent"`
}

// SendKeysParams types text into a pane.
type SendKeysParams struct {
	Pane int    `json:"pane"`
	Text string `json:"text"`
	// NoWait returns at once instead of waiting for the output to settle.
	NoWait bool `json:"no_wait,omitempty"`
	// SettleMS is how long the output must stay quiet to count as settled
	// (default 300); MaxWaitMS bounds the whole wait (default 5000).
	SettleMS  int `json:"settle_ms,omitempty"`
	MaxWaitMS int `json:"max_wait_ms,omitempty"`
}

// SendKeysResult is the pane's screen after the keys, once output settled.
type SendKeysResult struct {
	Pane    int      `json:"pane"`
	Bytes   int      `json:"bytes"`   // bytes written to the pane
	Settled bool     `json:"settled"` // false when the wait bound ran out first
	Status  string   `json:"status"`
	Lines   []string `json:"lines,omitempty"`
}

// ReadPaneParams reads a pane's screen and, when asked, its history.
type ReadPaneParams struct {
	Pane       int  `json:"pane"`
	Scrollback int  `json:"scrollback,omitempty"` // this many history lines
	All        bool `json:"all,omitempty"`        // the whole history
}

// Point is a cell position.
type Point struct {
	X int `json:"x"`
	Y int `json:"y"`
}

// ReadPaneResult is the pane's text.
type ReadPaneResult struct {
	ID       int      `json:"id"`
	Cols     int      `json:"cols"`
	Rows     int      `json:"rows"`
	Cursor   Point    `json:"cursor"`
	Title    string   `json:"title"`
	Status   string   `json:"status"`
	ExitCode *int     `json:"exit_code,omitempty"`
	Lines    []string `json:"lines"`
	History  []string `json:"history,omitempty"`
}

// WaitParams blocks until a condition holds on a pane. Exactly one of Exit,
// IdleMS, Match and State is set.
type WaitParams struct {
	Pane      int    `json:"pane"`
	Exit      bool   `json:"exit,omitempty"`
	IdleMS    int64  `json:"idle_ms,omitempty"`
	Match     string `json:"match,omitempty"`
	State     string `json:"state,omitempty"`
	TimeoutMS int64  `json:"timeout_ms,omitempty"` // 0 waits without limit
}

// WaitResult says what held.
type WaitResult struct {
	Pane     int    `json:"pane"`
	Held     string `json:"held"` // a description of the condition that held
	Line     string `json:"line,omitempty"`
	WaitedMS int64  `json:"waited_ms"`
}

// ResizeParams sets the session size (the window, status line included).
type ResizeParams struct {
	Cols int `json:"cols"`
	Rows int `json:"rows"`
}

// SessionInfo is one row of ls.
type SessionInfo struct {
	Name    string `json:"name"`
	Panes   int    `json:"panes"`
	Clients int    `json:"clients"`
	Created string `json:"created"` // RFC 3339
	PID     int    `json:"pid"`
	Cols    int    `json:"cols"`
	Rows    int    `json:"rows"`
	Socket  string `json:"socket"`
}

// KillPaneResult says which pane went and whether the session ended with it.
type KillPaneResult struct {
	Pane         int  `json:"pane"`
	SessionEnded bool `json:"session_ended"`
}

// DetachResult counts the clients detach sent away.
type DetachResult struct {
	Detached int `json:"detached"`
}
