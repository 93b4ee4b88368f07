package server

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/melmux/melmux/pane/agentstate"
)

// maxGroupProcs bounds the processes of one group looked at: a fork bomb
// in a pane must not make each lookup read thousands of files.
const maxGroupProcs = 64

// readProc reads a process's argv and executable from /proc; what cannot be
// read stays empty.
func readProc(pid int) agentstate.Proc {
	p := agentstate.Proc{PID: pid}
	if raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil && len(raw) > 0 {
		p.Argv = strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")
	}
	p.Exe, _ = os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	return p
}

// statIDs reads a process's parent and process group from /proc/PID/stat.
func statIDs(pid int) (ppid, pgrp int, ok bool) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, false
	}
	// The command name in parentheses may hold spaces and parentheses:
	// the fields follow its last ')'.
	i := bytes.LastIndexByte(raw, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(string(raw[i+1:])) // state ppid pgrp ...
	if len(f) < 3 {
		return 0, 0, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	pgrp, err2 := strconv.Atoi(f[2])
	return ppid, pgrp, err1 == nil && err2 == nil
}

// groupProcs lists the processes of process group pgrp, its leader first,
// then their children breadth first (what the leader runs before what
// that runs), then any left whose parent is outside the group.
func groupProcs(pgrp int, leader agentstate.Proc) []agentstate.Proc {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	parent := map[int]int{}
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil || pid == pgrp {
			continue
		}
		if ppid, g, ok := statIDs(pid); ok && g == pgrp {
			parent[pid] = ppid
			if len(parent) >= maxGroupProcs {
				break
			}
		}
	}
	pids := make([]int, 0, len(parent))
	for pid := range parent {
		pids = append(pids, pid)
	}
	slices.Sort(pids)
	out := []agentstate.Proc{leader}
	seen := map[int]bool{pgrp: true}
	for i := 0; i < len(out); i++ {
		for _, pid := range pids {
			if parent[pid] == out[i].PID && !seen[pid] {
				seen[pid] = true
				out = append(out, readProc(pid))
			}
		}
	}
	for _, pid := range pids {
		if !seen[pid] {
			out = append(out, readProc(pid))
		}
	}
	return out
}
