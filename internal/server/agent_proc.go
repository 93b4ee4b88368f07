package server

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

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

// procStat is what a lookup needs of /proc/PID/stat.
type procStat struct {
	state      byte // R, S, Z...
	ppid, pgrp int
}

// readStat reads a process's state, parent and process group.
func readStat(pid int) (procStat, bool) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStat{}, false
	}
	// The command name in parentheses may hold spaces and parentheses:
	// the fields follow its last ')'.
	i := bytes.LastIndexByte(raw, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := strings.Fields(string(raw[i+1:])) // state ppid pgrp ...
	if len(f) < 3 || len(f[0]) != 1 {
		return procStat{}, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	pgrp, err2 := strconv.Atoi(f[2])
	return procStat{state: f[0][0], ppid: ppid, pgrp: pgrp}, err1 == nil && err2 == nil
}

// exited reports whether a process has exited (a zombie) or is gone.
func exited(pid int) bool {
	st, ok := readStat(pid)
	return !ok || st.state == 'Z' || st.state == 'X'
}

// haveChildrenFiles reports whether the kernel lists a task's children in
// /proc/PID/task/TID/children (CONFIG_PROC_CHILDREN).
var haveChildrenFiles = sync.OnceValue(func() bool {
	pid := os.Getpid() // the main thread's task is the process's id
	_, err := os.Stat(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	return err == nil
})

// walkGroup lists the processes of process group pgrp, its leader first,
// then their children breadth first (what the leader runs before what
// that runs), at most maxGroupProcs besides the leader. It walks down from
// the leader through each member's children, keeping the children in the
// group, so it reads the files of the group's processes only. It
// does not see a member whose parent is outside the group: one whose
// parent exited (reparented to init or a subreaper), or the child of a
// process that moved to another group. ok is false when a walk cannot work:
// no children files, or the leader has exited (its children, the group's
// members, were reparented out of its reach).
func walkGroup(pgrp int, leader agentstate.Proc) (procs []agentstate.Proc, ok bool) {
	if !haveChildrenFiles() {
		return nil, false
	}
	if exited(pgrp) {
		return nil, false
	}
	out := []agentstate.Proc{leader}
	for i := 0; i < len(out) && len(out) <= maxGroupProcs; i++ {
		kids, ok := children(out[i].PID)
		if !ok && i == 0 {
			return nil, false // the leader exited since
		}
		for _, pid := range kids {
			if len(out) > maxGroupProcs {
				break
			}
			if st, ok := readStat(pid); ok && st.pgrp == pgrp {
				out = append(out, readProc(pid))
			}
		}
	}
	return out, true
}

// children lists a process's children in ascending order, from the
// children files of all its threads: a child's parent is the process
// whichever thread forked it. ok is false when the process is gone.
func children(pid int) (kids []int, ok bool) {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	f, err := os.Open(dir)
	if err != nil {
		return nil, false
	}
	tids, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return nil, false
	}
	for _, tid := range tids {
		raw, err := os.ReadFile(dir + "/" + tid + "/children")
		if err != nil {
			continue // the thread ended since
		}
		for _, w := range strings.Fields(string(raw)) {
			if kid, err := strconv.Atoi(w); err == nil {
				kids = append(kids, kid)
			}
		}
	}
	slices.Sort(kids)
	return kids, true
}

// scanGroup lists the group's processes as walkGroup does by reading the
// stat of every process on the machine (a cost that grows with them all),
// then any left whose parent is outside the group: where a walk cannot
// work.
func scanGroup(pgrp int, leader agentstate.Proc) []agentstate.Proc {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	parent := map[int]int{}
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil || pid == pgrp {
			continue
		}
		if st, ok := readStat(pid); ok && st.pgrp == pgrp {
			parent[pid] = st.ppid
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
