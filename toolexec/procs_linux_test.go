package toolexec

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/testreq"
)

// sleepSeq makes each test's sleep duration unique, so its processes can be
// told from any other sleep on the machine.
var sleepSeq atomic.Int64

func uniqueSleep() string {
	return strconv.FormatInt(900000+int64(os.Getpid()%1000)*100+sleepSeq.Add(1), 10)
}

// sleepers lists the live processes running `sleep arg`.
func sleepers(arg string) []int {
	entries, _ := os.ReadDir("/proc")
	want := []byte("sleep\x00" + arg + "\x00")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil || !bytes.HasSuffix(cmdline, want) {
			continue
		}
		if st, ok := readProcStat(pid); ok && st.state != 'Z' {
			pids = append(pids, pid)
		}
	}
	return pids
}

// waitSleepers waits until n processes run `sleep arg`.
func waitSleepers(t *testing.T, arg string, n int) {
	t.Helper()
	deadline := time.Now().Add(hangLimit)
	for len(sleepers(arg)) < n {
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d `sleep %s` processes started", len(sleepers(arg)), n, arg)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// noSleepersLeft fails unless every `sleep arg` process is gone soon (they
// were sent SIGKILL; the wait only lets the kernel finish).
func noSleepersLeft(t *testing.T, arg string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		left := sleepers(arg)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("%d `sleep %s` processes outlived the command: %v", len(left), arg, describeProcs(left))
			for _, pid := range left {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// withoutCgroups runs f with cgroups off, as on a system without a
// writable one.
func withoutCgroups(t *testing.T) {
	was := noCgroups.Load()
	noCgroups.Store(true)
	t.Cleanup(func() { noCgroups.Store(was) })
}

// needCgroup skips a test where no cgroup can be made.
func needCgroup(t *testing.T) {
	p := newProcTracker()
	defer p.close()
	if !p.cgrouped() {
		testreq.Skip(t, "no writable cgroup here: "+p.why)
	}
}

// escapes starts processes that leave the shell's process group in every
// way at hand, then waits.
func escapes(arg string) string {
	return fmt.Sprintf("setsid sleep %[1]s & setsid -f sleep %[1]s; nohup sleep %[1]s >/dev/null 2>&1 & "+
		"(sleep %[1]s &) ; sleep %[1]s", arg)
}

func TestRunCommandTimeoutKillsEscapedProcesses(t *testing.T) {
	for _, mode := range []string{"cgroup", "no cgroup"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "no cgroup" {
				withoutCgroups(t)
			} else {
				needCgroup(t)
			}
			w := newWorkspace(t)
			w.ex.CommandTimeout = 1 * time.Second
			arg := uniqueSleep()
			text := w.fails("run_command", obj{"command": escapes(arg)},
				"timed out after 1s; every process it started was killed")
			if mode == "no cgroup" {
				mustContain(t, text, "tracked without a cgroup")
			} else if strings.Contains(text, "tracked without") {
				t.Errorf("with a cgroup the note says: %s", text)
			}
			noSleepersLeft(t, arg)
		})
	}
}

// A process that left the group and cleared its environment, and whose
// parent is gone, is only caught by the cgroup.
func TestRunCommandCgroupCatchesEverything(t *testing.T) {
	needCgroup(t)
	w := newWorkspace(t)
	w.ex.CommandTimeout = 1 * time.Second
	arg := uniqueSleep()
	w.fails("run_command", obj{"command": "setsid -f env -i sleep " + arg + "; sleep " + arg}, "timed out")
	noSleepersLeft(t, arg)
}

// childShell runs one run_command for TestRunCommandDiesWithMelmux.
func childShell() int {
	if os.Getenv("CHILD_NO_CGROUP") != "" {
		noCgroups.Store(true)
	}
	ex := &Executor{Root: os.Getenv("CHILD_ROOT"), Role: RoleBase}
	r := ex.Run(context.Background(), "run_command", fmt.Sprintf(`{"command":%q}`, os.Getenv("CHILD_COMMAND")))
	fmt.Println(r.Text)
	return 0
}

// melmux killed with SIGKILL (or dying any other way) takes the command
// with it: the shell by PR_SET_PDEATHSIG, the rest by the watchdog.
func TestRunCommandDiesWithMelmux(t *testing.T) {
	for _, mode := range []string{"cgroup", "no cgroup"} {
		t.Run(mode, func(t *testing.T) {
			arg := uniqueSleep()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), childEnv+"=shell", "CHILD_ROOT="+t.TempDir(), "CHILD_COMMAND="+escapes(arg))
			if mode == "no cgroup" {
				cmd.Env = append(cmd.Env, "CHILD_NO_CGROUP=1")
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waitSleepers(t, arg, 5)
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			noSleepersLeft(t, arg)
		})
	}
}

// A command that ends normally may leave a process running on purpose
// (output redirected away); it survives, and its cgroup with it.
func TestRunCommandLeavesDetachedServer(t *testing.T) {
	w := newWorkspace(t)
	arg := uniqueSleep()
	mustContain(t, w.ok("run_command", obj{"command": "sleep " + arg + " >/dev/null 2>&1 & echo started"}), "exit_code=0\nstarted\n")
	left := sleepers(arg)
	if len(left) != 1 {
		t.Fatalf("the detached process: %v", left)
	}
	syscall.Kill(left[0], syscall.SIGKILL)
	noSleepersLeft(t, arg)
}

func TestFindCgroupBase(t *testing.T) {
	base, why := findCgroupBase()
	t.Logf("cgroup base %q (%s)", base, why)
	if base != "" {
		if _, err := os.Stat(filepath.Join(base, "cgroup.procs")); err != nil {
			t.Errorf("%s is not a cgroup: %v", base, err)
		}
	}
	if got := unescapeMount(`/a\040b\134c`); got != `/a b\c` {
		t.Errorf("unescapeMount: %q", got)
	}
}
