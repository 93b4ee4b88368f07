package ui

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gdamore/tcell/v2"
	"github.com/melmux/melmux/internal/uiconf"
	"github.com/melmux/melmux/pane/term"
)

// KeyID names one key press independently of how the terminal reported it:
// a printable or control character is Key tcell.KeyRune with Rune set and
// ModCtrl/ModAlt in Mod; other keys are their tcell.Key with modifiers.
type KeyID struct {
	Key  tcell.Key
	Rune rune
	Mod  tcell.ModMask
}

// ErrBadKey is wrapped by ParseKey's errors.
var ErrBadKey = uiconf.ErrBadKey

// Identify normalises a tcell key event. tcell reports Ctrl-letters as
// KeyCtrlA..KeyCtrlZ, as ASCII control codes, or as a rune with ModCtrl
// depending on the terminal; all become the lower-case rune with ModCtrl.
func Identify(ev *tcell.EventKey) KeyID {
	k, r, mod := ev.Key(), ev.Rune(), ev.Modifiers()
	mod &^= tcell.ModMeta | tcell.ModHyper
	switch {
	case k >= tcell.KeyCtrlSpace && k <= tcell.KeyCtrlUnderscore:
		return KeyID{tcell.KeyRune, ctrlRune(rune(k - tcell.KeyCtrlSpace)), mod | tcell.ModCtrl}
	case k == tcell.KeyDEL:
		return KeyID{Key: tcell.KeyBackspace, Mod: mod}
	case k == tcell.KeyBackspace, k == tcell.KeyTab, k == tcell.KeyEnter, k == tcell.KeyEsc:
		return KeyID{Key: k, Mod: mod}
	case k < ' ':
		return KeyID{tcell.KeyRune, ctrlRune(rune(k)), mod | tcell.ModCtrl}
	case k == tcell.KeyRune:
		if mod&tcell.ModCtrl != 0 && r >= 'A' && r <= 'Z' && mod&tcell.ModShift == 0 {
			r += 'a' - 'A'
		}
		if r > ' ' && mod&tcell.ModCtrl == 0 {
			mod &^= tcell.ModShift // the shift is already in the character
		}
		if r == ' ' && mod == tcell.ModShift {
			mod = 0
		}
		return KeyID{tcell.KeyRune, r, mod}
	}
	return KeyID{Key: k, Mod: mod}
}

// ctrlRune maps a control code (0-31) to the character typed with Ctrl.
func ctrlRune(c rune) rune {
	switch {
	case c == 0:
		return ' '
	case c <= 26:
		return 'a' + c - 1
	}
	return c + '@' // ESC [, FS \, GS ], RS ^, US _
}

// keyCodes maps the keys uiconf names to tcell's; F1 to F24 follow from F1.
var keyCodes = map[uiconf.Code]tcell.Key{
	uiconf.Rune: tcell.KeyRune, uiconf.Enter: tcell.KeyEnter, uiconf.Tab: tcell.KeyTab, uiconf.BTab: tcell.KeyBacktab,
	uiconf.Escape: tcell.KeyEsc, uiconf.BSpace: tcell.KeyBackspace, uiconf.Up: tcell.KeyUp, uiconf.Down: tcell.KeyDown,
	uiconf.Left: tcell.KeyLeft, uiconf.Right: tcell.KeyRight, uiconf.Home: tcell.KeyHome, uiconf.End: tcell.KeyEnd,
	uiconf.PgUp: tcell.KeyPgUp, uiconf.PgDn: tcell.KeyPgDn, uiconf.Insert: tcell.KeyInsert, uiconf.Delete: tcell.KeyDelete,
}

var keyDisplay = map[tcell.Key]string{
	tcell.KeyEnter: "Enter", tcell.KeyTab: "Tab", tcell.KeyBacktab: "BTab", tcell.KeyEsc: "Escape",
	tcell.KeyBackspace: "BSpace", tcell.KeyUp: "Up", tcell.KeyDown: "Down", tcell.KeyLeft: "Left",
	tcell.KeyRight: "Right", tcell.KeyHome: "Home", tcell.KeyEnd: "End", tcell.KeyPgUp: "PgUp",
	tcell.KeyPgDn: "PgDn", tcell.KeyInsert: "Insert", tcell.KeyDelete: "Delete",
}

