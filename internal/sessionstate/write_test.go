package sessionstate

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// childEnv makes the test binary, re-executed, a writer of state files.
const childEnv = "MELMUX_SESSIONSTATE_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "write" {
		os.Exit(childWrite(os.Getenv("CHILD_FILE")))
	}
	os.Exit(m.Run())
}

// bigState is a state whose every pane carries seq, with screens big enough
// that one write takes a while, so kills land inside writes.
func bigState(seq int) *State {
	st := &State{Version: Version, Session: "main", Saved: time.Unix(int64(seq), 0).UTC(), Cols: 200, Rows: 50,
		Layout: "active=0; tab \"\" focus=1 1"}
	for i := 1; i <= 20; i++ {
		p := Pane{ID: i, Argv: []string{"/bin/sh"}, Command: "/bin/sh", Cwd: "/tmp", Title: strconv.Itoa(seq)}
		for r := 0; r < MaxScreenLines; r++ {
			p.Screen = append(p.Screen, fmt.Sprintf("%d %s", seq, strings.Repeat("x", 150)))
		}
		st.Panes = append(st.Panes, p)
	}
	return st
}

// childWrite writes states 1, 2, 3... to path without end, saying "seq N"
// on stdout once state N is in place.
func childWrite(path string) int {
	out := bufio.NewWriter(os.Stdout)
	for seq := 1; ; seq++ {
		b, err := json.Marshal(bigState(seq))
		if err == nil {
			err = Write(path, b)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Fprintf(out, "seq %d\n", seq)
		out.Flush()
	}
}

// checkWhole reads path and fails unless it is one whole state: valid
// JSON, every pane of the same seq. It returns that seq.
func checkWhole(t *testing.T, path string) int {
	t.Helper()
	st, err := Read(path)
	if err != nil {
		t.Fatalf("torn or unreadable state file: %v", err)
	}
	seq := int(st.Saved.Unix())
	for _, p := range st.Panes {
		if p.Title != strconv.Itoa(seq) || len(p.Screen) != MaxScreenLines || !strings.HasPrefix(p.Screen[MaxScreenLines-1], strconv.Itoa(seq)+" ") {
			t.Fatalf("state %d mixes in pane %d of another write (title %q)", seq, p.ID, p.Title)
		}
	}
	return seq
}

// TestWriteKilledAtRandom kills a writer with SIGKILL at random moments
// while it replaces the state file again and again: the file is always one
// whole state, the last one the writer finished or the one it was writing.
func TestWriteKilledAtRandom(t *testing.T) {
	if testing.Short() {
		t.Skip("kills many child processes")
	}
	path := filepath.Join(t.TempDir(), "sessions", "main.json")
	rounds := 30
	landed := map[string]int{}
	for i := 0; i < rounds; i++ {
		before := -1
		if _, err := os.Stat(path); err == nil {
			before = checkWhole(t, path)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"=write", "CHILD_FILE="+path)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait for a first write so the next kill finds an old file, then
		// kill at a random moment of the following writes.
		r := bufio.NewReader(stdout)
		if line, err := r.ReadString('\n'); err != nil || line != "seq 1\n" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("round %d: writer said %q, %v", i, line, err)
		}
		time.Sleep(time.Duration(rand.IntN(40_000)) * time.Microsecond)
		cmd.Process.Signal(syscall.SIGKILL)
		last := 1
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				break
			}
			last, _ = strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "seq ")))
		}
		cmd.Wait()
		got := checkWhole(t, path)
		if temps, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*"+tempMarker+"*")); len(temps) > 0 {
			landed["killed inside a write (its temporary file left)"]++
			RemoveTemps(path)
		}
		switch {
		case got == last:
			landed["the last finished write"]++
		case got == last+1:
			landed["killed after the rename, before it said so"]++
		default:
			t.Fatalf("round %d: the file holds state %d; the writer had finished %d (before the round: %d)", i, got, last, before)
		}
	}
	RemoveTemps(path)
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*"+tempMarker+"*"))
	if len(left) != 0 {
		t.Errorf("RemoveTemps left %v", left)
	}
	t.Logf("after %d kills at random moments: %v; the file was whole every time", rounds, landed)
}
