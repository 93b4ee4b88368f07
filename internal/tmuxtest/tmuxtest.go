package tmuxtest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/testreq"
)

// Require returns the tmux binary. Without tmux the test is skipped, unless
// MELMUX_REQUIRE_TMUX=1 or MELMUX_REQUIRE_TOOLS=1 (CI) makes that a failure.
func Require(t testing.TB) string {
	t.Helper()
	return testreq.Tool(t, "tmux", requireGate)
}

// requireGate is the older gate of the tmux tests, which .ci/run still sets.
const requireGate = "MELMUX_REQUIRE_TMUX"

// ReferenceVersion is the tmux the agreement corpus is described against
// (docs/testing.md): another release draws some streams differently, and
// its rows would be taken for melmux's mistakes, or hide them.
const ReferenceVersion = "tmux 3.3a"

var version struct {
	once sync.Once
	v    string
	err  error
}

// RequireReference is Require for a test that takes tmux's screens as the
// truth: a tmux other than ReferenceVersion is a skip, or a failure under
// CI's gates.
func RequireReference(t testing.TB) string {
	t.Helper()
	tmux := Require(t)
	version.once.Do(func() {
		out, err := exec.Command(tmux, "-V").Output()
		version.v, version.err = strings.TrimSpace(string(out)), err
	})
	if version.err != nil {
		t.Fatalf("%s -V: %v", tmux, version.err)
	}
	if version.v != ReferenceVersion {
		testreq.Skip(t, fmt.Sprintf("the tmux here is %q; the corpus's reference is %q", version.v, ReferenceVersion), requireGate)
	}
	return tmux
}

// Server is a private tmux server.
type Server struct {
	t    testing.TB
	tmux string
	sock string
}

// Start starts a private tmux server with one session of cols x rows running
// shellCmd. It is killed when the test ends.
func Start(t testing.TB, cols, rows int, shellCmd string) *Server {
	t.Helper()
	tmux := Require(t)
	dir, err := os.MkdirTemp("", "mxtmux")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{t: t, tmux: tmux, sock: filepath.Join(dir, "s")}
	t.Cleanup(func() {
		_, _ = s.Run("kill-server")
		os.RemoveAll(dir)
	})
	if _, err := s.Run("start-server", ";", "set", "-g", "history-limit", "100000", ";",
		"set", "-g", "status", "off", ";", "set", "-g", "escape-time", "0", ";",
		"new-session", "-d", "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows), shellCmd); err != nil {
		t.Fatal(err)
	}
	return s
}

// Run runs a tmux command against the server.
func (s *Server) Run(args ...string) (string, error) {
	cmd := exec.Command(s.tmux, append([]string{"-u", "-S", s.sock, "-f", "/dev/null"}, args...)...)
	cmd.Env = append(os.Environ(), "LANG=C.UTF-8", "LC_ALL=C.UTF-8", "TMUX=")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("tmux %s: %v: %s", strings.Join(args, " "), err, errb.String())
	}
	return out.String(), nil
}

// Capture returns capture-pane -p (the screen) and capture-pane -p -S -
// (history and screen) of the first pane, as lines.
func (s *Server) Capture(target string) (screen, all []string, err error) {
	scr, err := s.Run("capture-pane", "-p", "-t", target)
	if err != nil {
		return nil, nil, err
	}
	a, err := s.Run("capture-pane", "-p", "-S", "-", "-t", target)
	if err != nil {
		return nil, nil, err
	}
	return Lines(scr), Lines(a), nil
}

