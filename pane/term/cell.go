package term

import "github.com/melmux/melmux/pane/term/color"

// Color is a terminal colour: the default colour, a palette index (0-255) or a
// 24-bit RGB value. The zero value is the default colour, so a zero Cell is a
// blank cell in default colours.
type Color = color.Color

// ColorDefault is the terminal's default foreground or background.
const ColorDefault = color.Default

// Indexed returns palette colour i (0-15 the ANSI colours, 16-255 the xterm cube and greys).
func Indexed(i uint8) Color { return color.Indexed(i) }

// RGB returns a truecolour value.
func RGB(r, g, b uint8) Color { return color.RGB(r, g, b) }

// Attr is a set of text attributes.
type Attr uint16

const (
	AttrBold Attr = 1 << iota
	AttrDim
	AttrItalic
	AttrUnderline
	AttrBlink
	AttrReverse
	AttrHidden
	AttrStrike
)

// Cell is one screen cell. A wide character occupies two cells: the first has
// Width 2 and holds the rune, the second has Width 0 and no rune (a
// continuation). Comb holds combining marks that follow Rune in the same cell.
// A blank cell has Rune 0 or ' ' and Width 1.
type Cell struct {
	Rune  rune
	Comb  string
	Width uint8
	FG    Color
	BG    Color
	Attr  Attr
}

// CursorShape is the DECSCUSR cursor style an application asked for.
type CursorShape uint8

const (
	CursorDefault CursorShape = iota
	CursorBlockBlink
	CursorBlock
	CursorUnderlineBlink
	CursorUnderline
	CursorBarBlink
	CursorBar
)

// Modes are the terminal modes an application has set that matter to whoever
// feeds the pane input or draws it.
type Modes struct {
	AppCursor      bool // DECCKM: cursor keys send ESC O x
	AppKeypad      bool // DECKPAM
	BracketedPaste bool // 2004
	AltScreen      bool // 47/1047/1049
	SyncOutput     bool // 2026: a frame is being drawn, do not show it half done
	MouseX10       bool // 9
	MouseButton    bool // 1000
	MouseDrag      bool // 1002
	MouseMotion    bool // 1003
	MouseSGR       bool // 1006
	FocusEvents    bool // 1004
	CursorHidden   bool // DECTCEM reset
	Insert         bool // IRM
}

// Cursor is where the cursor is and how it looks.
type Cursor struct {
	X, Y    int
	Visible bool
	Shape   CursorShape
}

// Screen is a copy of the visible screen, safe to keep and read without locks.
type Screen struct {
	Cols, Rows int
	Cells      [][]Cell // Rows rows of Cols cells
	Cursor     Cursor
	Title      string
	Modes      Modes
}
