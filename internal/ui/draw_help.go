package ui

import (
	"fmt"

	"github.com/gdamore/tcell/v2"
)

// helpBox is the rectangle of the help overlay for a screen of cols x rows.
// helpBox sizes the help overlay: as many columns of bindings as it takes to
// show them all within the screen (each column keyw wide for the keys plus the
// longest command), one column when they fit.
func helpBox(sc *Scene, cols, rows int) (r Rect, keyw, colw, ncol int) {
	cmdw := 0
	for _, b := range sc.Bindings {
		keyw = max(keyw, widths.StringWidth(b.Keys))
		cmdw = max(cmdw, widths.StringWidth(b.Command))
	}
	colw = keyw + 2 + cmdw
	perCol := max(rows-2, 1)
	ncol = max((len(sc.Bindings)+perCol-1)/perCol, 1)
	// Never more columns than the width holds; what still does not fit is
	// counted in the last row.
	for ncol > 1 && ncol*colw+(ncol-1)*3+4 > cols {
		ncol--
	}
	h := (len(sc.Bindings)+ncol-1)/ncol + 2
	w := max(ncol*colw+(ncol-1)*3, widths.StringWidth(helpTitle)) + 4
	w, h = min(w, cols), min(h, rows)
	return Rect{(cols - w) / 2, (rows - h) / 2, w, h}, keyw, colw, ncol
}

const helpTitle = " keys (any key closes) "

// drawHelp draws the help overlay: a box listing every binding, in columns
// when one would not fit.
func drawHelp(s tcell.Screen, sc *Scene, st StatusStyle, cols, rows int) {
	r, keyw, colw, ncol := helpBox(sc, cols, rows)
	if r.W < 4 || r.H < 3 {
		return
	}
	frame := tcell.StyleDefault.Foreground(tcolor(st.Focus)).Bold(true)
	body := tcell.StyleDefault
	x1, y1 := r.X+r.W-1, r.Y+r.H-1
	for y := r.Y; y <= y1; y++ {
		for x := r.X; x <= x1; x++ {
			ch, style := ' ', body
			switch {
			case y == r.Y && x == r.X:
				ch, style = '┌', frame
			case y == r.Y && x == x1:
				ch, style = '┐', frame
			case y == y1 && x == r.X:
				ch, style = '└', frame
			case y == y1 && x == x1:
				ch, style = '┘', frame
			case y == r.Y || y == y1:
				ch, style = '─', frame
			case x == r.X || x == x1:
				ch, style = '│', frame
			}
			putCell(s, x, y, glyph(ch), style)
		}
	}
	putStr(s, r.X+2, r.Y, x1, helpTitle, frame)
	perCol := r.H - 2
	shown := perCol * ncol
	if shown < len(sc.Bindings) {
		shown-- // the last row says how many are left out
	}
	for i, b := range sc.Bindings {
		if i >= shown {
			last := r.X + 2 + (ncol-1)*(colw+3)
			putStr(s, last, y1-1, x1, fmt.Sprintf("… and %d more", len(sc.Bindings)-i), body)
			break
		}
		col, row := i/perCol, i%perCol
		x0 := r.X + 2 + col*(colw+3)
		y := r.Y + 1 + row
		x := putStr(s, x0, y, x1, b.Keys, body.Bold(true))
		x = max(x, x0+keyw+2)
		putStr(s, x, y, x1, b.Command, body)
	}
}
