package muxenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// CPUTime is what a process has run so far: the sum over its threads of
// the run time in /proc/PID/task/TID/schedstat (nanoseconds; /proc/PID/stat
// counts 10 ms ticks, too coarse for a run of a tenth of a second). Neither
// multiplexer's server ends threads while it runs, so the sum only grows.
func CPUTime(pid int) (time.Duration, error) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return 0, fmt.Errorf("cpu time: %w", err)
	}
	var sum time.Duration
	for _, t := range tasks {
		b, err := os.ReadFile(filepath.Join(dir, t.Name(), "schedstat"))
		if err != nil {
			continue // the thread ended meanwhile
		}
		f := strings.Fields(string(b))
		if len(f) != 3 {
			return 0, fmt.Errorf("cpu time: %s/%s/schedstat holds %q, want 3 numbers", dir, t.Name(), b)
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("cpu time of %d: %w", pid, err)
		}
		sum += time.Duration(ns)
	}
	return sum, nil
}

// TmuxVersion is what `tmux -V` says of bin, for a report.
func TmuxVersion(bin string) string {
	b, err := exec.Command(bin, "-V").Output()
	if err != nil {
		return "tmux (version unknown)"
	}
	return strings.TrimSpace(string(b))
}

// LoadAvg is the 1, 5 and 15 minute load averages, for a report: figures
// from a shared machine mean little without them.
func LoadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}

// CPUModel is the machine's CPU as /proc/cpuinfo names it, for a report.
func CPUModel() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}
