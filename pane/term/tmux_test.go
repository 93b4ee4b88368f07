package term

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
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

// TestResizeAgreesWithTmux shrinks and grows panes in tmux and here and
// compares each step: a shrink pushes the top rows to history (after the
// rows below the cursor), a grow pulls the rows that scrolled into history
// back (not those a clear put there), the cursor moving with the text.
func TestResizeAgreesWithTmux(t *testing.T) {
	tmuxtest.Require(t)
	seq := func(from, to int) string {
		var b strings.Builder
		for i := from; i <= to; i++ {
			fmt.Fprintf(&b, "line %d\n", i)
		}
		return b.String()
	}
	type size struct{ cols, rows int }
	cases := []struct {
		name  string
		in    string
		sizes []size // the first is the starting size
	}{
		{"prompt", seq(1, 30) + "$ ", []size{{40, 10}, {40, 4}, {40, 10}, {40, 14}, {40, 3}, {40, 12}}},
		{"short", "a\nb\n$ ", []size{{40, 10}, {40, 3}, {40, 10}}},
		{"cleared", seq(1, 30) + "\x1b[H\x1b[2Ja\nb\n$ ", []size{{40, 10}, {40, 5}, {40, 14}}},
		{"cleared-full", seq(1, 30) + "\x1b[H\x1b[2J" + seq(31, 39) + "$ ", []size{{40, 10}, {40, 5}, {40, 10}, {40, 14}}},
		{"styled", strings.Repeat("\x1b[1;31mred\x1b[m 中文 e\u0301 👨\u200d👩\u200d👧 \x1b[7mrev\x1b[m\n", 12) + "\x1b[32mpen", []size{{40, 8}, {40, 3}, {40, 8}}},
		{"wrapped", strings.Repeat(strings.Repeat("w", 55)+"\n", 8) + "$ ", []size{{40, 10}, {40, 4}, {40, 10}}},
		{"width", seq(1, 20) + "$ ", []size{{40, 10}, {30, 5}, {40, 10}}},
		{"cursor-up", seq(1, 20) + "\x1b[3A$ ", []size{{40, 10}, {40, 5}, {40, 10}}},
		{"alt", seq(1, 20) + "\x1b[?1049h" + seq(1, 5) + "$ ", []size{{40, 10}, {40, 4}, {40, 10}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(t.TempDir(), "in")
			if err := os.WriteFile(file, []byte(c.in), 0o600); err != nil {
				t.Fatal(err)
			}
			s := tmuxtest.StartStream(t, file, c.sizes[0].cols, c.sizes[0].rows)
			term := New(c.sizes[0].cols, c.sizes[0].rows, Options{})
			term.Write(onlcr([]byte(c.in)))
			for i, sz := range c.sizes {
				if i > 0 {
					if _, err := s.Run("resize-window", "-t", "%0", "-x", strconv.Itoa(sz.cols), "-y", strconv.Itoa(sz.rows)); err != nil {
						t.Fatal(err)
					}
					term.Resize(sz.cols, sz.rows)
				}
				tm := s.State()
				what := fmt.Sprintf("at %dx%d (step %d)", sz.cols, sz.rows, i)
				tmuxtest.CompareRows(t, "screen "+what, tm.Screen, term.Lines(), nil)
				tmuxtest.CompareRows(t, "history+screen "+what, tm.All, append(term.History(-1), term.Lines()...), nil)
				if cur := term.Cursor(); cur.X != min(tm.CursorX, sz.cols-1) || cur.Y != tm.CursorY {
					t.Errorf("cursor %s: %d,%d, tmux %d,%d", what, cur.X, cur.Y, tm.CursorX, tm.CursorY)
				}
			}
		})
	}
}
