// Package color is the colour of a terminal cell, apart from the emulator
// that produces it, so that what only names colours (the config file's
// status colours) need not link the emulator and vt10x. pane/term names it
// term.Color.
package color

// Color is a terminal colour: the default colour, a palette index (0-255) or a
// 24-bit RGB value. The zero value is the default colour, so a zero Cell is a
// blank cell in default colours.
type Color uint32

const (
	indexed Color = 1 << 24
	rgb     Color = 2 << 24
	kind    Color = 3 << 24
)

// Default is the terminal's default foreground or background.
const Default Color = 0

// Indexed returns palette colour i (0-15 the ANSI colours, 16-255 the xterm cube and greys).
func Indexed(i uint8) Color { return indexed | Color(i) }

// RGB returns a truecolour value.
func RGB(r, g, b uint8) Color { return rgb | Color(r)<<16 | Color(g)<<8 | Color(b) }

// IsDefault reports whether c is the default colour.
func (c Color) IsDefault() bool { return c&kind == 0 }

// Index returns the palette index when c is a palette colour.
func (c Color) Index() (uint8, bool) { return uint8(c), c&kind == indexed }

// RGB returns the components when c is a truecolour value.
func (c Color) RGB() (r, g, b uint8, ok bool) {
	return uint8(c >> 16), uint8(c >> 8), uint8(c), c&kind == rgb
}
