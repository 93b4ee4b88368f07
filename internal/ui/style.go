package ui

import (
	"github.com/gdamore/tcell/v2"
	"github.com/melmux/melmux/internal/uiconf"
	"github.com/melmux/melmux/pane/term"
)

// StatusStyle holds the colours of the status line and pane borders. A zero
// StatusStyle means DefaultStatusStyle.
type StatusStyle = uiconf.StatusStyle

// DefaultStatusStyle is black on green like tmux, with the focused border green.
func DefaultStatusStyle() StatusStyle { return uiconf.DefaultStatusStyle() }

// tcolor converts an emulator colour to tcell's.
func tcolor(c term.Color) tcell.Color {
	if i, ok := c.Index(); ok {
		return tcell.PaletteColor(int(i))
	}
	if r, g, b, ok := c.RGB(); ok {
		return tcell.NewRGBColor(int32(r), int32(g), int32(b))
	}
	return tcell.ColorDefault
}

// tstyle converts a cell's colours and attributes to a tcell style. Hidden
// text is drawn in its background colour, which is what a terminal shows.
func tstyle(fg, bg term.Color, a term.Attr) tcell.Style {
	if a&term.AttrHidden != 0 {
		fg = bg // equal colours hide the text whether or not it is reversed
	}
	st := tcell.StyleDefault.Foreground(tcolor(fg)).Background(tcolor(bg))
	if a == 0 {
		return st
	}
	var m tcell.AttrMask
	if a&term.AttrBold != 0 {
		m |= tcell.AttrBold
	}
	if a&term.AttrDim != 0 {
		m |= tcell.AttrDim
	}
	if a&term.AttrItalic != 0 {
		m |= tcell.AttrItalic
	}
	if a&term.AttrBlink != 0 {
		m |= tcell.AttrBlink
	}
	if a&term.AttrReverse != 0 {
		m |= tcell.AttrReverse
	}
	if a&term.AttrStrike != 0 {
		m |= tcell.AttrStrikeThrough
	}
	st = st.Attributes(m)
	if a&term.AttrUnderline != 0 {
		st = st.Underline(true)
	}
	return st
}
