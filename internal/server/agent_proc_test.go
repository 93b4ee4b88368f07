package server

import (
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/testreq"
	"github.com/melmux/melmux/pane/agentstate"
)

// startGroup runs a shell script as the leader of its own process group
// and waits until the group holds want processes (the leader included,
// exited or not); the group is killed at the end of the test.
func startGroup(t testing.TB, script string, want int) (*exec.Cmd, int) {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pgrp := cmd.Process.Pid
	t.Cleanup(func() {
		_ = syscall.Kill(-pgrp, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	deadline := time.Now().Add(10 * time.Second)
	for {
		procs := scanGroup(pgrp, agentstate.Proc{PID: pgrp})
		if len(procs) == want && allExec(procs[1:]) {
			return cmd, pgrp
		}
		if time.Now().After(deadline) {
			t.Fatalf("the group of %q has %d processes, want %d: %+v", script, len(procs), want, procs)
		}
		time.Sleep(5 * time.Millisecond) // processes are forked on their own: nothing to wait on but /proc
	}
}

// allExec reports whether every process runs sleep (a fork not yet exec'd
// still shows the shell).
func allExec(procs []agentstate.Proc) bool {
	for _, p := range procs {
		if len(p.Argv) == 0 || (p.Argv[0] != "sleep" && p.Argv[0] != "/bin/sh") {
			return false
		}
	}
	return true
}

func pids(procs []agentstate.Proc) []int {
	out := make([]int, len(procs))
	for i, p := range procs {
		out[i] = p.PID
	}
	return out
}

// The walk down from the leader finds what the scan of every process
// finds, in the same order: the leader, its children in pid order, then
// theirs.
func TestWalkGroupFindsWhatTheScanFinds(t *testing.T) {
	if !haveChildrenFiles() {
		testreq.Skip(t, "the kernel has no /proc/PID/task/TID/children (CONFIG_PROC_CHILDREN)")
	}
	_, pgrp := startGroup(t, `/bin/sh -c 'sleep 61 & wait' & sleep 62 & sleep 63 & wait`, 5)
	leader := readProc(pgrp)
	walked, ok := walkGroup(pgrp, leader)
	if !ok {
		t.Fatal("the walk did not work on a group with its leader")
	}
	scanned := scanGroup(pgrp, leader)
	if !slices.Equal(pids(walked), pids(scanned)) {
		t.Fatalf("walk %v, scan %v", pids(walked), pids(scanned))
	}
	for i := range walked {
		if !slices.Equal(walked[i].Argv, scanned[i].Argv) || walked[i].Exe != scanned[i].Exe {
			t.Errorf("process %d: walk %+v, scan %+v", i, walked[i], scanned[i])
		}
	}
	// Breadth first: the grandchild sleep 61 comes last.
	if last := walked[len(walked)-1].Argv; !slices.Equal(last, []string{"sleep", "61"}) {
		t.Errorf("the grandchild should come last: %+v", walked)
	}
}

// A group whose leader has exited still has its members, reparented out of
// reach of a walk from the leader: the walk says it cannot see them, the
// scan of every process finds them.
func TestGroupWithoutLeaderIsScanned(t *testing.T) {
	cmd, pgrp := startGroup(t, `sleep 64 & sleep 65 & exit 0`, 3)
	for _, reaped := range []bool{false, true} {
		if reaped {
			_ = cmd.Wait()
		} else {
			deadline := time.Now().Add(10 * time.Second)
			for st, _ := readStat(pgrp); st.state != 'Z'; st, _ = readStat(pgrp) {
				if time.Now().After(deadline) {
					t.Fatalf("the leader never exited: state %q", st.state)
				}
				time.Sleep(5 * time.Millisecond) // nothing to wait on but /proc
			}
		}
		leader := readProc(pgrp)
		if _, ok := walkGroup(pgrp, leader); ok {
			t.Errorf("reaped %v: a walk from an exited leader cannot see its group", reaped)
		}
		var argv [][]string
		for _, p := range scanGroup(pgrp, leader)[1:] {
			argv = append(argv, p.Argv)
		}
		if len(argv) != 2 || argv[0][1] != "64" || argv[1][1] != "65" {
			t.Errorf("reaped %v: the members found %v, want both sleeps", reaped, argv)
		}
	}
}

// BenchmarkGroupProcs is one lookup of a group of four processes, walked
// down from the leader and scanned from every process on the machine.
func BenchmarkGroupProcs(b *testing.B) {
	_, pgrp := startGroup(b, `/bin/sh -c 'sleep 61 & wait' & sleep 62 & sleep 63 & wait`, 5)
	leader := readProc(pgrp)
	b.Run("walk", func(b *testing.B) {
		for b.Loop() {
			walkGroup(pgrp, leader)
		}
	})
	b.Run("scan", func(b *testing.B) {
		for b.Loop() {
			scanGroup(pgrp, leader)
		}
	})
}
