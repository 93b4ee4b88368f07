package uiconf

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/melmux/melmux/pane/term/color"
)

// StatusStyle holds the colours of the status line and pane borders. A zero
// StatusStyle means DefaultStatusStyle.
type StatusStyle struct {
	FG, BG             color.Color // the status line
	ActiveFG, ActiveBG color.Color // the active tab
	Attention          color.Color // the marker of a tab that needs a person
	Border, Focus      color.Color // pane borders; the focused pane's border
}

// DefaultStatusStyle is black on green like tmux, with the focused border green.
func DefaultStatusStyle() StatusStyle {
	return StatusStyle{
		FG: color.Indexed(0), BG: color.Indexed(2),
		ActiveFG: color.Indexed(15), ActiveBG: color.Indexed(4),
		Attention: color.Indexed(1),
		Border:    color.Indexed(8), Focus: color.Indexed(2),
	}
}

// OrDefault is s, or DefaultStatusStyle for a zero s.
func (s StatusStyle) OrDefault() StatusStyle {
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
func ParseColor(s string) (color.Color, error) {
	v := strings.ToLower(strings.TrimSpace(s))
	if v == "default" {
		return color.Default, nil
	}
	if i, ok := colorNames[v]; ok {
		return color.Indexed(i), nil
	}
	num := strings.TrimPrefix(strings.TrimPrefix(v, "colour"), "color")
	if n, err := strconv.Atoi(num); err == nil {
		if n < 0 || n > 255 {
			return 0, fmt.Errorf("colour %q: palette index must be 0-255", s)
		}
		return color.Indexed(uint8(n)), nil
	}
	if len(v) == 7 && v[0] == '#' {
		if n, err := strconv.ParseUint(v[1:], 16, 32); err == nil {
			return color.RGB(uint8(n>>16), uint8(n>>8), uint8(n)), nil
		}
	}
	return 0, fmt.Errorf("colour %q not understood: use default, a name (black red green yellow blue magenta cyan white, bright...), 0-255 or #rrggbb", s)
}
