package ui

import (
	"fmt"

	"github.com/gdamore/tcell/v2"
)

// statusSeg is one piece of the status line. Tab is the tab index a click on
// it selects, or -1.
type statusSeg struct {
	X, W  int
	Text  string
	Style tcell.Style
	Tab   int
}

// statusLayout places the status line: session and tabs from the left,
// message after them, prefix indicator and size note on the right. Draw and
// mouse hit-testing share it so clicks land on what is shown.
func statusLayout(sc *Scene, st StatusStyle, cols int) []statusSeg {
	base := tcell.StyleDefault.Foreground(tcolor(st.FG)).Background(tcolor(st.BG))
	var segs []statusSeg
	var right []statusSeg
	if sc.PrefixActive {
		right = append(right, statusSeg{Text: " PREFIX ", Style: base.Reverse(true).Bold(true), Tab: -1})
	}
	if sc.SizeNote != "" {
		right = append(right, statusSeg{Text: " " + sc.SizeNote + " ", Style: base, Tab: -1})
	}
	rw := 0
	for _, r := range right {
		rw += widths.StringWidth(r.Text)
	}
	limit := max(cols-rw, 0)
	x := 0
	add := func(text string, style tcell.Style, tab int) {
		w := widths.StringWidth(text)
		if x+w > limit {
			text = widths.Truncate(text, limit-x, "")
			w = widths.StringWidth(text)
		}
		if w > 0 {
			segs = append(segs, statusSeg{X: x, W: w, Text: text, Style: style, Tab: tab})
			x += w
		}
	}
	add("["+sc.Session+"] ", base.Bold(true), -1)
	type tabLabel struct {
		text  string
		style tcell.Style
		index int
	}
	labels := make([]tabLabel, 0, len(sc.Tabs))
	total, active := 0, -1
	for i, t := range sc.Tabs {
		label := fmt.Sprintf("%d:%s(%d)", t.Index, t.Name, t.Panes)
		if t.Zoomed {
			label += "Z"
		}
		// A pane needing the person outranks one that finished.
		switch {
		case t.Attention:
			label += "!"
		case t.Done:
			label += "+"
		}
		style := base
		if t.Active {
			style = tcell.StyleDefault.Foreground(tcolor(st.ActiveFG)).Background(tcolor(st.ActiveBG)).Bold(true)
			label += "*"
			active = i
		}
		if t.Attention && !t.Active {
			style = style.Foreground(tcolor(st.Attention)).Bold(true)
		}
		labels = append(labels, tabLabel{label, style, t.Index})
		total += widths.StringWidth(label) + 1
	}
	// When the tabs do not fit, the list starts late enough that the
	// active tab shows, with "<" saying some are hidden.
	first := 0
	if room := limit - x; total > room && active > 0 {
		w := 2 // "< "
		for i := active; i >= 0; i-- {
			w += widths.StringWidth(labels[i].text) + 1
			if w > room {
				break
			}
			first = i
		}
		if first == 0 && widths.StringWidth(labels[active].text)+3 > room {
			first = active
		}
	}
	if first > 0 {
		add("< ", base, -1)
	}
	for _, l := range labels[first:] {
		add(l.text, l.style, l.index)
		add(" ", base, -1)
	}
	if sc.Message != "" {
		add(" "+sc.Message, base.Bold(true), -1)
	}
	x = limit
	for _, r := range right {
		r.W = widths.StringWidth(r.Text)
		if x+r.W > cols {
			break
		}
		r.X = x
		segs = append(segs, r)
		x += r.W
	}
	return segs
}

// drawStatus draws the last row: the prompt when one is open, else the status line.
func drawStatus(s tcell.Screen, sc *Scene, st StatusStyle, cols, y int) {
	base := tcell.StyleDefault.Foreground(tcolor(st.FG)).Background(tcolor(st.BG))
	// Each cell is written once (see drawTitle): blanks only where no text
	// goes, so an unchanged status line sends nothing.
	blank := func(from, to int) {
		for x := max(from, 0); x < min(to, cols); x++ {
			s.Put(x, y, " ", base)
		}
	}
	if sc.Prompt != nil {
		text, _ := promptLayout(sc.Prompt, cols)
		blank(putStr(s, 0, y, cols, text, base), cols)
		return
	}
	x := 0
	for _, g := range statusLayout(sc, st, cols) {
		if g.X < x {
			// Segments overlap (none do today): blank the rest and let
			// this one write over, as before.
			blank(x, cols)
			x = cols
		}
		blank(x, g.X)
		x = max(x, putStr(s, g.X, y, g.X+g.W, g.Text, g.Style))
	}
	blank(x, cols)
}
