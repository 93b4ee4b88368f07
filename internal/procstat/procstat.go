package procstat

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"
)

// Tree is what a process tree uses at one instant.
type Tree struct {
	CPU   time.Duration // user+system time, the reaped children's included
	RSS   int64         // resident bytes
	Procs int           // live processes in the tree
}

// userHZ is the unit of the times in /proc/PID/stat: fixed at 100 by the
// kernel's ABI whatever the kernel's own tick rate.
const userHZ = 100

var pageSize = int64(os.Getpagesize())

// ErrNoProc is returned when /proc cannot be read (not Linux, or no procfs).
var ErrNoProc = errors.New("no /proc to read processes from")

// proc is one process as its stat file says.
type proc struct {
	ppid int
	cpu  int64 // ticks: utime + stime + cutime + cstime
	rss  int64 // pages
}

// Sample reads the trees rooted at roots in one pass over /proc and returns
// them by root. A root that is gone is absent from the result. One pass
// serves every root: it reads each process's stat file once.
func Sample(roots []int) (map[int]Tree, error) {
	procs, err := readAll()
	if err != nil {
		return nil, err
	}
	children := make(map[int][]int, len(procs))
	for pid, p := range procs {
		children[p.ppid] = append(children[p.ppid], pid)
	}
	out := make(map[int]Tree, len(roots))
	for _, root := range roots {
		if _, ok := procs[root]; !ok {
			continue
		}
		var t Tree
		var ticks int64
		stack := []int{root}
		seen := map[int]bool{}
		for len(stack) > 0 {
			pid := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if seen[pid] {
				continue
			}
			seen[pid] = true
			p := procs[pid]
			ticks += p.cpu
			t.RSS += p.rss * pageSize
			t.Procs++
			stack = append(stack, children[pid]...)
		}
		t.CPU = time.Duration(ticks) * time.Second / userHZ
		out[root] = t
	}
	return out, nil
}

// readAll reads the stat file of every process. A process that ends while
// it is read is left out.
func readAll() (map[int]proc, error) {
	d, err := os.Open("/proc")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoProc, err)
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoProc, err)
	}
	procs := make(map[int]proc, len(names))
	buf := make([]byte, 1024)
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		if p, ok := readStat(pid, buf); ok {
			procs[pid] = p
		}
	}
	if len(procs) == 0 {
		return nil, ErrNoProc
	}
	return procs, nil
}

// readStat reads /proc/PID/stat with plain system calls (three per process:
// this runs for every process on the machine, once a second while asked).
func readStat(pid int, buf []byte) (proc, bool) {
	fd, err := syscall.Open("/proc/"+strconv.Itoa(pid)+"/stat", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return proc{}, false
	}
	n, err := syscall.Read(fd, buf)
	syscall.Close(fd)
	if err != nil || n <= 0 {
		return proc{}, false
	}
	return parseStat(buf[:n])
}

// parseStat reads the fields melmux uses from a stat line. The command name
// (field 2) is in parentheses and may itself hold spaces and parentheses, so
// the fields are counted from the last ')'.
func parseStat(b []byte) (proc, bool) {
	end := bytes.LastIndexByte(b, ')')
	if end < 0 {
		return proc{}, false
	}
	f := bytes.Fields(b[end+1:])
	// f[0] is field 3 (state): field N is f[N-3].
	if len(f) < 22 {
		return proc{}, false
	}
	num := func(field int) int64 {
		v, _ := strconv.ParseInt(string(f[field-3]), 10, 64)
		return v
	}
	return proc{ppid: int(num(4)), cpu: num(14) + num(15) + num(16) + num(17), rss: num(24)}, true
}
