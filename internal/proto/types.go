package proto

import "time"

// Parameters and results of the session commands. The JSON names are the
// interface docs/cli.md documents; the CLI, agents and MCP all see these
// shapes.

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
	// Worktree starts the pane in a new git worktree (branch melmux/NAME)
	// of the repository the pane would start in; WorktreeName names it
	// (and implies Worktree), else melmux picks pane-ID.
	Worktree     bool   `json:"worktree,omitempty"`
	WorktreeName string `json:"worktree_name,omitempty"`
	// Focus gives the new pane the focus and makes its tab active. Without
	// it the attached person's focus stays where it is: keys they type must
	// not go to a pane a script or an agent opened meanwhile.
	Focus bool `json:"focus,omitempty"`
	// Host runs the pane on another machine over ssh (docs/remote.md).
	Host string `json:"host,omitempty"`
	// Place says a lead opens it: with no Host, a command that runs an
	// agent CLI goes to a host of the session's [agent] spawn_hosts.
	Place bool `json:"place,omitempty"`
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
	// Worktree and Branch are set when the pane started in a new worktree.
	Worktree string `json:"worktree,omitempty"`
	Branch   string `json:"branch,omitempty"`
	// Host is where the pane runs when not here, or where placement
	// (Place) put it: "local" for this machine.
	Host string `json:"host,omitempty"`
}

// PaneRef names one pane.
type PaneRef struct {
	Pane int `json:"pane"`
}

// AgentInfo describes the agent running in a pane. For a coding agent
// detected on screen (claude, codex...) Role is "external" and ID "pane-N";
// for a melmux agent (Kind "melmux") Role is "lead" or "worker", ID its uuid,
// and the counters below are what it reported.
type AgentInfo struct {
	ID    string `json:"id"`
	Role  string `json:"role"`
	Kind  string `json:"kind"`
	State string `json:"state"` // working | waiting | idle | exited
	Model string `json:"model"`

	Task         string `json:"task,omitempty"`
	Turn         int    `json:"turn,omitempty"`    // the turn worked on now, or the last one
	Pending      int    `json:"pending,omitempty"` // messages queued behind it
	Legs         int    `json:"legs,omitempty"`
	InputTokens  int    `json:"input_tokens,omitempty"`
	OutputTokens int    `json:"output_tokens,omitempty"`
	// Cost is what the tokens cost at the model's price in the config's
	// [prices] table (per million tokens, in the table's currency); absent
	// when the table has no price for the model.
	Cost *float64 `json:"cost,omitempty"`

	// Evidence says what decided State: "rule claude.permission matched
	// \"Do you want to proceed?\" on row 24; still for 1.2s", "hook:
	// Stop 3s ago". explain lists every signal.
	Evidence string `json:"evidence,omitempty"`

	// Question is what the agent asks while it waits on a person, nil
	// otherwise.
	Question *Question `json:"question,omitempty"`
}

// Question is what an agent waiting on a person asks: from its hook where
// one fired (Claude Code's PermissionRequest), else read from its screen.
type Question struct {
	Text    string           `json:"text"`
	Tool    string           `json:"tool,omitempty"`  // the tool it wants to use, as the agent names it
	Input   string           `json:"input,omitempty"` // the command or file it wants, where known
	Options []QuestionOption `json:"options"`         // in screen order
	// Since is when the question was first seen (RFC 3339).
	Since time.Time `json:"since"`
	// Source says where it was read: "screen" or "hook".
	Source string `json:"source"`
	// Keys says in words which key answers which option.
	Keys string `json:"keys,omitempty"`
}

// QuestionOption is one answer to a question: Key is what to type to
// choose it, in send_keys notation ("1", "y", "<Esc>").
type QuestionOption struct {
	Key   string `json:"key"`
	Label string `json:"label"`
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
	// Worktree is the git worktree the pane was started in (its top
	// directory) and Branch the branch checked out there; null for a pane
	// started without one.
	Worktree *string `json:"worktree"`
	Branch   *string `json:"branch"`
	// Host is where the pane runs (docs/remote.md); null when local.
	Host *string `json:"host"`
	// CPU and RSS are set when list_panes is asked for resources: the
	// pane's process tree's CPU use (percent of one core, over the last
	// sample interval) and resident memory (bytes, summed over processes).
	CPU *float64 `json:"cpu,omitempty"`
	RSS *int64   `json:"rss,omitempty"`
}