// ParseKey reads a key in tmux notation (uiconf.ParseKey) as the KeyID
// Identify gives for the same key pressed.
func ParseKey(s string) (KeyID, error) {
	k, err := uiconf.ParseKey(s)
	if err != nil {
		return KeyID{}, err
	}
	id := KeyID{Key: keyCodes[k.Code], Rune: k.Rune}
	if k.Code >= uiconf.F1 {
		id.Key = tcell.KeyF1 + tcell.Key(k.Code-uiconf.F1)
	}
	if k.Mod&uiconf.Ctrl != 0 {
		id.Mod |= tcell.ModCtrl
	}
	if k.Mod&uiconf.Alt != 0 {
		id.Mod |= tcell.ModAlt
	}
	if k.Mod&uiconf.Shift != 0 {
		id.Mod |= tcell.ModShift
	}
	return id, nil
}

// String writes the key in the notation ParseKey reads.
func (k KeyID) String() string {
	var b strings.Builder
	if k.Mod&tcell.ModCtrl != 0 {
		b.WriteString("C-")
	}
	if k.Mod&tcell.ModAlt != 0 {
		b.WriteString("M-")
	}
	if k.Mod&tcell.ModShift != 0 {
		b.WriteString("S-")
	}
	switch {
	case k.Key == tcell.KeyRune && k.Rune == ' ':
		b.WriteString("Space")
	case k.Key == tcell.KeyRune:
		b.WriteRune(k.Rune)
	case k.Key >= tcell.KeyF1 && k.Key <= tcell.KeyF64:
		b.WriteString("F" + strconv.Itoa(int(k.Key-tcell.KeyF1)+1))
	default:
		if n, ok := keyDisplay[k.Key]; ok {
			b.WriteString(n)
		} else {
			b.WriteString(fmt.Sprintf("Key%d", k.Key))
		}
	}
	return b.String()
}

// xtermMod is the modifier parameter xterm puts in CSI 1;m X: 1 + Shift(1) + Alt(2) + Ctrl(4).
func xtermMod(m tcell.ModMask) int {
	n := 1
	if m&tcell.ModShift != 0 {
		n++
	}
	if m&tcell.ModAlt != 0 {
		n += 2
	}
	if m&tcell.ModCtrl != 0 {
		n += 4
	}
	return n
}

var cursorFinal = map[tcell.Key]byte{
	tcell.KeyUp: 'A', tcell.KeyDown: 'B', tcell.KeyRight: 'C', tcell.KeyLeft: 'D',
}

// homeEnd are the final bytes of modified Home and End (CSI 1;m H/F). Plain
// Home and End send CSI 1~ and CSI 4~, which is what the panes' TERM
// (screen-256color) lists and what tmux sends.
var homeEnd = map[tcell.Key]byte{tcell.KeyHome: 'H', tcell.KeyEnd: 'F'}

var tildeCode = map[tcell.Key]int{
	tcell.KeyHome: 1, tcell.KeyInsert: 2, tcell.KeyDelete: 3, tcell.KeyEnd: 4, tcell.KeyPgUp: 5, tcell.KeyPgDn: 6,
	tcell.KeyF5: 15, tcell.KeyF6: 17, tcell.KeyF7: 18, tcell.KeyF8: 19,
	tcell.KeyF9: 20, tcell.KeyF10: 21, tcell.KeyF11: 23, tcell.KeyF12: 24,
}

// keypadApp and keypadNormal are what the keypad keys tcell can tell apart
// send in application and normal keypad mode.
var keypadApp = map[tcell.Key]string{
	tcell.KeyUpLeft: "\x1bOw", tcell.KeyUpRight: "\x1bOy", tcell.KeyDownLeft: "\x1bOq",
	tcell.KeyDownRight: "\x1bOs", tcell.KeyCenter: "\x1bOu",
}

var keypadNormal = map[tcell.Key]tcell.Key{
	tcell.KeyUpLeft: tcell.KeyHome, tcell.KeyUpRight: tcell.KeyPgUp,
	tcell.KeyDownLeft: tcell.KeyEnd, tcell.KeyDownRight: tcell.KeyPgDn,
}

