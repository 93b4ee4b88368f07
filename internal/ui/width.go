package ui

import (
	"github.com/rivo/uniseg"

	"github.com/melmux/melmux/pane/term"
)

// fitCell is what to draw for the non-ASCII cell row[x], and whether it
// covers the next cell too (a flag). The emulator follows tmux 3.3a and
// wcwidth: a regional indicator takes one column, so a flag (🇫🇷) is two
// cells of one letter each. tcell measures with uniseg, which calls a lone
// letter two columns wide and the pair two: the pair is drawn as one
// grapheme over its two cells, so the client's terminal gets both letters
// side by side, as tmux would send them. next says whether row[x+1] is
// drawn here too.
func fitCell(row []term.Cell, x int, next bool) (string, bool) {
	cell := &row[x]
	if next && isRegional(cell) && isRegional(&row[x+1]) && regionalRun(row, x)%2 == 0 {
		return string(cell.Rune) + string(row[x+1].Rune), true
	}
	return fitGrapheme(cell), false
}

// isRegional reports whether the cell holds one regional indicator letter.
func isRegional(c *term.Cell) bool {
	return c.Rune >= 0x1F1E6 && c.Rune <= 0x1F1FF && c.Comb == "" && c.Width == 1
}

// regionalRun counts the regional indicator cells right before row[x]:
// letters pair from the start of their run.
func regionalRun(row []term.Cell, x int) int {
	n := 0
	for x--; x >= 0 && isRegional(&row[x]); x-- {
		n++
	}
	return n
}

// fitGrapheme is what to draw for a non-ASCII cell so that it takes exactly
// the columns the emulator gave it. tcell measures what it draws with uniseg,
// which calls some clusters wider than the emulator (which follows tmux and
// wcwidth): an emoji with VS16 (❤️), a lone regional indicator. Drawn whole,
// such a cluster would cover the next cell and shift the rest of the row, so
// it falls back to its base rune, then to a blank.
func fitGrapheme(cell *term.Cell) string {
	want := max(int(cell.Width), 1)
	full := string(cell.Rune) + cell.Comb
	if graphemeWidth(full) == want {
		return full
	}
	if cell.Comb != "" {
		if base := string(cell.Rune); graphemeWidth(base) == want {
			return base
		}
	}
	return " " // a wide cell's continuation is blanked by the caller
}

// graphemeWidth is the width tcell gives the first grapheme of s.
func graphemeWidth(s string) int {
	_, _, w, _ := uniseg.FirstGraphemeClusterInString(s, -1)
	return w
}
