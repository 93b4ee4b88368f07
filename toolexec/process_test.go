package toolexec

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// childEnv selects a role for the test binary when it is re-executed as a
// separate process by the tests below.
const childEnv = "MELMUX_TOOLEXEC_TEST_CHILD"

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "":
		os.Exit(m.Run())
	case "remember":
		os.Exit(childRemember())
	case "write":
		os.Exit(childWrite())
	case "shell":
		os.Exit(childShell())
	default:
		fmt.Fprintln(os.Stderr, "unknown child role", os.Getenv(childEnv))
		os.Exit(2)
	}
}

// childRemember saves 25 notes through the executor, as one agent process.
func childRemember() int {
	ex := &Executor{Root: os.Getenv("CHILD_ROOT"), Role: RoleWorker, MemoryPath: os.Getenv("CHILD_DB")}
	defer ex.Close()
	id := os.Getenv("CHILD_ID")
	for i := 0; i < 25; i++ {
		r := ex.Run(context.Background(), "remember", fmt.Sprintf(`{"note":"child %s note %02d"}`, id, i))
		if r.IsError {
			fmt.Fprintln(os.Stderr, r.Text)
			return 1
		}
	}
	return 0
}

// childWrite replaces CHILD_FILE with a large content through write_file,
// saying "writing" on stdout just before it starts.
func childWrite() int {
	ex := &Executor{Root: os.Getenv("CHILD_ROOT"), Role: RoleBase}
	content := strings.Repeat("B", writeTestSize)
	args := fmt.Sprintf(`{"path":"big.txt","content":%q}`, content)
	fmt.Println("writing")
	os.Stdout.Sync()
	r := ex.Run(context.Background(), "write_file", args)
	if r.IsError {
		fmt.Fprintln(os.Stderr, r.Text)
		return 1
	}
	return 0
}

// writeTestSize is the size of the interrupted write: large enough that a
// write takes tens of milliseconds, so kills land inside it.
var writeTestSize = map[bool]int{false: 8 << 20, true: 1 << 20}[raceEnabled]

func TestMemoryEightProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 8 processes")
	}
	root := t.TempDir()
	db := filepath.Join(t.TempDir(), "melmux", "memory.db") // created by the racing children
	var wg sync.WaitGroup
	errs := make([]string, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), childEnv+"=remember", "CHILD_ROOT="+root, "CHILD_DB="+db, fmt.Sprintf("CHILD_ID=%d", i))
			if out, err := cmd.CombinedOutput(); err != nil {
				errs[i] = fmt.Sprintf("child %d: %v: %s", i, err, out)
			}
		}(i)
	}
	wg.Wait()
	for _, e := range errs {
		if e != "" {
			t.Error(e)
		}
	}
	ex := &Executor{Root: root, Role: RoleWorker, MemoryPath: db}
	defer ex.Close()
	r := ex.Run(context.Background(), "recall", "")
	if r.IsError {
		t.Fatal(r.Text)
	}
	lines := strings.Split(strings.TrimSpace(r.Text), "\n")
	if !strings.HasPrefix(lines[0], "200 notes for project ") || len(lines) != 201 {
		t.Fatalf("recall returned %d lines, header %q", len(lines), lines[0])
	}
	// Each child's notes come back in the order it wrote them.
	next := make([]int, 8)
	for _, l := range lines[1:] {
		var child, note int
		i := strings.Index(l, "] child ")
		if i < 0 {
			t.Fatalf("bad line %q", l)
		}
		fmt.Sscanf(l[i+2:], "child %d note %d", &child, &note)
		if note != next[child] {
			t.Errorf("child %d: note %d came where %d was expected", child, note, next[child])
		}
		next[child] = note + 1
	}
}

func TestWriteFileKilledMidway(t *testing.T) {
	if testing.Short() {
		t.Skip("kills many child processes")
	}
	root := t.TempDir()
	target := filepath.Join(root, "big.txt")
	old := bytes.Repeat([]byte("A"), writeTestSize/2)

	// One uninterrupted run measures how long a write takes here.
	os.WriteFile(target, old, 0o640)
	full := timeChildWrite(t, root, -1)
	t.Logf("an uninterrupted write_file of %d MB takes %s", writeTestSize>>20, full)

	rounds := map[bool]int{false: 16, true: 8}[raceEnabled]
	outcomes := map[string]int{}
	for i := 0; i < rounds; i++ {
		if err := os.WriteFile(target, old, 0o640); err != nil {
			t.Fatal(err)
		}
		delay := full * time.Duration(i) / time.Duration(rounds/2) // from at once to twice a whole write
		timeChildWrite(t, root, delay)
		data, err := os.ReadFile(target)
		if err != nil {
			t.Fatalf("round %d: %v", i, err)
		}
		switch {
		case bytes.Equal(data, old):
			outcomes["old"]++
		case len(data) == writeTestSize && bytes.Count(data, []byte("B")) == writeTestSize:
			outcomes["new"]++
		default:
			t.Fatalf("round %d (kill after %s): torn file: %d bytes, %d A, %d B", i, delay, len(data),
				bytes.Count(data, []byte("A")), bytes.Count(data, []byte("B")))
		}
		if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o640 {
			t.Errorf("round %d: mode %v", i, fi.Mode())
		}
	}
	t.Logf("after kill -9 at spread moments: %v (never torn)", outcomes)
	if outcomes["old"] == 0 {
		t.Errorf("no kill landed before the rename; the test did not exercise an interrupted write")
	}
}

// timeChildWrite runs the writing child and kills it with SIGKILL delay after
// it says it starts writing (never, for a negative delay); it returns how
// long the child ran after starting to write.
func timeChildWrite(t *testing.T, root string, delay time.Duration) time.Duration {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=write", "CHILD_ROOT="+root)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if line != "writing\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child said %q: %s", line, stderr.String())
	}
	start := time.Now()
	if delay >= 0 {
		time.Sleep(delay)
		cmd.Process.Signal(syscall.SIGKILL)
	}
	err = cmd.Wait()
	if delay < 0 && err != nil {
		t.Fatalf("child: %v: %s", err, stderr.String())
	}
	return time.Since(start)
}
