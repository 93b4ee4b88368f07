package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTick is USER_HZ, the unit of utime and stime in /proc/PID/stat. It is
// 100 on every Linux architecture Go supports.
const clockTick = 10 * time.Millisecond

// procSample is one process's counters at one moment, summed over its
// threads where the kernel keeps them per thread.
type procSample struct {
	Ticks   int64         // utime+stime from /proc/PID/stat (whole process)
	RunTime time.Duration // sum of schedstat run time over threads
	Runs    int64         // sum of schedstat timeslices: times a thread was put on a CPU
	Volun   int64         // sum of voluntary_ctxt_switches: times a thread slept and woke
	Involun int64         // sum of nonvoluntary_ctxt_switches: preemptions
	Threads int
	Sampled time.Time
}

// procDelta is what a process did between two samples.
type procDelta struct {
	CPU     time.Duration // from ticks: 10 ms resolution
	RunTime time.Duration // from schedstat: nanoseconds
	Runs    int64
	Volun   int64
	Involun int64
	Span    time.Duration
	Threads int
}

func (a procSample) to(b procSample) procDelta {
	return procDelta{
		CPU:     time.Duration(b.Ticks-a.Ticks) * clockTick,
		RunTime: b.RunTime - a.RunTime,
		Runs:    b.Runs - a.Runs,
		Volun:   b.Volun - a.Volun,
		Involun: b.Involun - a.Involun,
		Span:    b.Sampled.Sub(a.Sampled),
		Threads: b.Threads,
	}
}

// sampleProc reads pid's counters under root (normally "/proc").
func sampleProc(root string, pid int) (procSample, error) {
	s := procSample{Sampled: time.Now()}
	dir := filepath.Join(root, strconv.Itoa(pid))
	stat, err := os.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		return s, fmt.Errorf("process %d: %w", pid, err)
	}
	u, st, err := parseStatTimes(stat)
	if err != nil {
		return s, fmt.Errorf("process %d: %w", pid, err)
	}
	s.Ticks = u + st
	tasks, err := os.ReadDir(filepath.Join(dir, "task"))
	if err != nil {
		return s, fmt.Errorf("process %d threads: %w", pid, err)
	}
	for _, t := range tasks {
		tdir := filepath.Join(dir, "task", t.Name())
		// A thread may end between ReadDir and here; it is simply not counted.
		if b, err := os.ReadFile(filepath.Join(tdir, "schedstat")); err == nil {
			run, slices, err := parseSchedstat(b)
			if err != nil {
				return s, fmt.Errorf("process %d thread %s: %w", pid, t.Name(), err)
			}
			s.RunTime += run
			s.Runs += slices
		}
		if b, err := os.ReadFile(filepath.Join(tdir, "status")); err == nil {
			v, iv, err := parseCtxtSwitches(b)
			if err != nil {
				return s, fmt.Errorf("process %d thread %s: %w", pid, t.Name(), err)
			}
			s.Volun += v
			s.Involun += iv
		}
		s.Threads++
	}
	return s, nil
}

// parseStatTimes returns utime and stime (fields 14 and 15) of a stat line.
// The command name in parentheses may hold spaces and parentheses, so the
// fields are counted from the last ')'.
func parseStatTimes(b []byte) (utime, stime int64, err error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, fmt.Errorf("stat %q: no ')' after the command name", truncate(b))
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state); utime is field 14, stime field 15.
	if len(f) < 13 {
		return 0, 0, fmt.Errorf("stat %q: %d fields after the command name, want at least 13", truncate(b), len(f))
	}
	if utime, err = strconv.ParseInt(f[11], 10, 64); err != nil {
		return 0, 0, fmt.Errorf("stat utime %q: %w", f[11], err)
	}
	if stime, err = strconv.ParseInt(f[12], 10, 64); err != nil {
		return 0, 0, fmt.Errorf("stat stime %q: %w", f[12], err)
	}
	return utime, stime, nil
}

// parseSchedstat reads "run_ns wait_ns timeslices".
func parseSchedstat(b []byte) (time.Duration, int64, error) {
	f := strings.Fields(string(b))
	if len(f) != 3 {
		return 0, 0, fmt.Errorf("schedstat %q: want 3 numbers", truncate(b))
	}
	run, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		return 0, 0, fmt.Errorf("schedstat run time %q: %w", f[0], err)
	}
	slices, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil {
		return 0, 0, fmt.Errorf("schedstat timeslices %q: %w", f[2], err)
	}
	return time.Duration(run), slices, nil
}

// parseCtxtSwitches reads the two context-switch counters of a status file.
func parseCtxtSwitches(b []byte) (volun, involun int64, err error) {
	found := 0
	for _, line := range strings.Split(string(b), "\n") {
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		var dst *int64
		switch key {
		case "voluntary_ctxt_switches":
			dst = &volun
		case "nonvoluntary_ctxt_switches":
			dst = &involun
		default:
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("status %s %q: %w", key, strings.TrimSpace(val), err)
		}
		*dst = n
		found++
	}
	if found != 2 {
		return 0, 0, fmt.Errorf("status: found %d of the 2 ctxt_switches lines", found)
	}
	return volun, involun, nil
}

func truncate(b []byte) string {
	if len(b) > 80 {
		return string(b[:80]) + "..."
	}
	return string(b)
}
