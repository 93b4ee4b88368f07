package ui

import (
	"github.com/gdamore/tcell/v2"
)

// drawSeparators draws the vertical separators, joining them to the title
// bars they cross and colouring the part beside the focused pane.
func drawSeparators(s tcell.Screen, sc *Scene, st StatusStyle, b Rect) {
	plain := tcell.StyleDefault.Foreground(tcolor(st.Border))
	focus := tcell.StyleDefault.Foreground(tcolor(st.Focus))
	fp := sc.Focused()
	for _, r := range sc.Separators {
		r = clip(r, b)
		for y := r.Y; y < r.Y+r.H; y++ {
			for x := r.X; x < r.X+r.W; x++ {
				style := plain
				if fp != nil && y >= fp.Frame.Y && y < fp.Frame.Y+fp.Frame.H &&
					(fp.Frame.X+fp.Frame.W == x || fp.Frame.X == x+1) {
					style = focus
				}
				ch := joint(isBorderAt(sc, x-1, y), isBorderAt(sc, x+1, y),
					onSeparator(sc, x, y-1), onSeparator(sc, x, y+1))
				putCell(s, x, y, glyph(ch), style)
			}
		}
	}
}

// joint picks the box-drawing character for a separator cell from which
// neighbours it connects to: title bars left and right, separator above and below.
func joint(left, right, up, down bool) rune {
	switch {
	case left && right && up && down:
		return '┼'
	case left && right && down:
		return '┬'
	case left && right && up:
		return '┴'
	case left && (up || down):
		return '┤'
	case right && (up || down):
		return '├'
	}
	return '│'
}
func onSeparator(sc *Scene, x, y int) bool {
	for _, r := range sc.Separators {
		if r.Contains(x, y) {
			return true
		}
	}
	return false
}

// isBorderAt reports whether (x, y) lies on some pane's title bar.
func isBorderAt(sc *Scene, x, y int) bool {
	for i := range sc.Panes {
		f := sc.Panes[i].Frame
		if f.H > 0 && y == f.Y && x >= f.X && x < f.X+f.W {
			return true
		}
	}
	return false
}
