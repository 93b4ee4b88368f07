package term

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/melmux/melmux/internal/tmuxtest"
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
	tmuxtest.Require(t)
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
				tm := tmuxtest.CaptureStream(t, f, cols, rows)

				term := New(cols, rows, Options{})
				term.Write(onlcr(raw))
				ours := term.Lines()
				oursAll := append(term.History(-1), ours...)

				// Cursor and title as tmux has them. tmux's cursor sits one
				// past the last column while a wrap is pending; ours stays on
				// the last column (as xterm and vt10x), which is the same
				// place on the screen.
				c := term.Cursor()
				if c.X != min(tm.CursorX, cols-1) || c.Y != tm.CursorY {
					t.Errorf("cursor %d,%d, tmux %d,%d", c.X, c.Y, tm.CursorX, tm.CursorY)
				}
				if term.Title() != "" && term.Title() != tm.Title {
					t.Errorf("title %q, tmux %q", term.Title(), tm.Title)
				}

				known := knownDifferences[filepath.Base(f)]
				var r result
				r.screen, r.screenOK = tmuxtest.CompareRows(t, "screen", tm.Screen, ours, known)
				r.all, r.allOK = tmuxtest.CompareRows(t, "history+screen", tm.All, oursAll, known)
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
