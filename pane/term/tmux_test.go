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
	"time"

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
				if term.Title() != tm.Title {
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

// seqLines is "line FROM\n" to "line TO\n".
func seqLines(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// digits is n characters: the letter, then the digits 0-9 over and over,
// so that a row cut or joined in the wrong place shows.
func digits(letter string, n int) string {
	var b strings.Builder
	b.WriteString(letter)
	for i := 1; i < n; i++ {
		b.WriteByte('0' + byte(i%10))
	}
	return b.String()
}

// longLines is n lines of 3 to 133 characters, most longer than 40.
func longLines(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(digits(string(rune('A'+i%26)), 3+i*37%131))
		b.WriteByte('\n')
	}
	return b.String()
}

// TestResizeAgreesWithTmux shrinks and grows panes in tmux and here and
// compares each step: a shrink pushes the top rows to history (after the
// rows below the cursor), a grow pulls the rows that scrolled into history
// back (not those a clear put there), the cursor moving with the text.
func TestResizeAgreesWithTmux(t *testing.T) {
	tmuxtest.Require(t)
	type size struct{ cols, rows int }
	cases := []struct {
		name  string
		in    string
		sizes []size // the first is the starting size
	}{
		{"prompt", seqLines(1, 30) + "$ ", []size{{40, 10}, {40, 4}, {40, 10}, {40, 14}, {40, 3}, {40, 12}}},
		{"short", "a\nb\n$ ", []size{{40, 10}, {40, 3}, {40, 10}}},
		{"cleared", seqLines(1, 30) + "\x1b[H\x1b[2Ja\nb\n$ ", []size{{40, 10}, {40, 5}, {40, 14}}},
		{"cleared-full", seqLines(1, 30) + "\x1b[H\x1b[2J" + seqLines(31, 39) + "$ ", []size{{40, 10}, {40, 5}, {40, 10}, {40, 14}}},
		{"styled", strings.Repeat("\x1b[1;31mred\x1b[m 中文 e\u0301 👨\u200d👩\u200d👧 \x1b[7mrev\x1b[m\n", 12) + "\x1b[32mpen", []size{{40, 8}, {40, 3}, {40, 8}}},
		{"wrapped", strings.Repeat(strings.Repeat("w", 55)+"\n", 8) + "$ ", []size{{40, 10}, {40, 4}, {40, 10}}},
		{"width", seqLines(1, 20) + "$ ", []size{{40, 10}, {30, 5}, {40, 10}}},
		{"cursor-up", seqLines(1, 20) + "\x1b[3A$ ", []size{{40, 10}, {40, 5}, {40, 10}}},
		{"alt", seqLines(1, 20) + "\x1b[?1049h" + seqLines(1, 5) + "$ ", []size{{40, 10}, {40, 4}, {40, 10}}},
		{"pending-wrap", seqLines(1, 20) + strings.Repeat("w", 40), []size{{40, 10}, {40, 5}, {40, 12}, {50, 12}}},
		// Reflow: lines longer than the width are wrapped again at the new
		// width, on the screen and in history, and rows the program's
		// output wrapped are joined again on a grow.
		{"reflow", seqLines(1, 3) + digits("a", 45) + "\n" + digits("b", 95) + "\n" + digits("c", 130) + "\nshort\n$ " + digits("d", 70),
			[]size{{40, 10}, {30, 10}, {50, 10}, {25, 8}, {40, 10}, {80, 12}, {40, 10}, {17, 10}, {40, 10}}},
		{"reflow-history", longLines(30), []size{{40, 10}, {30, 10}, {60, 10}, {40, 10}, {20, 6}, {40, 10}, {33, 7}, {40, 10}}},
		{"reflow-both", longLines(25) + "$ ", []size{{40, 10}, {30, 5}, {60, 14}, {40, 10}, {35, 12}, {40, 4}, {40, 10}}},
		{"reflow-short", "a\n" + digits("b", 70) + "\n$ ", []size{{40, 10}, {20, 10}, {13, 10}, {40, 10}, {80, 10}}},
		{"reflow-pending", seqLines(1, 3) + digits("p", 40), []size{{40, 10}, {30, 10}, {50, 10}, {20, 10}, {40, 10}}},
		{"reflow-cursor-up", seqLines(1, 3) + digits("u", 100) + "\n$ \x1b[2A\x1b[7C", []size{{40, 10}, {30, 10}, {50, 10}, {40, 10}}},
		// Wide characters: at 40 columns "x" and 19 of them leave the last
		// column empty and the 20th goes to the next row, as at every odd
		// width; a grow joins the rows again, a shrink wraps before a wide
		// character that does not fit.
		{"reflow-wide", seqLines(1, 12) + "x" + strings.Repeat("中", 25) + "\n" + strings.Repeat("文", 45) + "y\n" + "ab" + strings.Repeat("字", 30) + "\n$ ",
			[]size{{40, 10}, {41, 10}, {31, 10}, {30, 10}, {80, 10}, {21, 10}, {40, 10}}},
		{"reflow-styled", strings.Repeat("\x1b[1;31mred\x1b[m 中文 e\u0301 👨\u200d👩\u200d👧 \x1b[7mrev\x1b[m "+digits("s", 40)+"\n", 8) + "\x1b[32mpen",
			[]size{{40, 8}, {30, 8}, {55, 8}, {40, 8}}},
		// The alternate screen is not reflowed, and neither is history
		// while it is shown. (Only narrower: tmux keeps the columns a
		// shrink hides and shows them again on a grow, vt10x drops them.)
		{"reflow-alt", digits("h", 70) + "\n" + seqLines(1, 20) + "\x1b[?1049h" + "alt " + digits("z", 30) + "\n$ ", []size{{40, 10}, {30, 10}, {25, 10}}},
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
				hist := term.History(-1)
				if term.Modes().AltScreen {
					// History is not reflowed while the alternate screen is
					// shown: capture-pane cuts its lines at the width,
					// History gives them whole.
					hist = cutRows(hist, sz.cols)
				}
				tmuxtest.CompareRows(t, "history+screen "+what, tm.All, append(hist, term.Lines()...), nil)
				if cur := term.Cursor(); cur.X != min(tm.CursorX, sz.cols-1) || cur.Y != tm.CursorY {
					t.Errorf("cursor %s: %d,%d, tmux %d,%d", what, cur.X, cur.Y, tm.CursorX, tm.CursorY)
				}
			}
		})
	}
}

