package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"runtime"
	"strconv"
	"syscall"

	"github.com/melmux/melmux/internal/proto"
)

// debug_stats reports what the server process holds (fds, goroutines,
// memory, connections), for diagnosing leaks: the fault suite compares them
// before and after churn. It is for diagnosis, not a stable interface.
func init() {
	register(&Command{Name: "debug_stats", Run: func(ctx context.Context, s *Server, raw json.RawMessage) (any, error) {
		var p struct{}
		if err := decodeParams("debug_stats", raw, &p); err != nil {
			return nil, err
		}
		st := proto.DebugStats{PID: os.Getpid(), FDs: countFDs(), Goroutines: runtime.NumGoroutine(),
			RSSBytes: residentBytes(), Conns: int(s.nconns.Load())}
		var lim syscall.Rlimit
		if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil {
			st.FDLimit = lim.Cur
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		st.HeapBytes = ms.HeapInuse
		s.withLock(func() { st.Panes = len(s.panes) })
		st.Clients = s.clients.count()
		return st, nil
	}})
}

// countFDs counts this process's open fds, the one reading the count aside;
// -1 without /proc.
func countFDs() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(ents) - 1
}

// residentBytes is VmRSS from /proc/self/status; -1 without /proc.
func residentBytes() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if f := bytes.Fields(sc.Bytes()); len(f) >= 2 && string(f[0]) == "VmRSS:" {
			if kb, err := strconv.ParseInt(string(f[1]), 10, 64); err == nil {
				return kb << 10
			}
		}
	}
	return -1
}
