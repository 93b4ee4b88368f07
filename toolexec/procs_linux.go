package toolexec

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// A command's processes are tracked so that all of them can be killed, even
// those that left its process group (setsid, nohup ... &): without that, a
// timeout killed the group and said so while a setsid child lived on.
//
// Where a cgroup v2 directory is writable (root in a container, a systemd
// user session's delegated subtree), each command gets its own cgroup, made
// beside melmux's own; the shell is cloned straight into it
// (CLONE_INTO_CGROUP), so nothing it starts can leave, and killing is one
// write to cgroup.kill. Elsewhere the tracker finds the processes in /proc by
// process group, by descent from the shell and by an environment variable
// every descendant inherits (MELMUX_RUN_ID), and says in its notes that a
// process that escaped all three would be missed.

// RunIDEnv is the environment variable that marks every process a
// run_command starts, so they can be found without a cgroup.
const RunIDEnv = "MELMUX_RUN_ID"

// cgroupPrefix names the cgroups melmux makes: melmux-<owner pid>-<n>.
const cgroupPrefix = "melmux-"

var (
	cgroupBaseOnce sync.Once
	cgroupBase     string // where commands' cgroups are made; "" when none
	cgroupWhy      string // why there is none
	noCgroups      atomic.Bool
	runSeq         atomic.Uint64
)

// findCgroupBase locates melmux's own cgroup v2 directory from
// /proc/self/cgroup and /proc/self/mountinfo.
func findCgroupBase() (string, string) {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", "no /proc/self/cgroup"
	}
	own := ""
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "0::"); ok {
			own = rest
		}
	}
	if own == "" {
		return "", "no cgroup v2 hierarchy"
	}
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", "no /proc/self/mountinfo"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent major:minor root mountpoint options... - fstype source superoptions
		left, right, ok := strings.Cut(sc.Text(), " - ")
		if !ok || !strings.HasPrefix(right, "cgroup2 ") {
			continue
		}
		fields := strings.Fields(left)
		if len(fields) < 5 {
			continue
		}
		root, mnt := unescapeMount(fields[3]), unescapeMount(fields[4])
		rel, ok := strings.CutPrefix(own, root)
		if !ok || (rel != "" && !strings.HasPrefix(rel, "/") && root != "/") {
			continue
		}
		return filepath.Join(mnt, rel), ""
	}
	return "", "cgroup v2 is not mounted"
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// procTracker follows the processes of one command.
type procTracker struct {
	id    string // RunIDEnv's value for this command
	cgDir string // the command's cgroup; "" when tracked without one
	cgFd  int    // cgDir opened, for CLONE_INTO_CGROUP; -1 without
	why   string // why there is no cgroup
	shell int    // the shell's pid, once started
}

func newProcTracker() *procTracker {
	t := &procTracker{
		id:   fmt.Sprintf("%d-%d-%x", os.Getpid(), runSeq.Add(1), time.Now().UnixNano()&0xffffff),
		cgFd: -1,
	}
	cgroupBaseOnce.Do(func() { cgroupBase, cgroupWhy = findCgroupBase() })
	if cgroupBase == "" || noCgroups.Load() {
		t.why = cgroupWhy
		if t.why == "" {
			t.why = "no writable cgroup"
		}
		return t
	}
	sweepCgroups(cgroupBase)
	dir := filepath.Join(cgroupBase, fmt.Sprintf("%s%d-%d", cgroupPrefix, os.Getpid(), runSeq.Add(1)))
	if err := os.Mkdir(dir, 0o755); err != nil {
		if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
			noCgroups.Store(true) // it will not become writable
		}
		t.why = fmt.Sprintf("cannot make a cgroup in %s: %v", cgroupBase, errors.Unwrap(err))
		return t
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		os.Remove(dir)
		t.why = fmt.Sprintf("cannot open the cgroup %s: %v", dir, err)
		return t
	}
	t.cgDir, t.cgFd = dir, fd
	return t
}

// sweepCgroups removes the empty cgroups of melmux processes that are gone
// (the owner of a non-empty one may have left a server running on purpose;
// rmdir refuses those).
func sweepCgroups(base string) {
	entries, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), cgroupPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		owner, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(owner)
		if err != nil || pid == os.Getpid() || unix.Kill(pid, 0) != unix.ESRCH {
			continue
		}
		unix.Rmdir(filepath.Join(base, e.Name())) // Best effort: EBUSY while populated.
	}
}

// cgrouped reports whether the command runs in its own cgroup.
func (t *procTracker) cgrouped() bool { return t.cgDir != "" }

// sysProcAttr starts the shell in its own process group, into the cgroup
// when there is one, and with PR_SET_PDEATHSIG so that it dies with
// melmux even when melmux is killed with SIGKILL.
func (t *procTracker) sysProcAttr() *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if t.cgFd >= 0 {
		a.UseCgroupFD, a.CgroupFD = true, t.cgFd
	}
	return a
}

// dropCgroup falls back to tracking without a cgroup, when the kernel
// refused to start the shell in it (clone3 missing or filtered).
func (t *procTracker) dropCgroup(err error) {
	if !t.cgrouped() {
		return
	}
	noCgroups.Store(true)
	unix.Close(t.cgFd)
	os.Remove(t.cgDir)
	t.cgDir, t.cgFd = "", -1
	t.why = fmt.Sprintf("starting a process in a cgroup failed: %v", err)
}

func (t *procTracker) started(pid int) { t.shell = pid }

