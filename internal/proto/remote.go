package proto

// A pane on another host (docs/remote.md) is a mirror: the local pane runs
// `melmux __remote`, which reaches, over ssh, `melmux __bridge` on the host,
// a client of the host's own session that owns the real pane. The bridge
// reads the pane's output from an offset (pane_stream) and types into it
// (pane_input); the local side tells its server the link's state
// (remote_link).

// PaneStreamParams asks for a pane's output from an offset.
type PaneStreamParams struct {
	Pane int `json:"pane"`
	// From is the offset of the first byte wanted; -1 asks for a repaint
	// of the screen as it is and the offset after it.
	From int64 `json:"from"`
	// Max bounds the bytes of one answer (0: StreamChunk).
	Max int `json:"max,omitempty"`
	// WaitMS is how long to wait for output when there is none yet (0
	// answers at once).
	WaitMS int `json:"wait_ms,omitempty"`
}

// StreamChunk is the most output one pane_stream answer carries unless
// asked for less.
const StreamChunk = 256 << 10

// StreamRetain is how many bytes of a streamed pane's output its server
// keeps for a mirror that comes back after a dropped link.
const StreamRetain = 4 << 20

// PaneStreamResult is output, or a repaint that stands for the output
// before Next, which is where the next call goes on.
type PaneStreamResult struct {
	Data []byte `json:"data,omitempty"`
	Next int64  `json:"next"`
	// Repaint says Data draws the screen afresh: the bytes asked for were
	// no longer kept (or a repaint was asked for).
	Repaint bool `json:"repaint,omitempty"`
	// Exited is set once the program ended and every byte it wrote was
	// answered.
	Exited *RemoteExit `json:"exited,omitempty"`
	Cols   int         `json:"cols"`
	Rows   int         `json:"rows"`
	// Foreground is what the pane runs now, as its session looked it up:
	// a mirror's own process is melmux __remote, so only the host knows.
	Foreground *RemoteForeground `json:"foreground,omitempty"`
}

// RemoteForeground is a remote pane's foreground program and the coding
// agent among its processes (Kind "" for none), Why its evidence.
type RemoteForeground struct {
	Program string `json:"program,omitempty"`
	Kind    string `json:"kind,omitempty"`
	Why     string `json:"why,omitempty"`
}

// RemoteExit is how a remote pane's program ended.
type RemoteExit struct {
	ExitCode *int    `json:"exit_code,omitempty"`
	Signal   *string `json:"signal,omitempty"`
}

// PaneInputParams types bytes into a pane as part of a numbered stream:
// At is the offset of Data's first byte in the stream, so bytes sent again
// after a dropped link are typed once.
type PaneInputParams struct {
	Pane   int    `json:"pane"`
	Stream string `json:"stream"`
	At     int64  `json:"at"`
	Data   []byte `json:"data,omitempty"`
}

// PaneInputResult says how much of the stream the pane has taken.
type PaneInputResult struct {
	Received int64 `json:"received"`
}

// Link states of a pane on another host.
const (
	LinkConnecting   = "connecting"
	LinkConnected    = "connected"
	LinkDisconnected = "disconnected"
	LinkFailed       = "failed"
	// HostUnused is the state `hosts` gives a host of the config's
	// [agent] spawn_hosts or [hosts] that no pane runs on now.
	HostUnused = "unused"
	// HostLocal is the state `hosts` gives this machine ("local" in the
	// config), listed when the config names it.
	HostLocal = "local"
)

// RemoteLinkParams is what a remote pane's local side reports.
type RemoteLinkParams struct {
	Pane  int    `json:"pane"`
	Host  string `json:"host"`
	State string `json:"state"`
	// Error says why the link failed or dropped.
	Error string `json:"error,omitempty"`
	// Session is the session on the host that owns the pane.
	Session string `json:"session,omitempty"`
	// Foreground, when set, is what the pane runs now on the host; with
	// State empty the report says only that.
	Foreground *RemoteForeground `json:"foreground,omitempty"`
	// Usage, when set, is what the pane's process tree uses on the host,
	// as the host's session read it; with State empty the report says only
	// that.
	Usage *RemoteUsage `json:"usage,omitempty"`
	// RTTMS, when set, is the link's round trip in milliseconds: the
	// median of its last pings over the pane's ssh channel. With State
	// empty the report says only that.
	RTTMS *float64 `json:"rtt_ms,omitempty"`
}

// RemoteUsage is a remote pane's process tree's CPU use (percent of one
// core) and resident memory, read on its host.
type RemoteUsage struct {
	CPU float64 `json:"cpu"`
	RSS int64   `json:"rss"`
}

// HostInfo is a row of `melmux hosts`.
type HostInfo struct {
	Host string `json:"host"`
	// State is the worst of its panes' links (connected, connecting,
	// disconnected, failed); unused for a host of the config that no pane
	// runs on, local for this machine.
	State string `json:"state"`
	// Since is when the state began (unix milliseconds).
	Since int64  `json:"since"`
	Error string `json:"error,omitempty"`
	Panes []int  `json:"panes"`
	// LatencyMS is the round trip over the host's live links in
	// milliseconds (the median of its connected panes' figures, each the
	// median of that link's last pings); null while none is connected or
	// none has measured yet.
	LatencyMS *float64 `json:"latency_ms"`
	// Agents counts the agents running on the host as a lead's placement
	// counts them (melmux workers, agent CLIs, panes placed for one);
	// MaxAgents is its [hosts] max_agents, 0 for no bound.
	Agents    int `json:"agents"`
	MaxAgents int `json:"max_agents"`
}

// HostsResult lists the hosts the session's panes run on, and those the
// config names for placement.
type HostsResult struct {
	Hosts []HostInfo `json:"hosts"`
}
