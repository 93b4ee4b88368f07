package ui

import (
	"github.com/gdamore/tcell/v2"
)

// drawChoices lists Tab's completions on row y, above the prompt, in the
// status line's colours with the one in the line reversed. When they do not
// all fit, the list starts late enough to show that one, "<" saying some
// are hidden, as the tabs do.
func drawChoices(s tcell.Screen, p *PromptView, st StatusStyle, cols, y int) {
	base := tcell.StyleDefault.Foreground(tcolor(st.FG)).Background(tcolor(st.BG))
	for x := 0; x < cols; x++ {
		s.Put(x, y, " ", base)
	}
	at := p.Choice
	if at >= len(p.Choices) {
		at = -1
	}
	first := 0
	if at > 0 {
		w := 2 // "< "
		for i := at; i >= 0; i-- {
			w += widths.StringWidth(p.Choices[i]) + 2
			if w > cols {
				break
			}
			first = i
		}
	}
	x := 0
	if first > 0 {
		x = putStr(s, x, y, cols, "< ", base)
	}
	for i := first; i < len(p.Choices) && x < cols; i++ {
		style := base
		if i == at {
			style = base.Reverse(true).Bold(true)
		}
		x = putStr(s, x, y, cols, p.Choices[i], style)
		x += 2
	}
}

// promptLayout returns the part of the prompt line that fits in cols and
// the cursor's column in it: a line longer than the screen scrolls left so
// the cursor stays in view.
func promptLayout(p *PromptView, cols int) (string, int) {
	line := []rune(p.Label + p.Text)
	cur := len([]rune(p.Label)) + min(max(p.Cursor, 0), len([]rune(p.Text)))
	start, x := 0, 0
	for _, r := range line[:cur] {
		x += widths.RuneWidth(r)
	}
	for x >= cols && start < cur {
		x -= widths.RuneWidth(line[start])
		start++
	}
	return string(line[start:]), x
}
