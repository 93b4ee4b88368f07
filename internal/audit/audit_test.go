package audit

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/testreq"
)

// readLines parses every line of the log, failing on any that is not one
// whole entry.
func readLines(t *testing.T, path string) []Entry {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Entry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for n := 1; sc.Scan(); n++ {
		var e Entry
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil || dec.More() {
			t.Fatalf("line %d is no whole entry (%v): %.200q", n, err, sc.Text())
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func perm(t *testing.T, path string) os.FileMode {
	t.Helper()
	st, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode().Perm()
}

func TestAppendWritesJSONLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "melmux", "audit.jsonl")
	l := Open(path)
	if _, err := os.Stat(filepath.Dir(path)); !os.IsNotExist(err) {
		t.Fatalf("Open made the directory: %v", err)
	}
	at := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	before := time.Now()
	for _, e := range []Entry{
		{Time: at, Session: "main", Pane: 2, Kind: "claude", Tool: "Bash", Input: "make test > out.txt && echo <ok>", Decision: "allow", By: ByPolicy, Rule: "make is fine"},
		{Session: "main", Pane: 3, Kind: "codex", Question: "Would you like to run the following command?", Decision: "No, and tell Codex what to do differently", Key: "<Esc>", By: ByPerson},
	} {
		if err := l.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	want0 := `{"time":"2025-03-01T12:00:00Z","session":"main","pane":2,"kind":"claude","tool":"Bash","input":"make test > out.txt && echo <ok>","decision":"allow","by":"policy","rule":"make is fine"}`
	if len(lines) != 2 || lines[0] != want0 {
		t.Fatalf("log:\n%s\nwant first line\n%s", data, want0)
	}
	// Empty fields left out; a zero time is Append's.
	if strings.Contains(lines[1], `"tool"`) || strings.Contains(lines[1], `"rule"`) || !strings.Contains(lines[1], `"key":"<Esc>"`) {
		t.Errorf("second line %s", lines[1])
	}
	if e := readLines(t, path)[1]; e.Time.Before(before) || e.Time.After(time.Now()) {
		t.Errorf("zero time became %v", e.Time)
	}
}

// Goroutines appending at once, each through its own Log and through a
// shared one, leave whole lines (and, under -race, share the Log's file
// safely).
func TestConcurrentAppends(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	shared := Open(path)
	defer shared.Close()
	const writers, each = 8, 50
	big := strings.Repeat("x", 8<<10)
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Go(func() {
			l := shared
			if w%2 == 1 {
				l = Open(path)
				defer l.Close()
			}
			for i := range each {
				errs <- l.Append(Entry{Session: "s", Pane: w, Kind: "claude", Input: big, Decision: strconv.Itoa(i), By: ByPolicy})
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	counts := map[int]int{}
	for _, e := range readLines(t, path) {
		counts[e.Pane]++
	}
	for w := range writers {
		if counts[w] != each {
			t.Errorf("writer %d: %d lines, want %d", w, counts[w], each)
		}
	}
}

const childEnv = "MELMUX_AUDIT_TEST_CHILD" // PATH,WRITER,COUNT

// Processes appending to one file at once leave whole lines: the test
// binary runs itself twice as writers while it writes too.
func TestAppendAcrossProcesses(t *testing.T) {
	if spec := os.Getenv(childEnv); spec != "" {
		appendMany(t, spec)
		return
	}
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	const each = 100
	var children []*exec.Cmd
	for w := 1; w <= 2; w++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestAppendAcrossProcesses$", "-test.count=1")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s,%d,%d", childEnv, path, w, each))
		out := new(strings.Builder)
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		children = append(children, cmd)
	}
	appendMany(t, fmt.Sprintf("%s,0,%d", path, each))
	for _, c := range children {
		if err := c.Wait(); err != nil {
			t.Fatalf("writer process: %v\n%s", err, c.Stdout)
		}
	}
	counts := map[int]int{}
	for _, e := range readLines(t, path) {
		counts[e.Pane]++
	}
	for w := range 3 {
		if counts[w] != each {
			t.Errorf("writer %d: %d lines, want %d", w, counts[w], each)
		}
	}
}

// appendMany appends COUNT entries of writer WRITER to PATH, large ones,
// so that a line written in parts would be cut by another's.
func appendMany(t *testing.T, spec string) {
	parts := strings.Split(spec, ",")
	w, _ := strconv.Atoi(parts[1])
	n, _ := strconv.Atoi(parts[2])
	l := Open(parts[0])
	defer l.Close()
	input := strings.Repeat(strconv.Itoa(w), 64<<10)
	for i := range n {
		if err := l.Append(Entry{Session: "s", Pane: w, Kind: "codex", Input: input, Decision: strconv.Itoa(i), By: ByHook}); err != nil {
			t.Fatal(err)
		}
	}
}

// withUmask runs f under umask u (process-wide: no test here is parallel).
func withUmask(u int, f func()) {
	old := syscall.Umask(u)
	defer syscall.Umask(old)
	f()
}

func TestFileMode(t *testing.T) {
	e := Entry{Session: "s", Kind: "claude", Decision: "deny", By: ByPolicy}
	// 0277 takes the owner's write bit away too (the directory is made
	// first, or it could not be written in).
	for _, umask := range []int{0, 0o022, 0o277} {
		t.Run(fmt.Sprintf("umask %03o", umask), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state", "melmux", "audit.jsonl")
			if umask == 0o277 {
				os.MkdirAll(filepath.Dir(path), 0o700)
			}
			withUmask(umask, func() {
				if err := Open(path).Append(e); err != nil {
					t.Fatal(err)
				}
			})
			if p := perm(t, path); p != 0o600 {
				t.Errorf("file mode %03o", p)
			}
			if p := perm(t, filepath.Dir(path)); p&0o077 != 0 {
				t.Errorf("directory mode %03o", p)
			}
		})
	}
	t.Run("existing loose file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "audit.jsonl")
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chmod(path, 0o666)
		l := Open(path)
		defer l.Close()
		if err := l.Append(e); err != nil {
			t.Fatal(err)
		}
		if p := perm(t, path); p != 0o600 {
			t.Errorf("a 0666 file is still %03o", p)
		}
		// Loosened while the log is open: tightened on the next Append.
		os.Chmod(path, 0o644)
		if err := l.Append(e); err != nil {
			t.Fatal(err)
		}
		if p := perm(t, path); p != 0o600 {
			t.Errorf("a file loosened while open is still %03o", p)
		}
		if n := len(readLines(t, path)); n != 2 {
			t.Errorf("%d lines", n)
		}
	})
}