// EncodeKey returns the bytes xterm (and tmux) send for the key, given the modes the
// pane's application set (DECCKM for cursor keys, DECKPAM for the keypad).
// Alt is sent as an ESC prefix (xterm's metaSendsEscape, as tmux does). It
// returns nil for keys a terminal cannot send.
func EncodeKey(k KeyID, m term.Modes) []byte {
	alt := k.Mod&tcell.ModAlt != 0
	var out []byte
	if alt && (k.Key == tcell.KeyRune || k.Key == tcell.KeyEnter || k.Key == tcell.KeyTab ||
		k.Key == tcell.KeyBackspace || k.Key == tcell.KeyEsc) {
		out = append(out, 0x1b)
	}
	switch k.Key {
	case tcell.KeyRune:
		if k.Mod&tcell.ModCtrl != 0 {
			if c, ok := ctrlByte(k.Rune, k.Mod&tcell.ModShift != 0); ok {
				return append(out, c)
			}
		}
		return utf8.AppendRune(out, k.Rune)
	case tcell.KeyEnter:
		return append(out, '\r')
	case tcell.KeyTab:
		if k.Mod&tcell.ModShift != 0 {
			return append(out, "\x1b[Z"...)
		}
		return append(out, '\t')
	case tcell.KeyBacktab:
		return []byte("\x1b[Z")
	case tcell.KeyEsc:
		return append(out, 0x1b)
	case tcell.KeyBackspace:
		if k.Mod&tcell.ModCtrl != 0 {
			return append(out, 0x08)
		}
		return append(out, 0x7f)
	case tcell.KeyCenter:
		if m.AppKeypad {
			return []byte(keypadApp[k.Key])
		}
		return []byte("\x1b[E")
	}
	if s, ok := keypadApp[k.Key]; ok && m.AppKeypad {
		return []byte(s)
	}
	if nk, ok := keypadNormal[k.Key]; ok {
		k.Key = nk
	}
	mod := xtermMod(k.Mod)
	if f, ok := cursorFinal[k.Key]; ok {
		switch {
		case mod > 1:
			return fmt.Appendf(nil, "\x1b[1;%d%c", mod, f)
		case m.AppCursor:
			return []byte{0x1b, 'O', f}
		}
		return []byte{0x1b, '[', f}
	}
	if f, ok := homeEnd[k.Key]; ok && mod > 1 {
		return fmt.Appendf(nil, "\x1b[1;%d%c", mod, f)
	}
	// xterm sends F13-F24 for Shift+F1-F12, F25-F36 for Ctrl, F37-F48 for both.
	if k.Key >= tcell.KeyF13 && k.Key <= tcell.KeyF48 {
		n := int(k.Key - tcell.KeyF13)
		k.Key = tcell.KeyF1 + tcell.Key(n%12)
		k.Mod |= [...]tcell.ModMask{tcell.ModShift, tcell.ModCtrl, tcell.ModShift | tcell.ModCtrl}[n/12]
		mod = xtermMod(k.Mod)
	}
	if k.Key >= tcell.KeyF1 && k.Key <= tcell.KeyF4 {
		f := byte('P' + (k.Key - tcell.KeyF1))
		if mod > 1 {
			return fmt.Appendf(nil, "\x1b[1;%d%c", mod, f)
		}
		return []byte{0x1b, 'O', f}
	}
	if n, ok := tildeCode[k.Key]; ok {
		if mod > 1 {
			return fmt.Appendf(nil, "\x1b[%d;%d~", n, mod)
		}
		return fmt.Appendf(nil, "\x1b[%d~", n)
	}
	return nil
}

// ctrlByte is the control code for Ctrl+r, as xterm sends it.
func ctrlByte(r rune, shift bool) (byte, bool) {
	switch {
	case r >= 'a' && r <= 'z':
		return byte(r - 'a' + 1), true
	case r >= 'A' && r <= 'Z' && !shift:
		return byte(r - 'A' + 1), true
	case r >= 'A' && r <= 'Z':
		return byte(r - 'A' + 1), true
	}
	switch r {
	case ' ', '@', '2':
		return 0, true
	case '[', '3':
		return 0x1b, true
	case '\\', '4':
		return 0x1c, true
	case ']', '5':
		return 0x1d, true
	case '^', '6', '~':
		return 0x1e, true
	case '_', '7', '/', '-':
		return 0x1f, true
	case '8', '?':
		return 0x7f, true
	}
	return 0, false
}
