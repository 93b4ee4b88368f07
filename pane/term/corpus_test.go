package term

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/melmux/melmux/bench/corpus"
	"github.com/melmux/melmux/internal/tmuxtest"
)

// knownCorpusDisagreements are the streams of bench/corpus where the
// emulator's final screen or history is not tmux's, with the reason and
// the fingerprint of the disagreement (sha256 of the rows that differ, as
// the test prints them): the test fails when a stream listed here agrees
// (take it out) or disagrees in any other way, and when any stream not
// listed disagrees at all.
var knownCorpusDisagreements = map[string]struct{ reason, fingerprint string }{}

// TestCorpusAgreesWithTmux plays every stream of bench/corpus (real
// programs' output as their terminal received it, and the generated
// shapes) into the emulator and into tmux at the stream's size, and
// compares the final screen, history and cursor row for row. The streams
// are bytes as the terminal received them, so neither side adds ONLCR.
func TestCorpusAgreesWithTmux(t *testing.T) {
	tmuxtest.Require(t)
	all, err := corpus.All()
	if err != nil {
		t.Fatal(err)
	}
	recorded := 0
	for _, s := range all {
		if s.Recorded {
			recorded++
		}
	}
	if recorded < 20 || len(all)-recorded < 5 {
		t.Fatalf("corpus: %d recordings and %d shapes, want at least 20 and 5", recorded, len(all)-recorded)
	}
	for name := range knownCorpusDisagreements {
		found := false
		for _, s := range all {
			found = found || s.Name == name
		}
		if !found {
			t.Errorf("knownCorpusDisagreements lists %s, which is not in the corpus", name)
		}
	}
	for _, s := range all {
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			raw, err := s.Bytes()
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(t.TempDir(), "stream")
			if err := os.WriteFile(file, raw, 0o600); err != nil {
				t.Fatal(err)
			}
			tm := tmuxtest.CaptureRawStream(t, file, s.Cols, s.Rows)

			// The stream goes in whole, and in 4 KB writes as a PTY read
			// gives it, where the fast paths see less ahead.
			var diffs []string
			for _, chunk := range []int{len(raw), 4096} {
				// tmuxtest's server keeps 100,000 lines of history; so does
				// ours here, so that neither drops lines the other keeps.
				term := New(s.Cols, s.Rows, Options{Scrollback: 100000})
				for off := 0; off < len(raw); off += chunk {
					term.Write(raw[off:min(off+chunk, len(raw))])
				}
				ours := term.Lines()
				oursAll := append(term.History(-1), ours...)
				how := ""
				if chunk < len(raw) {
					how = fmt.Sprintf(" (%d-byte writes)", chunk)
				}
				diffs = append(diffs, rowDiffs("screen"+how, tm.Screen, ours)...)
				diffs = append(diffs, rowDiffs("history+screen"+how, tm.All, oursAll)...)
				// tmux's cursor sits one past the last column while a wrap is
				// pending; ours stays on the last column, the same place.
				if c := term.Cursor(); c.X != min(tm.CursorX, s.Cols-1) || c.Y != tm.CursorY {
					diffs = append(diffs, fmt.Sprintf("cursor%s %d,%d, tmux %d,%d", how, c.X, c.Y, tm.CursorX, tm.CursorY))
				}
				if term.Title() != "" && term.Title() != tm.Title {
					diffs = append(diffs, fmt.Sprintf("title%s %q, tmux %q", how, term.Title(), tm.Title))
				}
			}
			fp := fmt.Sprintf("%x", sha256.Sum256([]byte(strings.Join(diffs, "\n"))))[:16]
			known, isKnown := knownCorpusDisagreements[s.Name]
			switch {
			case len(diffs) == 0 && isKnown:
				t.Errorf("%s agrees with tmux now: take it out of knownCorpusDisagreements (%s)", s.Name, known.reason)
			case len(diffs) == 0:
				t.Logf("%s at %dx%d: screen, %d rows of history+screen and cursor agree, written whole and in 4 KB writes", s.Name, s.Cols, s.Rows, len(tm.All))
			case isKnown && fp == known.fingerprint:
				t.Logf("%s disagrees with tmux as known (%s): %d differences, fingerprint %s", s.Name, known.reason, len(diffs), fp)
			default:
				what := "disagrees with tmux"
				if isKnown {
					what = fmt.Sprintf("disagrees with tmux otherwise than known (%s, fingerprint %s)", known.reason, known.fingerprint)
				}
				shown := diffs
				if len(shown) > 12 {
					shown = append(shown[:12:12], fmt.Sprintf("... and %d more", len(diffs)-12))
				}
				t.Errorf("%s at %dx%d %s: %d differences, fingerprint %s:\n%s", s.Name, s.Cols, s.Rows, what, len(diffs), fp, strings.Join(shown, "\n"))
			}
		})
	}
}

// rowDiffs lists the rows where ours differs from tmux's want.
func rowDiffs(what string, want, got []string) []string {
	var out []string
	for i := range max(len(want), len(got)) {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			out = append(out, fmt.Sprintf("%s row %d: tmux %q, ours %q", what, i, w, g))
		}
	}
	if len(want) != len(got) {
		out = append(out, fmt.Sprintf("%s: tmux has %d rows, ours %d", what, len(want), len(got)))
	}
	return out
}

// BenchmarkCorpus feeds each stream of bench/corpus, round and round, to a
// terminal of its size in the write sizes of benchChunks (a PTY read, and
// what the pane's reader hands over under a flood, as in
// bench/corpus/play), so that the emulator's share of play's figures can
// be profiled without a server:
// go test ./pane/term -run '^$' -bench Corpus/top_200x50/65536 -cpuprofile cpu.out
func BenchmarkCorpus(b *testing.B) {
	all, err := corpus.All()
	if err != nil {
		b.Fatal(err)
	}
	for _, s := range all {
		raw, err := s.Bytes()
		if err != nil {
			b.Fatal(err)
		}
		for _, chunk := range benchChunks {
			b.Run(fmt.Sprintf("%s/%d", s.Name, chunk), func(b *testing.B) {
				term := New(s.Cols, s.Rows, Options{})
				feedBench(b, chunk, bytes.Repeat(raw, 1+2*chunk/len(raw)), func(p []byte) { term.Write(p) })
			})
		}
	}
}
