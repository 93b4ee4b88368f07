package ui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/melmux/melmux/pane/term"
)

// StatusStyle holds the colours of the status line and pane borders. A zero
// StatusStyle means DefaultStatusStyle.
type StatusStyle struct {
	FG, BG             term.Color // the status line
	ActiveFG, ActiveBG term.Color // the active tab
	Attention          term.Color // the marker of a tab that needs a person
	Border, Focus      term.Color // pane borders; the focused pane's border
}

// DefaultStatusStyle is black on green like tmux, with the focused border green.
func DefaultStatusStyle() StatusStyle {
	return StatusStyle{
		FG: term.Indexed(0), BG: term.Indexed(2),
		ActiveFG: term.Indexed(15), ActiveBG: term.Indexed(4),
		Attention: term.Indexed(1),
		Border:    term.Indexed(8), Focus: term.Indexed(2),
	}
}

func (s StatusStyle) orDefault() StatusStyle {
	if s == (StatusStyle{}) {
		return DefaultStatusStyle()
	}
	return s
}

var colorNames = map[string]uint8{
	"black": 0, "red": 1, "green": 2, "yellow": 3, "blue": 4, "magenta": 5, "cyan": 6, "white": 7,
	"brightblack": 8, "grey": 8, "gray": 8, "brightred": 9, "brightgreen": 10, "brightyellow": 11,
	"brightblue": 12, "brightmagenta": 13, "brightcyan": 14, "brightwhite": 15,
}

// ParseColor reads a colour as written in the config file: "default", a name
// ("red", "brightblue"), a palette index "0".."255", "colour123", or "#rrggbb".
func ParseColor(s string) (term.Color, error) {
	v := strings.ToLower(strings.TrimSpace(s))
	if v == "default" {
		return term.ColorDefault, nil
	}
	if i, ok := colorNames[v]; ok {
		return term.Indexed(i), nil
	}
	num := strings.TrimPrefix(strings.TrimPrefix(v, "colour"), "color")
	if n, err := strconv.Atoi(num); err == nil {
		if n < 0 || n > 255 {
			return 0, fmt.Errorf("colour %q: palette index must be 0-255", s)
		}
		return term.Indexed(uint8(n)), nil
	}
	if len(v) == 7 && v[0] == '#' {
		if n, err := strconv.ParseUint(v[1:], 16, 32); err == nil {
			return term.RGB(uint8(n>>16), uint8(n>>8), uint8(n)), nil
		}
	}
	return 0, fmt.Errorf("colour %q not understood: use default, a name (black red green yellow blue magenta cyan white, bright...), 0-255 or #rrggbb", s)
}

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
