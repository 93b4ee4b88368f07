package ui

import (
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/melmux/melmux/pane/term"
)

// Clusters tcell measures wider than the emulator (emoji with VS16, flags)
// must not cover the next cell: the row keeps the emulator's columns.
func TestClusterWidthKeepsColumns(t *testing.T) {
	s := tcell.NewSimulationScreen("UTF-8")
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	defer s.Fini()
	s.SetSize(20, 4)
	row := make([]term.Cell, 10)
	for i := range row {
		row[i] = term.Cell{Rune: ' ', Width: 1}
	}
	row[0] = term.Cell{Rune: 'E', Width: 1}
	row[1] = term.Cell{Rune: '❤', Comb: "\ufe0f", Width: 1} // ❤️: tcell says 2
	row[2] = term.Cell{Rune: 'F', Width: 1}
	row[3] = term.Cell{Rune: '🇫', Comb: "🇷", Width: 1} // a flag pair merged into one cell
	row[4] = term.Cell{Rune: 'G', Width: 1}
	row[5] = term.Cell{Rune: 'e', Comb: "\u0301", Width: 1} // é: combining mark, fits
	row[6] = term.Cell{Rune: 'H', Width: 1}
	scr := &term.Screen{Cols: 10, Rows: 1, Cells: [][]term.Cell{row}}
	sc := &Scene{Cols: 20, Rows: 4, Session: "s", Panes: []PaneView{{
		ID: 1, Frame: Rect{0, 0, 10, 2}, Content: Rect{0, 1, 10, 1}, Command: "sh", Focused: true, Screen: scr,
	}}}
	Draw(s, sc)
	want := map[int]string{0: "E", 2: "F", 4: "G", 5: "e\u0301", 6: "H"}
	for x, w := range want {
		str, _, _ := s.Get(x, 1)
		if str != w {
			t.Errorf("column %d shows %q, want %q", x, str, w)
		}
	}
	for _, x := range []int{1, 3} {
		str, _, width := s.Get(x, 1)
		if width != 1 {
			t.Errorf("column %d holds %q of width %d: it must stay one column", x, str, width)
		}
	}
}

// The emulator gives a flag's two regional indicator letters one column
// each (as tmux 3.3a); tcell calls the pair two columns and a lone letter
// two as well. The pair is drawn as one grapheme over its two cells; a lone
// letter is blanked; a ZWJ family in its one wide cell is drawn whole.
func TestFlagsAndJoinedClustersDrawn(t *testing.T) {
	s := newSim(t, 20, 4)
	cells := []term.Cell{
		{Rune: 'A', Width: 1},
		{Rune: '🇫', Width: 1}, {Rune: '🇷', Width: 1}, // 🇫🇷
		{Rune: 'B', Width: 1},
		{Rune: '🇫', Width: 1}, {Rune: '🇷', Width: 1}, {Rune: '🇫', Width: 1}, // a pair, then a lone letter
		{Rune: 'C', Width: 1},
		{Rune: '👨', Comb: "\u200d👩\u200d👧", Width: 2}, {Width: 0},
		{Rune: 'D', Width: 1},
	}
	row := make([]term.Cell, 14)
	copy(row, cells)
	for i := len(cells); i < len(row); i++ {
		row[i] = term.Cell{Rune: ' ', Width: 1}
	}
	scr := &term.Screen{Cols: 14, Rows: 1, Cells: [][]term.Cell{row}}
	sc := &Scene{Cols: 20, Rows: 4, Session: "s", Panes: []PaneView{{
		ID: 1, Frame: Rect{0, 0, 14, 2}, Content: Rect{0, 1, 14, 1}, Command: "sh", Focused: true, Screen: scr,
	}}}
	Draw(s, sc)
	for x, w := range map[int]struct {
		str   string
		width int
	}{
		0: {"A", 1}, 1: {"🇫🇷", 2}, 3: {"B", 1}, 4: {"🇫🇷", 2}, 6: {" ", 1}, 7: {"C", 1},
		8: {"👨\u200d👩\u200d👧", 2}, 10: {"D", 1},
	} {
		str, _, width := s.Get(x, 1)
		if str != w.str || width != w.width {
			t.Errorf("column %d shows %q of width %d, want %q of width %d", x, str, width, w.str, w.width)
		}
	}
}