// cutRows cuts each row to its first cols columns.
func cutRows(rows []string, cols int) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		w := 0
		for k, c := range r {
			if w += runeWidth(c); w > cols {
				r = r[:k]
				break
			}
		}
		out[i] = r
	}
	return out
}

// TestAltScreenResizeAgreesWithTmux resizes a pane while the alternate
// screen is shown, then leaves it, in tmux and here: the rows of the primary
// screen that no longer fit are in history, in order, once, and the screen
// and cursor are tmux's.
func TestAltScreenResizeAgreesWithTmux(t *testing.T) {
	tmux := tmuxtest.Require(t)
	type size struct{ cols, rows int }
	cases := []struct {
		name      string
		in, leave string // leave is written after the resizes
		sizes     []size // the first is the starting size
		after     []size // sizes after leaving
	}{
		{"shrink", seqLines(1, 20) + "$ \x1b[?1049h\x1b[H\x1b[2Jalt 1\nalt 2", "\x1b[?1049lEND", []size{{40, 10}, {40, 4}}, []size{{40, 10}}},
		{"shrink-cursor-low", seqLines(1, 20) + "$ \x1b[?1049h" + seqLines(1, 5), "\x1b[?1049lEND", []size{{40, 10}, {40, 4}}, nil},
		{"shrink-twice", seqLines(1, 20) + "$ \x1b[?1049h\x1b[H\x1b[2Jalt", "\x1b[?1049lEND", []size{{40, 10}, {40, 7}, {40, 3}}, nil},
		{"shrink-grow", seqLines(1, 20) + "$ \x1b[?1049h\x1b[Halt", "\x1b[?1049lEND", []size{{40, 10}, {40, 4}, {40, 10}}, nil},
		{"grow", seqLines(1, 20) + "$ \x1b[?1049h\x1b[Halt", "\x1b[?1049lEND", []size{{40, 10}, {40, 14}}, nil},
		{"short", "a\nb\n$ \x1b[?1049h\x1b[5;1Halt", "\x1b[?1049lEND", []size{{40, 10}, {40, 3}}, []size{{40, 10}}},
		{"cursor-up", seqLines(1, 20) + "\x1b[4A$ \x1b[?1049h\x1b[Halt", "\x1b[?1049lEND", []size{{40, 10}, {40, 4}}, nil},
		{"styled", strings.Repeat("\x1b[1;31mred\x1b[m 中文 e\u0301 👨\u200d👩\u200d👧 \x1b[7mrev\x1b[m\n", 12) + "\x1b[32mpen\x1b[?1049h\x1b[Halt", "\x1b[?1049l!", []size{{40, 8}, {40, 3}}, []size{{40, 8}}},
		{"narrower", seqLines(1, 20) + "$ \x1b[?1049h\x1b[Halt", "\x1b[?1049lEND", []size{{40, 10}, {30, 4}}, nil},
		// The primary screen and history are reflowed when the program
		// leaves the alternate screen, not while it is shown.
		{"narrower-long", longLines(16) + "$ \x1b[?1049h\x1b[Halt", "\x1b[?1049lEND", []size{{40, 10}, {30, 4}}, []size{{40, 10}}},
		{"wider-long", longLines(16) + "$ " + digits("q", 50) + "\x1b[?1049h\x1b[Halt", "\x1b[?1049lEND", []size{{40, 10}, {60, 10}}, []size{{25, 10}}},
		{"narrower-taller", longLines(16) + "$ \x1b[?1049h\x1b[Halt", "\x1b[?1049lEND", []size{{40, 10}, {33, 14}}, nil},
		{"1047", seqLines(1, 20) + "$ \x1b[?1047h\x1b[Halt\x1b[3;1H", "\x1b[?1047lEND", []size{{40, 10}, {40, 4}}, nil},
		{"1047-grow", seqLines(1, 20) + "$ \x1b[?1047h\x1b[Halt\x1b[3;1H", "\x1b[?1047lEND", []size{{40, 10}, {40, 4}, {40, 12}}, nil},
		{"region", seqLines(1, 20) + "$ \x1b[?1049h\x1b[Halt", "\x1b[2;3r\x1b[?1049lEND\nx\ny\nz", []size{{40, 10}, {40, 4}}, nil},
		{"region-same-size", seqLines(1, 20) + "$ \x1b[?1049h\x1b[Halt", "\x1b[2;3r\x1b[?1049lEND\nx\ny\nz", []size{{40, 10}}, nil},
		{"origin", seqLines(1, 20) + "$ \x1b[?1049h\x1b[Halt", "\x1b[2;3r\x1b[?6h\x1b[?1049lEND\nx\ny\nz", []size{{40, 10}, {40, 4}}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			in, leave := filepath.Join(dir, "in"), filepath.Join(dir, "leave")
			if err := os.WriteFile(in, []byte(c.in), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(leave, []byte(c.leave), 0o600); err != nil {
				t.Fatal(err)
			}
			// The pane's tmux client finds its server through $TMUX.
			s := tmuxtest.Start(t, c.sizes[0].cols, c.sizes[0].rows,
				fmt.Sprintf("cat '%s'; '%s' wait-for leave; cat '%s'; exec sleep 1000", in, tmux, leave))
			settle(t, s, "bash 1") // cat is done, the client waits
			term := New(c.sizes[0].cols, c.sizes[0].rows, Options{})
			term.Write(onlcr([]byte(c.in)))
			resize := func(sz size) {
				if _, err := s.Run("resize-window", "-t", "%0", "-x", strconv.Itoa(sz.cols), "-y", strconv.Itoa(sz.rows)); err != nil {
					t.Fatal(err)
				}
				term.Resize(sz.cols, sz.rows)
			}
			compare := func(what string, sz size) {
				tm := s.State()
				if why, ok := altLosesInTmux[c.name]; ok {
					// Not tmux's screen: every line, where tmux drops some.
					ours := append(term.History(-1), term.Lines()...)
					if lost, kept := missingLines(tm.All, 20), missingLines(ours, 20); lost == 0 || kept != 0 {
						t.Errorf("%s: tmux lost %d of lines 1-20, we lost %d; want some and none (%s):\n%q", what, lost, kept, why, ours)
					}
					return
				}
				tmuxtest.CompareRows(t, "screen "+what, tm.Screen, term.Lines(), nil)
				tmuxtest.CompareRows(t, "history+screen "+what, tm.All, append(term.History(-1), term.Lines()...), nil)
				if cur := term.Cursor(); cur.X != min(tm.CursorX, sz.cols-1) || cur.Y != tm.CursorY {
					t.Errorf("cursor %s: %d,%d, tmux %d,%d", what, cur.X, cur.Y, tm.CursorX, tm.CursorY)
				}
			}
			for _, sz := range c.sizes[1:] {
				resize(sz)
			}
			if _, err := s.Run("wait-for", "-S", "leave"); err != nil {
				t.Fatal(err)
			}
			settle(t, s, "sleep 0")
			term.Write(onlcr([]byte(c.leave)))
			last := c.sizes[len(c.sizes)-1]
			compare(fmt.Sprintf("after leaving at %dx%d", last.cols, last.rows), last)
			for _, sz := range c.after {
				resize(sz)
				compare(fmt.Sprintf("after leaving, then at %dx%d", sz.cols, sz.rows), sz)
			}
		})
	}
}

