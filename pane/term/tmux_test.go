package term

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The corpus files are raw bytes as a program writes them to its tty; the
// size to use is in the name (NAME_COLSxROWS.in). A PTY's ONLCR turns "\n"
// into "\r\n" on the way to the terminal, so the Terminal side applies the
// same translation, and tmux's side runs them through a real PTY with cat.
var corpusName = regexp.MustCompile(`_(\d+)x(\d+)\.in$`)

// knownDifferences lists rows where this package deliberately differs from
// tmux, keyed by corpus file and then by the row's text in tmux's output,
// with the reason. Empty: the corpus agrees row for row.
var knownDifferences = map[string]map[string]string{}

func onlcr(b []byte) []byte {
	return bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n"))
}

func TestAgreementWithTmux(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv("MELMUX_REQUIRE_TMUX") == "1" {
			t.Fatalf("tmux is not on PATH and MELMUX_REQUIRE_TMUX=1: %v", err)
		}
		t.Skip("tmux is not on PATH (set MELMUX_REQUIRE_TMUX=1 to make this a failure)")
	}
	files, err := filepath.Glob(filepath.Join("testdata", "corpus", "*.in"))
	if err != nil || len(files) < 12 {
		t.Fatalf("corpus: want at least 12 files in testdata/corpus, got %d (%v)", len(files), err)
	}
	var totalScreen, agreeScreen, totalAll, agreeAll int
	type result struct{ screen, screenOK, all, allOK int }
	results := make(chan result, len(files))
	t.Run("corpus", func(t *testing.T) {
		for _, f := range files {
			t.Run(filepath.Base(f), func(t *testing.T) {
				t.Parallel()
				m := corpusName.FindStringSubmatch(f)
				if m == nil {
					t.Fatalf("%s: name must end in _COLSxROWS.in", f)
				}
				cols, _ := strconv.Atoi(m[1])
				rows, _ := strconv.Atoi(m[2])
				raw, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				screen, all, state := tmuxCapture(t, tmux, f, cols, rows)

				term := New(cols, rows, Options{})
				term.Write(onlcr(raw))
				ours := term.Lines()
				oursAll := append(term.History(-1), ours...)

				// Cursor and title as tmux has them. tmux's cursor sits one
				// past the last column while a wrap is pending; ours stays on
				// the last column (as xterm and vt10x), which is the same
				// place on the screen.
				var tx, ty int
				var title string
				if _, err := fmt.Sscanf(state, "%d,%d", &tx, &ty); err != nil {
					t.Fatalf("tmux state %q: %v", state, err)
				}
				if i := strings.IndexByte(state, ' '); i >= 0 {
					title = state[i+1:]
				}
				c := term.Cursor()
				if c.X != min(tx, cols-1) || c.Y != ty {
					t.Errorf("cursor %d,%d, tmux %d,%d", c.X, c.Y, tx, ty)
				}
				if term.Title() != "" && term.Title() != title {
					t.Errorf("title %q, tmux %q", term.Title(), title)
				}

				known := knownDifferences[filepath.Base(f)]
				var r result
				r.screen, r.screenOK = compareRows(t, "screen", screen, ours, known)
				r.all, r.allOK = compareRows(t, "history+screen", all, oursAll, known)
				t.Logf("%s at %dx%d: screen %d/%d rows agree, history+screen %d/%d rows agree",
					filepath.Base(f), cols, rows, r.screenOK, r.screen, r.allOK, r.all)
				results <- r
			})
		}
	})
	close(results)
	for r := range results {
		totalScreen += r.screen
		agreeScreen += r.screenOK
		totalAll += r.all
		agreeAll += r.allOK
	}
	t.Logf("agreement with tmux over %d streams: screen %d/%d rows, history+screen %d/%d rows",
		len(files), agreeScreen, totalScreen, agreeAll, totalAll)
}

// compareRows reports each differing row (failing unless it is a documented
// difference) and returns rows compared and rows agreeing.
func compareRows(t *testing.T, what string, want, got []string, known map[string]string) (int, int) {
	t.Helper()
	n := max(len(want), len(got))
	agree := 0
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

// tmuxCapture runs file through cat in a pane of a private tmux server of
// exactly cols x rows and returns capture-pane -p, capture-pane -p -S - and
// "cursor_x,cursor_y pane_title".
func tmuxCapture(t *testing.T, tmux, file string, cols, rows int) (screen, all []string, state string) {
	t.Helper()
	abs, err := filepath.Abs(file)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "melmux-tmux-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "sock")
	run := func(args ...string) (string, error) {
		cmd := exec.Command(tmux, append([]string{"-u", "-S", sock, "-f", "/dev/null"}, args...)...)
		cmd.Env = append(os.Environ(), "LANG=C.UTF-8", "LC_ALL=C.UTF-8", "TMUX=")
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		if err != nil {
			return "", fmt.Errorf("tmux %s: %v: %s", strings.Join(args, " "), err, errb.String())
		}
		return out.String(), nil
	}
	shell := fmt.Sprintf("cat '%s'; exec sleep 1000", abs)
	if _, err := run("start-server", ";", "set", "-g", "history-limit", "100000", ";",
		"set", "-g", "status", "off", ";",
		"new-session", "-d", "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows), shell); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = run("kill-server") })

	// Wait until cat has finished and the capture has stopped changing.
	deadline := time.Now().Add(20 * time.Second)
	var last string
	stable := 0
	for {
		cmdName, err := run("display", "-p", "#{pane_current_command} #{pane_width}x#{pane_height}")
		if err != nil {
			t.Fatal(err)
		}
		cur, err := run("capture-pane", "-p", "-S", "-")
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(cmdName, "sleep ") && cur == last {
			stable++
			if want := fmt.Sprintf("%dx%d", cols, rows); !strings.Contains(cmdName, want) {
				t.Fatalf("tmux pane is %q, want %s", strings.TrimSpace(cmdName), want)
			}
		} else {
			stable = 0
		}
		last = cur
		if stable >= 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("tmux output did not settle in 20s (pane runs %q)", strings.TrimSpace(cmdName))
		}
		time.Sleep(100 * time.Millisecond)
	}
	scr, err := run("capture-pane", "-p")
	if err != nil {
		t.Fatal(err)
	}
	state, err = run("display", "-p", "#{cursor_x},#{cursor_y} #{pane_title}")
	if err != nil {
		t.Fatal(err)
	}
	return splitCapture(scr), splitCapture(last), strings.TrimSuffix(state, "\n")
}

func splitCapture(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	return strings.Split(s, "\n")
}