// WaitFor polls capture-pane until cond holds on the screen, or fails the test
// after timeout with the last screen.
func (s *Server) WaitFor(target string, timeout time.Duration, what string, cond func(screen string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(timeout)
	var last string
	for {
		out, err := s.Run("capture-pane", "-p", "-t", target)
		if err == nil {
			last = out
			if cond(out) {
				return out
			}
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("tmux pane never showed %s within %s; last screen:\n%s", what, timeout, last)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Capture is what tmux shows after a stream: the screen (capture-pane -p),
// history and screen (capture-pane -p -S -), the cursor and the title the
// stream set ("" when it set none: tmux's own default, the host's name,
// is left out so that a title melmux drops shows).
type Capture struct {
	Screen, All      []string
	CursorX, CursorY int
	Title            string
}

// CaptureStream runs file through cat in a cols x rows pane (a real PTY, so
// ONLCR applies) and returns what tmux shows once cat has finished and the
// pane is quiet.
func CaptureStream(t testing.TB, file string, cols, rows int) Capture {
	t.Helper()
	return StartStream(t, file, cols, rows).State()
}

// StartStream runs file through cat in a cols x rows pane and returns the
// server once cat has finished and the pane is quiet.
func StartStream(t testing.TB, file string, cols, rows int) *Server {
	t.Helper()
	return startCat(t, file, cols, rows, "", 20*time.Second)
}

// CaptureRawStream is CaptureStream for bytes already as a terminal
// receives them (recorded output): the pane's tty is raw, so no ONLCR is
// added, and the answers tmux gives to the stream's queries are neither
// echoed nor read. A recording may be long: it has a minute to settle.
func CaptureRawStream(t testing.TB, file string, cols, rows int) Capture {
	t.Helper()
	return startCat(t, file, cols, rows, "stty raw -echo; ", time.Minute).State()
}

// startCat runs setup, then file through cat, in a cols x rows pane and
// returns the server once cat has finished and the pane has shown the same
// history three polls running.
func startCat(t testing.TB, file string, cols, rows int, setup string, settle time.Duration) *Server {
	t.Helper()
	RequireReference(t)
	abs, err := filepath.Abs(file)
	if err != nil {
		t.Fatal(err)
	}
	s := Start(t, cols, rows, fmt.Sprintf("%scat '%s'; exec sleep 1000", setup, abs))
	deadline := time.Now().Add(settle)
	var last string
	stable := 0
	for stable < 3 {
		cmd, err := s.Run("display", "-p", "#{pane_current_command} #{pane_width}x#{pane_height}")
		if err != nil {
			t.Fatal(err)
		}
		cur, err := s.Run("capture-pane", "-p", "-S", "-")
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(cmd, "sleep ") && cur == last {
			if want := fmt.Sprintf("%dx%d", cols, rows); !strings.Contains(cmd, want) {
				t.Fatalf("tmux pane is %q, want %s", strings.TrimSpace(cmd), want)
			}
			stable++
		} else {
			stable = 0
		}
		last = cur
		if time.Now().After(deadline) {
			t.Fatalf("tmux output did not settle in %v (pane runs %q)", settle, strings.TrimSpace(cmd))
		}
		time.Sleep(100 * time.Millisecond)
	}
	return s
}

// State is what the server's first pane shows now.
func (s *Server) State() Capture {
	t := s.t
	t.Helper()
	scr, err := s.Run("capture-pane", "-p")
	if err != nil {
		t.Fatal(err)
	}
	all, err := s.Run("capture-pane", "-p", "-S", "-")
	if err != nil {
		t.Fatal(err)
	}
	state, err := s.Run("display", "-p", "#{cursor_x},#{cursor_y} #{pane_title}")
	if err != nil {
		t.Fatal(err)
	}
	c := Capture{Screen: Lines(scr), All: Lines(all)}
	state = strings.TrimSuffix(state, "\n")
	if _, err := fmt.Sscanf(state, "%d,%d", &c.CursorX, &c.CursorY); err != nil {
		t.Fatalf("tmux cursor %q: %v", state, err)
	}
	if i := strings.IndexByte(state, ' '); i >= 0 {
		c.Title = state[i+1:]
	}
	if host, err := os.Hostname(); err == nil && c.Title == host {
		c.Title = ""
	}
	return c
}

// CompareRows reports each row where got differs from tmux's want as a test
// error, unless known (tmux's row text → reason) documents the difference,
// and returns the rows compared and the rows agreeing.
func CompareRows(t testing.TB, what string, want, got []string, known map[string]string) (rows, agree int) {
	t.Helper()
	n := max(len(want), len(got))
	for i := 0; i < n; i++ {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w == g {
			agree++
			continue
		}
		if reason, ok := known[w]; ok {
			t.Logf("%s row %d differs as documented (%s): tmux %q, ours %q", what, i, reason, w, g)
			continue
		}
		t.Errorf("%s row %d: tmux %q, ours %q", what, i, w, g)
	}
	if len(want) != len(got) {
		t.Errorf("%s: tmux has %d rows, ours %d", what, len(want), len(got))
	}
	return n, agree
}

// Lines splits capture-pane output into rows.
func Lines(s string) []string {
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}
