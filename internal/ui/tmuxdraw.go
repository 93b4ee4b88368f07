package ui

import (
	"strconv"

	"github.com/gdamore/tcell/v2"
)

// drawTmuxOverlays draws the pane numbers and the chooser over the pane
// area (rows rows from the top).
func drawTmuxOverlays(s tcell.Screen, sc *Scene, st StatusStyle, cols, rows int) {
	if sc.PaneNumbers {
		drawPaneNumbers(s, sc, st, cols, rows)
	}
	if sc.Chooser != nil {
		drawChooser(s, sc.Chooser, st, cols, rows)
	}
}

// drawPaneNumbers puts each pane's id in the middle of its content, the
// focused pane's in the focus colour, as tmux's display-panes.
func drawPaneNumbers(s tcell.Screen, sc *Scene, st StatusStyle, cols, rows int) {
	for _, p := range sc.Panes {
		c := clip(p.Content, Rect{0, 0, cols, rows})
		if c.W < 1 || c.H < 1 {
			continue
		}
		label := " " + strconv.Itoa(p.ID) + " "
		bg := tcolor(st.Border)
		if p.Focused {
			bg = tcolor(st.Focus)
		}
		style := tcell.StyleDefault.Background(bg).Foreground(tcell.ColorBlack).Bold(true)
		x := c.X + max((c.W-len(label))/2, 0)
		putStr(s, x, c.Y+c.H/2, c.X+c.W, label, style)
	}
}

const chooserHint = " Enter or 0-9 chooses, q closes "

// drawChooser draws the chooser: a box in the middle of the pane area
// listing its items, the selected one reversed, scrolled to keep it shown.
func drawChooser(s tcell.Screen, v *ChooserView, st StatusStyle, cols, rows int) {
	w := len(chooserHint) + 4
	for i, it := range v.Items {
		w = max(w, widths.StringWidth(chooserLine(i, it))+4)
	}
	w, h := min(w, cols), min(len(v.Items)+2, rows)
	if w < 4 || h < 3 {
		return
	}
	r := Rect{(cols - w) / 2, (rows - h) / 2, w, h}
	frame := tcell.StyleDefault.Foreground(tcolor(st.Focus)).Bold(true)
	body := tcell.StyleDefault
	x1, y1 := r.X+r.W-1, r.Y+r.H-1
	for y := r.Y; y <= y1; y++ {
		for x := r.X; x <= x1; x++ {
			ch, style := " ", body
			switch {
			case (y == r.Y || y == y1) && (x == r.X || x == x1):
				ch, style = "+", frame
			case y == r.Y || y == y1:
				ch, style = "─", frame
			case x == r.X || x == x1:
				ch, style = "│", frame
			}
			putCell(s, x, y, ch, style)
		}
	}
	putStr(s, r.X+2, r.Y, x1, " "+v.Title+" ", frame)
	putStr(s, r.X+2, y1, x1, chooserHint, frame)
	shown := r.H - 2
	first := max(v.Selected-shown+1, 0)
	for i := first; i < len(v.Items) && i-first < shown; i++ {
		style := body
		if i == v.Selected {
			style = body.Reverse(true)
		}
		y := r.Y + 1 + i - first
		for x := r.X + 1; x < x1; x++ {
			putCell(s, x, y, " ", style)
		}
		putStr(s, r.X+2, y, x1-1, chooserLine(i, v.Items[i]), style)
	}
}

// chooserLine is an item's line: its number when a digit chooses it.
func chooserLine(i int, item string) string {
	if i < 10 {
		return "(" + strconv.Itoa(i) + ") " + item
	}
	return "    " + item
}
