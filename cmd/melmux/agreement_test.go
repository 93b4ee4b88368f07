package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/tmuxtest"
)

var corpusSize = regexp.MustCompile(`_(\d+)x(\d+)\.in$`)

// TestReadPaneAgreesWithTmux runs each corpus stream through a real melmux
// pane and a real tmux pane of the same size and compares `read-pane` with
// `capture-pane -p`, and `read-pane --all` with `capture-pane -p -S -`.
func TestReadPaneAgreesWithTmux(t *testing.T) {
	tmuxtest.Require(t)
	files, err := filepath.Glob(filepath.Join("..", "..", "pane", "term", "testdata", "corpus", "*.in"))
	if err != nil || len(files) < 12 {
		t.Fatalf("want at least 12 corpus streams, found %d (%v)", len(files), err)
	}
	se := newSessionEnv(t)
	type tally struct{ rows, agree int }
	results := make(chan tally, len(files))
	t.Run("corpus", func(t *testing.T) {
		for i, f := range files {
			t.Run(filepath.Base(f), func(t *testing.T) {
				t.Parallel()
				r, a := agreeOne(t, se, i, f)
				results <- tally{r, a}
			})
		}
	})
	close(results)
	rows, agree := 0, 0
	for r := range results {
		rows += r.rows
		agree += r.agree
	}
	t.Logf("read-pane against tmux capture-pane over %d streams: %d of %d rows agree", len(files), agree, rows)
}

// agreeOne compares one stream; it returns rows compared and rows agreeing.
func agreeOne(t *testing.T, se *sessionEnv, i int, f string) (rows, agree int) {
	{
		m := corpusSize.FindStringSubmatch(f)
		if m == nil {
			t.Fatalf("%s: the name must end in _COLSxROWS.in", f)
		}
		cols, _ := strconv.Atoi(m[1])
		height, _ := strconv.Atoi(m[2])
		abs, _ := filepath.Abs(f)
		done := filepath.Join(t.TempDir(), "done")
		name := fmt.Sprintf("agree%d", i)
		// The session is two rows taller than the pane: its status line and the
		// pane's top border.
		se.mustT(t, "-s", name, "new", "-d", "-x", strconv.Itoa(cols), "-y", strconv.Itoa(height+2), "--",
			"sh", "-c", fmt.Sprintf("cat '%s'; : > '%s'; exec sleep 1000", abs, done))
		deadline := time.Now().Add(20 * time.Second)
		for {
			if _, err := os.Stat(done); err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: cat did not finish in the melmux pane", f)
			}
			time.Sleep(20 * time.Millisecond)
		}
		// Everything is written to the PTY; wait for the reader to drain it.
		se.mustT(t, "-s", name, "wait", "-t", "1", "--idle", "200ms", "--timeout", "10s")
		ours := lines(se.mustT(t, "-s", name, "read-pane", "-t", "1"))
		oursAll := lines(se.mustT(t, "-s", name, "read-pane", "-t", "1", "--all"))
		tm := tmuxtest.CaptureStream(t, f, cols, height)
		r1, a1 := tmuxtest.CompareRows(t, "read-pane", tm.Screen, ours, nil)
		r2, a2 := tmuxtest.CompareRows(t, "read-pane --all", tm.All, oursAll, nil)
		se.mustT(t, "-s", name, "kill-server")
		return r1 + r2, a1 + a2
	}
}

func lines(s string) []string { return strings.Split(strings.TrimSuffix(s, "\n"), "\n") }