// altLosesInTmux are the cases of TestAltScreenResizeAgreesWithTmux where
// tmux loses lines and this package deliberately keeps them, with the reason.
var altLosesInTmux = map[string]string{
	"1047": "after ?1047l tmux places the rows around the cursor the program left on the alternate screen, dropping the shell's rows below it; this package places them around the row of the cursor at ?1047h (savedPrimary)",
}

// missingLines counts the lines "line 1" to "line n" that rows do not hold
// in order (a row may begin with what was written over it: "ENDe 18").
func missingLines(rows []string, n int) int {
	next := 1
	for _, r := range rows {
		if next <= n && strings.HasSuffix(r, fmt.Sprintf("e %d", next)) {
			next++
		}
	}
	return n + 1 - next
}

// settle waits until the pane's command and alternate screen flag are want
// (its input was all written) and tmux shows the same twice in a row.
func settle(t *testing.T, s *tmuxtest.Server, want string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var last string
	for stable := 0; stable < 2; {
		cmd, err := s.Run("display", "-p", "#{pane_current_command} #{alternate_on}")
		if err != nil {
			t.Fatal(err)
		}
		cur, err := s.Run("capture-pane", "-p", "-S", "-")
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(cmd) == want && cur == last {
			stable++
		} else {
			stable = 0
		}
		last = cur
		if time.Now().After(deadline) {
			t.Fatalf("tmux pane did not settle at %q in 20s (it is at %q)", want, strings.TrimSpace(cmd))
		}
		time.Sleep(50 * time.Millisecond)
	}
}