// ListPanesParams asks list_panes for more than the default columns.
type ListPanesParams struct {
	// Resources adds cpu and rss to each row (read from /proc, sampled at
	// most once a second).
	Resources bool `json:"resources,omitempty"`
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
	// Literal types Text as it is, as tmux's send-keys -l: no <key> names,
	// no bracketed paste.
	Literal bool `json:"literal,omitempty"`
}

// SendKeysResult is the pane's screen after the keys, once output settled.
type SendKeysResult struct {
	Pane    int      `json:"pane"`
	Bytes   int      `json:"bytes"`   // bytes written to the pane
	Settled bool     `json:"settled"` // false when the wait bound ran out first
	Status  string   `json:"status"`
	Lines   []string `json:"lines,omitempty"`

	// Running names the program in the pane's foreground when it is not the
	// pane's own (a command the keys started in a shell, still running):
	// output that settled is then a pause, not the end.
	Running string `json:"running,omitempty"`

	// Question is the question the pane's agent was asking when the keys
	// were sent (nil for none); QuestionGone says whether it went away.
	Question     *Question `json:"question,omitempty"`
	QuestionGone bool      `json:"question_gone,omitempty"`
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

// DefaultWaitTimeout bounds a wait that gives no timeout: a condition that
// never comes true must not hold a script or an agent for ever unasked.
const DefaultWaitTimeout = 10 * time.Minute

// WaitParams blocks until a condition holds on a pane. Exactly one of Exit,
// IdleMS, Match and State is set.
type WaitParams struct {
	Pane   int    `json:"pane"`
	Exit   bool   `json:"exit,omitempty"`
	IdleMS int64  `json:"idle_ms,omitempty"`
	Match  string `json:"match,omitempty"`
	// Screen lets Match match what is already on the screen too; without it
	// only output that arrives after the wait starts counts.
	Screen bool   `json:"screen,omitempty"`
	State  string `json:"state,omitempty"`
	// ForAgent lets a wait for an agent state (working, waiting) begin on a
	// pane that runs no coding agent yet; without it that is an error.
	ForAgent bool `json:"for_agent,omitempty"`
	// TimeoutMS bounds the wait; 0 means DefaultWaitTimeout, and NoTimeout
	// waits without limit.
	TimeoutMS int64 `json:"timeout_ms,omitempty"`
	NoTimeout bool  `json:"no_timeout,omitempty"`
}

// WaitResult says what held.
type WaitResult struct {
	Pane     int    `json:"pane"`
	Held     string `json:"held"` // a description of the condition that held
	Line     string `json:"line,omitempty"`
	WaitedMS int64  `json:"waited_ms"`
	Evidence string `json:"evidence,omitempty"` // for an agent state: what decided it
	// Question is what the agent asks, for a wait that ended on waiting.
	Question *Question `json:"question,omitempty"`
}

// ResizeParams sets the session size (the window, status line included).
type ResizeParams struct {
	Cols int `json:"cols"`
	Rows int `json:"rows"`
}

// ResizeResult is resize's answer: the size set, and how many clients are
// attached — each takes the size back (the smallest client's) when one
// attaches or its terminal changes size.
type ResizeResult struct {
	Cols    int `json:"cols"`
	Rows    int `json:"rows"`
	Clients int `json:"clients"`
}

// SessionInfo is one row of ls.
type SessionInfo struct {
	Name    string `json:"name"`
	Panes   int    `json:"panes"`
	Clients int    `json:"clients"`
	Created string `json:"created"` // RFC 3339
	// Used is when a client last attached to the session or left it (RFC
	// 3339 with nanoseconds), or when it was created when none has:
	// `melmux attach` with no name picks the session used last.
	Used   string `json:"used,omitempty"`
	PID    int    `json:"pid"`
	Cols   int    `json:"cols"`
	Rows   int    `json:"rows"`
	Socket string `json:"socket"`
	// Error is set by `melmux ls` for a server that holds its socket but did
	// not answer (stopped, stuck): only Name and Socket are known then; and
	// for a saved state that cannot be restored.
	Error string `json:"error,omitempty"`
	// Saved is set by `melmux ls` for a session whose server is gone but
	// whose state was saved (RFC 3339, when): `melmux restore NAME` rebuilds
	// it. Panes, Cols and Rows are the saved ones; no server, no PID.
	Saved string `json:"saved,omitempty"`
}

// RestoreParams rebuilds, in a server that has no pane yet, the session its
// state file saved. Cols and Rows are the session size (0: as saved); Env is
// the restoring client's environment, for the programs started again.
type RestoreParams struct {
	Cols int      `json:"cols,omitempty"`
	Rows int      `json:"rows,omitempty"`
	Env  []string `json:"env,omitempty"`
}

// RestoreResult says what each saved pane became.
type RestoreResult struct {
	Session string         `json:"session"`
	Saved   string         `json:"saved"` // RFC 3339: when the state was written
	Panes   []RestoredPane `json:"panes"`
}

// RestoredPane is one pane started again: its id (the saved one), what runs
// in it, how it was resumed and, when it could not be as saved, why.
type RestoredPane struct {
	ID      int    `json:"id"`
	Tab     int    `json:"tab"`
	Command string `json:"command"`
	How     string `json:"how,omitempty"`
	Note    string `json:"note,omitempty"`
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

// The melmux agent's side of the session: a `melmux agent` process registers
// for the pane it runs in, takes its messages from the session's queue (so a
// person typing in its pane and a lead's send_agent arrive in one order), and
// reports its state. The registration lives as long as the connection that
// made it: when that connection ends, the agent is exited.

// AgentRegisterParams announces a melmux agent running in Pane.
type AgentRegisterParams struct {
	Pane     int    `json:"pane"`
	ID       string `json:"id"`   // uuid
	Role     string `json:"role"` // lead | worker
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
	Task     string `json:"task,omitempty"`
	// An agent that resumes its conversation (--resume, as restore starts
	// one) registers where it is: Turn is its last turn (the next message
	// gets Turn+1) and the counters are the whole conversation's, so the
	// session goes on from there instead of from turn 1 and zero legs.
	Turn         int `json:"turn,omitempty"`
	Legs         int `json:"legs,omitempty"`
	InputTokens  int `json:"input_tokens,omitempty"`
	OutputTokens int `json:"output_tokens,omitempty"`
	// Working says turn Turn is under way, not finished: a worker on a
	// host joining a restored session again mid-turn. Its end is reported
	// as any turn's, and read_agent waits for it.
	Working bool `json:"working,omitempty"`
}

// AgentReportParams is a state change of a registered agent. Turn is the turn
// the state belongs to (0 before the first); Reply is the latest assistant
// text of that turn (set when a turn ends, and may be set while working).
type AgentReportParams struct {
	Pane         int    `json:"pane"`
	ID           string `json:"id"`
	State        string `json:"state"` // working | waiting | idle
	Turn         int    `json:"turn,omitempty"`
	Reply        string `json:"reply,omitempty"`
	Error        string `json:"error,omitempty"` // why the turn failed, when it did
	Legs         int    `json:"legs"`
	InputTokens  int    `json:"input_tokens"`
	OutputTokens int    `json:"output_tokens"`
}

// AgentNextParams takes the next queued message of the agent, blocking until
// one arrives (or WaitMS passes, when > 0: then the result has Turn 0).
type AgentNextParams struct {
	Pane   int    `json:"pane"`
	ID     string `json:"id"`
	WaitMS int64  `json:"wait_ms,omitempty"`
}

// AgentMessage is one message for an agent: its turn id (per agent, from 1,
// in arrival order) and where it came from ("person" typed in the pane, or
// "send_agent", or "task" for the task the agent started with, which it
// queues itself).
type AgentMessage struct {
	Turn int    `json:"turn"`
	Text string `json:"text"`
	From string `json:"from,omitempty"`
}

// SpawnAgentParams opens a pane running a melmux worker agent on Task.
// Provider settings default to the server's environment; a lead passes its
// own, and Env carries the variables they need (KEY=VALUE).
type SpawnAgentParams struct {
	Layout   string   `json:"layout,omitempty"`
	Task     string   `json:"task"`
	Model    string   `json:"model,omitempty"`
	Target   int      `json:"target,omitempty"` // the pane to split; 0 = focused
	Cwd      string   `json:"cwd,omitempty"`
	Provider string   `json:"provider,omitempty"`
	BaseURL  string   `json:"base_url,omitempty"`
	KeyEnv   string   `json:"key_env,omitempty"`
	MaxLegs  int      `json:"max_legs,omitempty"`
	Env      []string `json:"env,omitempty"`
	// Worktree and WorktreeName are open_pane's; the default name is
	// agent-ID (the first 8 characters of the agent's uuid).
	Worktree     bool   `json:"worktree,omitempty"`
	WorktreeName string `json:"worktree_name,omitempty"`
	Focus        bool   `json:"focus,omitempty"` // as open_pane's
	// Host runs the worker on another machine over ssh (docs/remote.md);
	// it belongs to this session all the same. Cwd is then a directory there.
	Host string `json:"host,omitempty"`
	// Place says a lead spawns it: with no Host, the worker goes to a host
	// of the session's [agent] spawn_hosts (docs/remote.md).
	Place bool `json:"place,omitempty"`
}

// SpawnAgentResult names the worker's pane and agent, with its first lines.
type SpawnAgentResult struct {
	ID      int      `json:"id"` // the pane
	AgentID string   `json:"agent_id"`
	Tab     int      `json:"tab"`
	Layout  string   `json:"layout"`
	Note    string   `json:"note,omitempty"`
	Cols    int      `json:"cols"`
	Rows    int      `json:"rows"`
	Lines   []string `json:"lines,omitempty"`
	// Worktree and Branch are set when the worker started in a new worktree.
	Worktree string `json:"worktree,omitempty"`
	Branch   string `json:"branch,omitempty"`
	// Host is where the worker runs when not here, or where placement
	// (Place) put it: "local" for this machine.
	Host string `json:"host,omitempty"`
}

// SendAgentParams gives an agent its next message. From is "person" when the
// agent's own REPL forwards what was typed in its pane; empty otherwise.
type SendAgentParams struct {
	Pane int    `json:"pane"`
	Text string `json:"text"`
	From string `json:"from,omitempty"`
}

// SendAgentResult says what became of the message. For a melmux agent: the
// turn id it got and how many messages are ahead of it. For any other
// program: whether it was submitted (Delivered) or sits typed but
// unsubmitted, and the screen after.
type SendAgentResult struct {
	Pane      int      `json:"pane"`
	Kind      string   `json:"kind"` // melmux, claude, codex, ... or "" for a plain program
	Turn      int      `json:"turn,omitempty"`
	Ahead     int      `json:"ahead,omitempty"`
	Delivered bool     `json:"delivered"`
	Note      string   `json:"note,omitempty"`
	State     string   `json:"state,omitempty"`
	Lines     []string `json:"lines,omitempty"`
}

// ReadAgentParams reads an agent; if a melmux agent is working on a turn,
// it waits up to WaitMS (0 = the default bound, negative = no wait) for it.
type ReadAgentParams struct {
	Pane   int   `json:"pane"`
	WaitMS int64 `json:"wait_ms,omitempty"`
}

// ReadAgentResult is an agent's state and latest reply. Agent is nil for a
// pane where no agent was detected. For panes that are not melmux agents,
// Lines is the screen.
type ReadAgentResult struct {
	Pane     int        `json:"pane"`
	Agent    *AgentInfo `json:"agent"`
	Status   string     `json:"status"` // the pane: running | exited
	Reply    string     `json:"reply,omitempty"`
	Error    string     `json:"error,omitempty"`
	TurnDone bool       `json:"turn_done"`
	WaitedMS int64      `json:"waited_ms"`
	WaitNote string     `json:"wait_note,omitempty"` // why the wait ended, when there was one
	Activity string     `json:"activity"`
	IdleMS   int64      `json:"idle_ms"`
	Lines    []string   `json:"lines,omitempty"`

	// Earlier are the replies and failures of finished turns that no
	// read_agent has returned yet and that Reply and Error do not give,
	// oldest first: a lead that queued a second message before reading
	// the first reply, or before learning the first turn failed, still
	// learns both.
	Earlier []TurnReply `json:"earlier,omitempty"`

	// For an agent CLI (claude, codex, gemini...): the turn read (from
	// send_agent, or one the person started by typing), and where its
	// reply came from: "hook", "transcript" or "screen".
	Turn   int    `json:"turn,omitempty"`
	Source string `json:"source,omitempty"`
	// Question is what the agent asks when the wait ended on a question.
	Question *Question `json:"question,omitempty"`
}

// TurnReply is how one turn ended: its reply, or why it failed.
type TurnReply struct {
	Turn   int    `json:"turn"`
	Reply  string `json:"reply,omitempty"`
	Error  string `json:"error,omitempty"`
	Source string `json:"source,omitempty"` // for an agent CLI: hook, transcript or screen
}

// AnswerParams answers the question of the agent in Pane: Choice is an
// option's key or a word of its label ("yes", "no", "always", "1").
// Question, when set, is the text of the question the caller read: the
// answer is refused if the pane now asks something else.
type AnswerParams struct {
	Pane     int    `json:"pane"`
	Choice   string `json:"choice"`
	Question string `json:"question,omitempty"`
	WaitMS   int64  `json:"wait_ms,omitempty"`
}

// AnswerResult says what was typed and whether the question went away.
type AnswerResult struct {
	Pane     int            `json:"pane"`
	Question *Question      `json:"question"`
	Option   QuestionOption `json:"option"`
	Gone     bool           `json:"gone"`
	State    string         `json:"state,omitempty"` // the agent's state after
	Lines    []string       `json:"lines,omitempty"`
}

// DiffParams asks what a worktree pane holds that its base branch does not.
type DiffParams struct {
	Pane int  `json:"pane"`
	Stat bool `json:"stat,omitempty"` // git's --stat summary instead of the patch
	// StatWidth is the summary's width in columns (default 80).
	StatWidth int `json:"stat_width,omitempty"`
}

// DiffFile is what one file gained and lost; binary files count no lines.
type DiffFile struct {
	Path    string `json:"path"`
	Added   int    `json:"added"`
	Deleted int    `json:"deleted"`
	Binary  bool   `json:"binary,omitempty"`
}

// DiffResult is a worktree pane's changes against the commit its worktree
// started from, committed and uncommitted, new files included.
type DiffResult struct {
	Pane      int        `json:"pane"`
	Worktree  string     `json:"worktree"`
	Branch    string     `json:"branch"`
	Base      string     `json:"base"`
	Files     []DiffFile `json:"files"`
	Added     int        `json:"added"`
	Deleted   int        `json:"deleted"`
	Text      string     `json:"text"`                // the patch, or the --stat summary
	Truncated bool       `json:"truncated,omitempty"` // Text was cut (at 2 MiB)
}

// NotifyParams is an agent's own report of its state, from its hooks
// (`melmux notify`): the strongest signal of the pane's agent state while
// it is fresh.
type NotifyParams struct {
	Pane    int    `json:"pane"`
	State   string `json:"state"`             // working | waiting | idle
	Message string `json:"message,omitempty"` // what the agent says or asks
	Event   string `json:"event,omitempty"`   // the hook's event: "Notification (permission_prompt)", "Stop"
	Kind    string `json:"kind,omitempty"`    // the agent's kind when the reporter knows it: claude, codex

	// Reply is the agent's whole last message of the turn (Claude Code's
	// Stop last_assistant_message, Codex's last-assistant-message).
	Reply string `json:"reply,omitempty"`
	// Tool and Input are what a permission question asks to run
	// (Claude Code's PermissionRequest); Decide asks the server to decide
	// it by the policy and answer with Decision.
	Tool   string `json:"tool,omitempty"`
	Input  string `json:"input,omitempty"`
	Decide bool   `json:"decide,omitempty"`
}

// NotifyResult is the pane's agent after the report, and for a report
// with Decide the policy's decision: "allow", "deny" or "" (ask a person).
type NotifyResult struct {
	Pane     int        `json:"pane"`
	Agent    *AgentInfo `json:"agent"`
	Decision string     `json:"decision,omitempty"`
	Rule     string     `json:"rule,omitempty"`
}

// ExplainResult is every signal and rule behind a pane's agent state.
type ExplainResult struct {
	Pane         int    `json:"pane"`
	Kind         string `json:"kind"` // "" when the pane runs no agent
	KindEvidence string `json:"kind_evidence"`
	Foreground   string `json:"foreground"` // the foreground program
	State        string `json:"state"`
	Evidence     string `json:"evidence"`
	SinceMS      int64  `json:"since_ms"` // how long it has been in State
	// Signals are each signal's and rule's verdict, in the order they are
	// weighed; Decided marks the one that decided.
	Signals []ExplainSignal `json:"signals"`
	// History holds the last changes of state, oldest first.
	History []ExplainChange `json:"history"`
	// Question is what the agent asks while waiting; Answers are the
	// last questions answered in the pane, oldest first, with who or
	// which policy rule answered.
	Question *Question       `json:"question,omitempty"`
	Answers  []ExplainAnswer `json:"answers,omitempty"`
}

// ExplainAnswer is one question answered in a pane.
type ExplainAnswer struct {
	AgoMS    int64  `json:"ago_ms"`
	Question string `json:"question"`
	Tool     string `json:"tool,omitempty"`
	Input    string `json:"input,omitempty"`
	Decision string `json:"decision"`
	By       string `json:"by"`
	Rule     string `json:"rule,omitempty"`
}

// ExplainSignal is one signal's verdict.
type ExplainSignal struct {
	Signal  string `json:"signal"`
	Says    string `json:"says"` // the state it says, "" for none
	Detail  string `json:"detail"`
	Decided bool   `json:"decided,omitempty"`
}

// ExplainChange is one change of a pane's agent state.
type ExplainChange struct {
	AgoMS    int64  `json:"ago_ms"`
	From     string `json:"from"`
	To       string `json:"to"`
	Evidence string `json:"evidence"`
}
