package procstat

import (
	"bufio"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

func TestParseStatTakesTheNameAsItIs(t *testing.T) {
	line := "4242 (a (b) c) S 17 4242 4242 34816 4242 4194560 1000 0 0 0 250 50 7 3 20 0 1 0 12345 10485760 300 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n"
	p, ok := parseStat([]byte(line))
	if !ok || p.ppid != 17 || p.cpu != 250+50+7+3 || p.rss != 300 {
		t.Fatalf("parseStat = %+v, %v", p, ok)
	}
	if _, ok := parseStat([]byte("4242 (cut")); ok {
		t.Error("a line without its fields parsed")
	}
}

// startTree runs script under sh with a pipe to its stdin and from its
// stdout, and ends it with the test.
func startTree(t *testing.T, script string) (*exec.Cmd, *bufio.Reader, *os.File) {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", script)
	// A group of its own, so the end of the test kills the children too (a
	// busy loop left behind would burn a core for ever).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	})
	return cmd, bufio.NewReader(out), in.(*os.File)
}

func TestSampleSumsTheTree(t *testing.T) {
	// A shell with two children, one of them busy.
	cmd, out, _ := startTree(t, `sleep 60 & (while :; do :; done) & echo started; wait`)
	if l, _ := out.ReadString('\n'); l != "started\n" {
		t.Fatalf("the tree said %q", l)
	}
	root := cmd.Process.Pid
	first, err := Sample([]int{root, 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := first[1<<30]; ok {
		t.Error("a pid that does not exist has a tree")
	}
	if first[root].Procs < 3 || first[root].RSS <= 0 {
		t.Fatalf("the tree of sh, sleep and a busy subshell: %+v", first[root])
	}
	// The busy child's time shows in the tree's.
	deadline := time.Now().Add(30 * time.Second)
	for {
		now, err := Sample([]int{root})
		if err != nil {
			t.Fatal(err)
		}
		if now[root].CPU > first[root].CPU {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the tree's CPU time did not grow: %v then %v", first[root].CPU, now[root].CPU)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestSampleKeepsTheTimeOfReapedChildren(t *testing.T) {
	// The child burns CPU and exits; its shell reaps it and says so.
	cmd, out, in := startTree(t, `read go; sh -c 'i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done'; echo reaped; read end`)
	root := cmd.Process.Pid
	before, err := Sample([]int{root})
	if err != nil {
		t.Fatal(err)
	}
	in.WriteString("go\n")
	if l, _ := out.ReadString('\n'); l != "reaped\n" {
		t.Fatalf("the tree said %q", l)
	}
	after, err := Sample([]int{root})
	if err != nil {
		t.Fatal(err)
	}
	if after[root].Procs != 1 {
		t.Errorf("only the shell should be left: %+v", after[root])
	}
	if after[root].CPU-before[root].CPU < 10*time.Millisecond {
		t.Errorf("the exited child's time is lost: %v then %v", before[root].CPU, after[root].CPU)
	}
	t.Logf("the child that exited used %v", after[root].CPU-before[root].CPU)
}

func BenchmarkSample20(b *testing.B) {
	roots := make([]int, 20)
	for i := range roots {
		roots[i] = os.Getpid()
	}
	for b.Loop() {
		if _, err := Sample(roots); err != nil {
			b.Fatal(err)
		}
	}
}
