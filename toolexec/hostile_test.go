package toolexec

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hangLimit is how long a call may take before a test calls it hung. It is
// a failure detector, not a speed assertion: every call below returns in
// milliseconds unless it blocks forever.
const hangLimit = 30 * time.Second

// runBounded runs a tool call and fails the test if it does not return.
func (w *workspace) runBounded(name string, arguments any) Result {
	w.t.Helper()
	done := make(chan Result, 1)
	go func() { done <- w.run(name, arguments) }()
	select {
	case r := <-done:
		return r
	case <-time.After(hangLimit):
		w.t.Fatalf("%s %v: no result after %s: the call is hung", name, arguments, hangLimit)
		return Result{}
	}
}

func TestFileToolsRefuseSpecialFiles(t *testing.T) {
	w := newWorkspace(t)
	if err := syscall.Mkfifo(filepath.Join(w.root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", filepath.Join(w.root, "sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	os.MkdirAll(filepath.Join(w.root, PlansDir), 0o755)
	if err := syscall.Mkfifo(filepath.Join(w.root, PlansDir, "fifo-plan.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Symlink("fifo", filepath.Join(w.root, "link-to-fifo"))

	for _, tc := range []struct {
		tool      string
		args      obj
		fragments []string
	}{
		{"read_file", obj{"path": "fifo"}, []string{"fifo is a named pipe (FIFO)", "only regular files"}},
		{"read_file", obj{"path": "link-to-fifo"}, []string{"fifo is a named pipe (FIFO)"}},
		{"read_file", obj{"path": "sock"}, []string{"sock is a socket", "only regular files"}},
		{"edit_file", obj{"path": "fifo", "old_string": "a", "new_string": "b"}, []string{"fifo is a named pipe (FIFO)"}},
		{"write_file", obj{"path": "fifo", "content": "x"}, []string{"fifo is a named pipe (FIFO)", "only regular files can be replaced"}},
		{"write_file", obj{"path": "sock", "content": "x"}, []string{"sock is a socket"}},
		{"list_dir", obj{"path": "fifo"}, []string{"fifo is a named pipe (FIFO), not a directory"}},
		{"create_pdf", obj{"content": "# x", "output_path": "sock.pdf"}, nil}, // set up below
		{"write_plan", obj{"title": "FIFO plan", "markdown": "x"}, []string{"fifo-plan.md", "named pipe"}},
	} {
		if tc.tool == "create_pdf" {
			if err := syscall.Mkfifo(filepath.Join(w.root, "sock.pdf"), 0o644); err != nil {
				t.Fatal(err)
			}
			tc.fragments = []string{"sock.pdf is a named pipe (FIFO)"}
		}
		r := w.runBounded(tc.tool, tc.args)
		if !r.IsError {
			t.Errorf("%s %v: want an error, got %s", tc.tool, tc.args, r.Text)
			continue
		}
		mustContain(t, r.Text, tc.fragments...)
	}
	// Nothing replaced the special files.
	for _, name := range []string{"fifo", "sock", "sock.pdf"} {
		fi, err := os.Lstat(filepath.Join(w.root, name))
		if err != nil || fi.Mode().IsRegular() {
			t.Errorf("%s was replaced: %v %v", name, fi, err)
		}
	}
	// grep and find_files walk past them, and past a named pipe where an
	// ignore file is read.
	w.write("a.txt", "needle\n")
	os.MkdirAll(filepath.Join(w.root, ".git", "info"), 0o755)
	if err := syscall.Mkfifo(filepath.Join(w.root, ".git", "info", "exclude"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustContain(t, w.runBounded("grep", obj{"pattern": "needle"}).Text, "a.txt:1:needle")
	mustContain(t, w.runBounded("find_files", obj{"pattern": "*"}).Text, "fifo", "a.txt")

	// Outside the workspace on purpose, a device is refused before it is
	// read: /dev/zero would never end.
	w.ex.AllowOutside = true
	mustContain(t, w.runBounded("read_file", obj{"path": "/dev/zero"}).Text, "/dev/zero is a character device")
	mustContain(t, w.runBounded("edit_file", obj{"path": "/dev/zero", "old_string": "a", "new_string": "b"}).Text, "character device")
}

// A named pipe swapped in for a regular file between the check and the open
// is caught on the descriptor and does not block the open.
func TestReadFileFIFOSwappedIn(t *testing.T) {
	w := newWorkspace(t)
	w.write("plain.txt", "x\n")
	tgt, err := w.ex.resolveForTest("plain.txt")
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(w.root, "plain.txt"))
	if err := syscall.Mkfifo(filepath.Join(w.root, "plain.txt"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		f, _, err := w.ex.openRegular(tgt, "")
		if f != nil {
			f.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("openRegular of a FIFO: %v", err)
		}
	case <-time.After(hangLimit):
		t.Fatal("opening a FIFO blocked")
	}
}

func (e *Executor) resolveForTest(p string) (target, error) {
	if err := e.init(); err != nil {
		return target{}, err
	}
	return e.resolve(p)
}

// Every file tool stops when its context ends.
func TestFileToolsHonourContext(t *testing.T) {
	w := newWorkspace(t)
	w.write("a.txt", strings.Repeat("line\n", 10000))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		tool string
		args string
	}{
		{"read_file", `{"path":"a.txt"}`},
		{"list_dir", `{}`},
		{"write_file", `{"path":"b.txt","content":"x"}`},
		{"edit_file", `{"path":"a.txt","old_string":"line","new_string":"LINE","replace_all":true}`},
		{"write_plan", `{"title":"t","markdown":"x"}`},
		{"grep", `{"pattern":"line"}`},
		{"find_files", `{"pattern":"*.txt"}`},
		{"run_command", `{"command":"echo hi"}`},
	} {
		r := w.ex.Run(ctx, tc.tool, tc.args)
		if !r.IsError || !strings.Contains(r.Text, "canceled") {
			t.Errorf("%s with a cancelled context: %v %q", tc.tool, r.IsError, clip(r.Text, 200))
		}
	}
	if _, err := os.Stat(filepath.Join(w.root, "b.txt")); err == nil {
		t.Error("a cancelled write_file wrote")
	}
	if got := w.read("a.txt"); strings.Contains(got, "LINE") {
		t.Error("a cancelled edit_file edited")
	}
}

// stuckPanes is a pane tool blocked where its context cannot reach, as a
// system call stuck in the kernel would be.
type stuckPanes struct{ entered, release chan struct{} }

func (p stuckPanes) Call(ctx context.Context, name string, args json.RawMessage) (string, error) {
	close(p.entered)
	<-p.release
	return "too late", nil
}

// A tool that does not stop when its context ends is left behind: the
// caller gets its answer abandonGrace later.
func TestRunAbandonsAStuckTool(t *testing.T) {
	was := abandonGrace
	abandonGrace = 50 * time.Millisecond
	defer func() { abandonGrace = was }()
	panes := stuckPanes{entered: make(chan struct{}), release: make(chan struct{})}
	defer close(panes.release)
	ex := &Executor{Root: t.TempDir(), Panes: panes}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Result, 1)
	go func() { done <- ex.Run(ctx, "list_panes", "") }()
	<-panes.entered
	cancel()
	select {
	case r := <-done:
		if !r.IsError {
			t.Fatalf("want an error result, got %q", r.Text)
		}
		mustContain(t, r.Text, "list_panes: context canceled, and the tool did not stop within 50ms", "left behind")
	case <-time.After(hangLimit):
		t.Fatal("Run waited for a tool stuck beyond its context")
	}
}