func TestRefusesWhatIsNoRegularFile(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere")
	os.WriteFile(target, []byte("mine\n"), 0o600)
	link := filepath.Join(dir, "audit.jsonl")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	e := Entry{Decision: "allow", By: ByPolicy}
	if err := Open(link).Append(e); err == nil || !strings.Contains(err.Error(), "is a symlink") {
		t.Errorf("a symlink: %v", err)
	}
	if data, _ := os.ReadFile(target); string(data) != "mine\n" {
		t.Errorf("the symlink's target was written: %q", data)
	}
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- Open(fifo).Append(e) }()
	select {
	case err := <-done:
		if err == nil {
			t.Error("a FIFO was written")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Append waits on a FIFO with no reader")
	}
	// With a reader, the FIFO opens: only the check refuses it.
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := Open(fifo).Append(e); err == nil || !strings.Contains(err.Error(), "is not a regular file") {
		t.Errorf("a FIFO with a reader: %v", err)
	}
}

func TestRefusesAnotherUsersFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(path, os.Getuid()+1000, -1); err != nil {
		testreq.Skip(t, fmt.Sprintf("cannot give the file to another user (not root?): %v", err))
	}
	err := Open(path).Append(Entry{Decision: "allow", By: ByPolicy})
	if err == nil || !strings.Contains(err.Error(), "not to this user") {
		t.Errorf("another user's file: %v", err)
	}
	if data, _ := os.ReadFile(path); len(data) != 0 {
		t.Errorf("another user's file was written: %q", data)
	}
}

// A log moved away (rotated) or removed while open is made anew at the
// path, instead of the entries going to the old file.
func TestFileMovedAwayIsMadeAnew(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	l := Open(path)
	defer l.Close()
	if err := l.Append(Entry{Decision: "first", By: ByPerson}); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	if err := l.Append(Entry{Decision: "second", By: ByPerson}); err != nil {
		t.Fatal(err)
	}
	if got := readLines(t, path); len(got) != 1 || got[0].Decision != "second" {
		t.Errorf("the new file holds %+v", got)
	}
	if p := perm(t, path); p != 0o600 {
		t.Errorf("the new file's mode %03o", p)
	}
	// Moved away and an empty file made in its place, as logrotate's
	// create does.
	if err := os.Rename(path, path+".2"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := l.Append(Entry{Decision: "third", By: ByPerson}); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{".1": "first", ".2": "second", "": "third"} {
		if got := readLines(t, path+file); len(got) != 1 || got[0].Decision != want {
			t.Errorf("audit.jsonl%s holds %+v, want only %s", file, got, want)
		}
	}
}

func TestPath(t *testing.T) {
	home, state := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	for _, tc := range []struct{ xdg, want string }{
		{state, filepath.Join(state, "melmux", "audit.jsonl")},
		{"", filepath.Join(home, ".local", "state", "melmux", "audit.jsonl")},
		{"relative/state", filepath.Join(home, ".local", "state", "melmux", "audit.jsonl")},
	} {
		t.Setenv("XDG_STATE_HOME", tc.xdg)
		if got, err := Path(); err != nil || got != tc.want {
			t.Errorf("XDG_STATE_HOME=%q: %q, %v; want %q", tc.xdg, got, err, tc.want)
		}
	}
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "")
	if got, err := Path(); err == nil {
		t.Errorf("no $XDG_STATE_HOME nor $HOME: %q", got)
	}
}