// kill ends every process of the command with SIGKILL and returns a
// description of each one still alive killWait later.
func (t *procTracker) kill() []string {
	deadline := time.Now().Add(killWait)
	for {
		pids := t.members()
		if len(pids) == 0 {
			return nil
		}
		if t.cgrouped() {
			if os.WriteFile(filepath.Join(t.cgDir, "cgroup.kill"), []byte("1"), 0) != nil {
				t.signalAll(pids) // before Linux 5.14
			}
		} else {
			unix.Kill(-t.shell, unix.SIGKILL) // Best effort: the group may be gone.
			t.signalAll(pids)
		}
		if time.Now().After(deadline) {
			return describeProcs(pids)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (t *procTracker) signalAll(pids []int) {
	for _, pid := range pids {
		unix.Kill(pid, unix.SIGKILL) // Best effort: it may have exited.
	}
}

// members lists the command's live processes (zombies are dead already).
func (t *procTracker) members() []int {
	if t.cgrouped() {
		data, err := os.ReadFile(filepath.Join(t.cgDir, "cgroup.procs"))
		if err != nil {
			return nil
		}
		var pids []int
		for _, f := range strings.Fields(string(data)) {
			if pid, err := strconv.Atoi(f); err == nil {
				pids = append(pids, pid)
			}
		}
		return pids
	}
	return t.scanProc()
}

// procStat is what /proc/PID/stat says of a process.
type procStat struct {
	comm       string
	state      byte
	ppid, pgid int
}

func readProcStat(pid int) (procStat, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStat{}, false
	}
	// pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses.
	open, close := bytes.IndexByte(data, '('), bytes.LastIndexByte(data, ')')
	if open < 0 || close < open {
		return procStat{}, false
	}
	f := strings.Fields(string(data[close+1:]))
	if len(f) < 3 || len(f[0]) != 1 {
		return procStat{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	pgid, _ := strconv.Atoi(f[2])
	return procStat{comm: string(data[open+1 : close]), state: f[0][0], ppid: ppid, pgid: pgid}, true
}

// scanProc finds the command's processes without a cgroup: the shell's
// process group, the shell's descendants, and every process carrying this
// command's RunIDEnv.
func (t *procTracker) scanProc() []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	marker := []byte(RunIDEnv + "=" + t.id + "\x00")
	stats := map[int]procStat{}
	var found []int
	in := map[int]bool{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		st, ok := readProcStat(pid)
		if !ok || st.state == 'Z' || st.state == 'X' {
			continue
		}
		stats[pid] = st
		hit := pid == t.shell || (t.shell > 0 && st.pgid == t.shell)
		if !hit {
			if env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid)); err == nil && bytes.Contains(env, marker) {
				hit = true
			}
		}
		if hit {
			in[pid] = true
			found = append(found, pid)
		}
	}
	// Descendants of anything found, in case one cleared its environment.
	for grew := true; grew; {
		grew = false
		for pid, st := range stats {
			if !in[pid] && in[st.ppid] {
				in[pid] = true
				found = append(found, pid)
				grew = true
			}
		}
	}
	return found
}

// describeProcs names processes for a note: pid, command and, when not
// plainly running, why a kill may not have taken yet.
func describeProcs(pids []int) []string {
	var out []string
	for _, pid := range pids {
		st, ok := readProcStat(pid)
		if !ok || st.state == 'Z' {
			continue
		}
		d := fmt.Sprintf("%d (%s", pid, st.comm)
		if st.state == 'D' {
			d += ", in uninterruptible sleep"
		}
		out = append(out, d+")")
	}
	return out
}

// limits says what the tracker cannot promise, for a note; "" with a cgroup.
func (t *procTracker) limits() string {
	if t.cgrouped() {
		return ""
	}
	return "tracked without a cgroup (" + t.why + "): a process that left the process group and cleared its environment would be missed"
}

// close removes the command's cgroup once it is empty; one still holding a
// process left running on purpose stays, and a later sweep removes it.
func (t *procTracker) close() {
	if !t.cgrouped() {
		return
	}
	unix.Close(t.cgFd)
	t.cgFd = -1
	if len(t.members()) == 0 {
		unix.Rmdir(t.cgDir) // Best effort: a process may have just been added.
	}
}

// watchdogScript kills the command's processes unless the first line it
// reads is "done": melmux holds the other end of its input, so EOF without
// "done" means melmux died (even by SIGKILL) while the command ran. $1 is the
// cgroup ("" without one), $2 the process group, $3 RunIDEnv's value.
const watchdogScript = `read x
[ "$x" = done ] && exit 0
if [ -n "$1" ]; then
	echo 1 > "$1/cgroup.kill" 2>/dev/null && exit 0
	for i in 1 2 3; do for p in $(cat "$1/cgroup.procs" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done; done
	exit 0
fi
for i in 1 2; do
	kill -9 -- "-$2" 2>/dev/null
	if printf 'a\0' | grep -qz a 2>/dev/null; then
		# One grep over every environment, not two processes per pid: on a
		# loaded machine the loop below took longer than the command's life.
		for f in $(grep -lsxz "` + RunIDEnv + `=$3" /proc/[0-9]*/environ 2>/dev/null); do
			p=${f#/proc/}; kill -9 "${p%/environ}" 2>/dev/null
		done
		continue
	fi
	for d in /proc/[0-9]*; do
		if tr '\0' '\n' < "$d/environ" 2>/dev/null | grep -qx "` + RunIDEnv + `=$3"; then kill -9 "${d#/proc/}" 2>/dev/null; fi
	done
done`

// watchdogAttr puts the watchdog in its own session: no terminal signal and
// no kill of the command's group reaches it, and it has no
// PR_SET_PDEATHSIG, since it must outlive melmux.
func watchdogAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

func (t *procTracker) cgroupDir() string { return t.cgDir }
