package tmuxtest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Recorder is a tmux pane whose program records every byte tmux sends it, so
// tests can compare their key encodings with what tmux sends for a key name.
type Recorder struct {
	*Server
	t      testing.TB
	out    string
	Target string
}

// NewRecorder starts a private tmux server whose pane first prints setup (a
// printf format, to set modes such as application cursor keys), then records
// its raw input.
func NewRecorder(t testing.TB, setup string) *Recorder {
	t.Helper()
	dir, err := os.MkdirTemp("", "mxrec")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	out := filepath.Join(dir, "in")
	script := fmt.Sprintf("printf '%s'; stty raw -echo; exec cat > '%s'", setup, out)
	r := &Recorder{Server: Start(t, 80, 24, script), t: t, out: out, Target: "%0"}
	// cat creates the file once stty has made the tty raw.
	r.poll(func() bool { _, err := os.Stat(out); return err == nil }, "the recording pane to start")
	return r
}

func (r *Recorder) poll(ok func() bool, what string) {
	r.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			r.t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// WaitFormat waits until the tmux format (e.g. "#{keypad_cursor_flag}") of
// the pane shows want: tmux parses the pane's output in order, so this tells
// when the setup has taken effect.
func (r *Recorder) WaitFormat(format, want string) {
	r.t.Helper()
	r.poll(func() bool {
		out, err := r.Run("display-message", "-p", "-t", r.Target, format)
		return err == nil && strings.TrimSpace(out) == want
	}, fmt.Sprintf("%s to be %s", format, want))
}

// Keys types each tmux key name and returns the bytes the pane received for
// each.
func (r *Recorder) Keys(names []string) []string {
	r.t.Helper()
	var args []string
	for _, n := range names {
		args = append(args, "send-keys", "-t", r.Target, n, ";")
	}
	return r.Collect(args[:len(args)-1], len(names))
}

// Collect runs n tmux commands (args, separated by ";" arguments) as one tmux
// invocation, each followed by a "#" typed as a marker, and returns the bytes
// the pane received for each command: waiting for the markers, not a time,
// tells when everything has arrived.
func (r *Recorder) Collect(args []string, n int) []string {
	r.t.Helper()
	var marked []string
	for _, a := range args {
		if a == ";" {
			marked = append(marked, ";", "send-keys", "-t", r.Target, "-l", "#", ";")
			continue
		}
		marked = append(marked, a)
	}
	marked = append(marked, ";", "send-keys", "-t", r.Target, "-l", "#")
	start := 0
	if data, err := os.ReadFile(r.out); err == nil {
		start = len(data)
	}
	if _, err := r.Run(marked...); err != nil {
		r.t.Fatal(err)
	}
	var data []byte
	r.poll(func() bool {
		data, _ = os.ReadFile(r.out)
		return bytes.Count(data[start:], []byte("#")) >= n
	}, fmt.Sprintf("%d markers", n))
	return strings.Split(string(data[start:]), "#")[:n]
}
