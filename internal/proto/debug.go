package proto

// DebugStats is the answer of debug_stats: what the server process holds
// right now, for diagnosing leaks (fds, goroutines, memory that do not come
// back after clients or panes went). Not a stable interface: fields may be
// added or change meaning between versions.
type DebugStats struct {
	PID        int    `json:"pid"`
	FDs        int    `json:"fds"`        // open file descriptors (-1 where /proc is missing)
	FDLimit    uint64 `json:"fd_limit"`   // the soft RLIMIT_NOFILE
	Goroutines int    `json:"goroutines"` // runtime.NumGoroutine
	RSSBytes   int64  `json:"rss_bytes"`  // resident set (VmRSS; -1 where /proc is missing)
	HeapBytes  uint64 `json:"heap_bytes"` // Go heap in use (HeapInuse)
	Panes      int    `json:"panes"`
	Clients    int    `json:"clients"` // attached terminals
	Conns      int    `json:"conns"`   // open connections of every kind, this one included
}
