package keys

import (
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Modes are the input modes the program in the pane has set.
type Modes struct {
	AppCursor      bool // DECCKM (ESC [?1h): cursor keys send SS3 instead of CSI
	AppKeypad      bool // DECKPAM (ESC =): keypad keys send SS3 sequences
	BracketedPaste bool // ESC [?2004h: pasted text arrives between ESC [200~ and ESC [201~
}

const (
	esc        = "\x1b"
	pasteStart = esc + "[200~"
	pasteEnd   = esc + "[201~"
)

// Encode returns the bytes that type text, in the key notation the package
// doc describes, into a program with modes m.
func Encode(text string, m Modes) []byte {
	var out []byte
	var run strings.Builder // literal text since the last key
	flush := func() {
		out = appendText(out, run.String(), m)
		run.Reset()
	}
	for i := 0; i < len(text); {
		c := text[i]
		if c != '<' {
			run.WriteByte(c)
			i++
			continue
		}
		end := strings.IndexByte(text[i+1:], '>')
		if end < 0 {
			run.WriteByte(c)
			i++
			continue
		}
		k, ok := lookup(text[i+1 : i+1+end])
		switch {
		case !ok:
			// Not a key: the "<" is text and scanning goes on right
			// after it, so "<<Enter>" is "<" then Enter.
			run.WriteByte(c)
			i++
			continue
		case k.text != "":
			run.WriteString(k.text)
		default:
			flush()
			out = k.encode(out, m)
		}
		i += end + 2
	}
	flush()
	return out
}

// appendText types a run of literal text: newlines become Enter (CR), and a
// run whose lines continue past a newline goes as one bracketed paste when
// the program enabled it.
func appendText(out []byte, s string, m Modes) []byte {
	if s == "" {
		return out
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	body, enter := s, false
	if n := len(body) - 1; body[n] == '\n' || body[n] == '\r' {
		body, enter = body[:n], true
	}
	if m.BracketedPaste && strings.ContainsAny(body, "\r\n") {
		out = append(out, pasteStart...)
		out = append(out, strings.ReplaceAll(stripMarkers(body), "\n", "\r")...)
		out = append(out, pasteEnd...)
	} else {
		out = append(out, strings.ReplaceAll(body, "\n", "\r")...)
	}
	if enter {
		out = append(out, '\r')
	}
	return out
}

// stripMarkers removes paste start and end markers from text to be pasted,
// repeating until none is left, since removing one can join the halves of
// another ("\x1b[20\x1b[201~1~").
func stripMarkers(s string) string {
	for strings.Contains(s, pasteEnd) || strings.Contains(s, pasteStart) {
		s = strings.ReplaceAll(s, pasteEnd, "")
		s = strings.ReplaceAll(s, pasteStart, "")
	}
	return s
}

// Modifier bits, as xterm numbers them in "CSI code ; 1+mods".
const (
	modShift = 1
	modMeta  = 2
	modCtrl  = 4
)

type kind int

const (
	kindChar   kind = iota // a character: r
	kindEnter              // Enter, CR, Return
	kindTab                // Tab
	kindEsc                // Esc
	kindBS                 // Backspace
	kindNL                 // NL: line feed, ^J
	kindNul                // Nul: ^@
	kindCursor             // Up Down Right Left: final byte fin
	kindTilde              // CSI code ~ keys: code; Home/End also have fin for the modified form
	kindSS3                // F1-F4: SS3 fin, modified CSI 1 ; m fin
	kindPad                // a keypad key: app SS3 fin, else r
)

type key struct {
	kind kind
	r    rune   // the character (kindChar, kindPad)
	fin  byte   // final byte of the escape sequence
	code int    // CSI code for kindTilde
	mods int    // modifier bits
	text string // set when the key is only literal text (<lt>, <Space>, ...)
}

// named is built when first needed, not at package init: every melmux
// process links this package, and only the server encodes keys.
var named = sync.OnceValue(func() map[string]key {
	m := map[string]key{
		"enter": {kind: kindEnter}, "cr": {kind: kindEnter}, "return": {kind: kindEnter},
		"tab": {kind: kindTab}, "esc": {kind: kindEsc},
		"bs": {kind: kindBS}, "backspace": {kind: kindBS},
		"nl": {kind: kindNL}, "nul": {kind: kindNul},
		"space": {kind: kindChar, r: ' '}, "lt": {kind: kindChar, r: '<'},
		"bar": {kind: kindChar, r: '|'}, "bslash": {kind: kindChar, r: '\\'},
		"up": {kind: kindCursor, fin: 'A'}, "down": {kind: kindCursor, fin: 'B'},
		"right": {kind: kindCursor, fin: 'C'}, "left": {kind: kindCursor, fin: 'D'},
		"home": {kind: kindTilde, code: 1, fin: 'H'}, "end": {kind: kindTilde, code: 4, fin: 'F'},
		"ins": {kind: kindTilde, code: 2}, "insert": {kind: kindTilde, code: 2},
		"del": {kind: kindTilde, code: 3}, "delete": {kind: kindTilde, code: 3},
		"pgup": {kind: kindTilde, code: 5}, "pageup": {kind: kindTilde, code: 5},
		"pgdn": {kind: kindTilde, code: 6}, "pagedown": {kind: kindTilde, code: 6},
		"f1": {kind: kindSS3, fin: 'P'}, "f2": {kind: kindSS3, fin: 'Q'},
		"f3": {kind: kindSS3, fin: 'R'}, "f4": {kind: kindSS3, fin: 'S'},
		"f5": {kind: kindTilde, code: 15}, "f6": {kind: kindTilde, code: 17},
		"f7": {kind: kindTilde, code: 18}, "f8": {kind: kindTilde, code: 19},
		"f9": {kind: kindTilde, code: 20}, "f10": {kind: kindTilde, code: 21},
		"f11": {kind: kindTilde, code: 23}, "f12": {kind: kindTilde, code: 24},
		"kplus": {kind: kindPad, r: '+', fin: 'k'}, "kminus": {kind: kindPad, r: '-', fin: 'm'},
		"kmultiply": {kind: kindPad, r: '*', fin: 'j'}, "kdivide": {kind: kindPad, r: '/', fin: 'o'},
		"kpoint": {kind: kindPad, r: '.', fin: 'n'}, "kcomma": {kind: kindPad, r: ',', fin: 'l'},
		"kequal": {kind: kindPad, r: '=', fin: 'X'}, "kenter": {kind: kindPad, r: '\r', fin: 'M'},
	}
	for d := '0'; d <= '9'; d++ {
		m["k"+string(d)] = key{kind: kindPad, r: d, fin: byte('p' + d - '0')}
	}
	return m
})

// lookup parses the inside of "<...>": modifiers, then a named key or (with
// at least one modifier) a single character.
func lookup(name string) (key, bool) {
	mods := 0
	for len(name) > 2 && name[1] == '-' {
		switch name[0] {
		case 'C', 'c':
			mods |= modCtrl
		case 'M', 'm', 'A', 'a':
			mods |= modMeta
		case 'S', 's':
			mods |= modShift
		default:
			return key{}, false
		}
		name = name[2:]
	}
	if r, size := utf8.DecodeRuneInString(name); size == len(name) && r != utf8.RuneError && mods != 0 {
		return key{kind: kindChar, r: r, mods: mods}, true
	}
	k, ok := named()[strings.ToLower(name)]
	if !ok {
		return key{}, false
	}
	k.mods = mods
	if k.kind == kindChar && mods == 0 {
		k.text = string(k.r)
	}
	return k, true
}

// encode appends the bytes of one key.
func (k key) encode(out []byte, m Modes) []byte {
	meta := k.mods&modMeta != 0
	ctrl := k.mods&modCtrl != 0
	shift := k.mods&modShift != 0
	prefix := func() {
		if meta {
			out = append(out, esc...)
		}
	}
	switch k.kind {
	case kindChar:
		prefix()
		r := k.r
		if shift {
			r = unicode.ToUpper(r)
		}
		if ctrl {
			if c, ok := control(r); ok {
				return append(out, c)
			}
		}
		return utf8.AppendRune(out, r)
	case kindEnter:
		prefix()
		return append(out, '\r')
	case kindTab:
		if shift {
			prefix()
			return append(out, esc+"[Z"...)
		}
		prefix()
		return append(out, '\t')
	case kindEsc:
		prefix()
		return append(out, esc...)
	case kindBS:
		prefix()
		if ctrl {
			return append(out, 0x08)
		}
		return append(out, 0x7f)
	case kindNL:
		prefix()
		return append(out, '\n')
	case kindNul:
		prefix()
		return append(out, 0)
	case kindCursor:
		if k.mods != 0 {
			return appendCSI(out, 1, k.mods, k.fin)
		}
		if m.AppCursor {
			return append(out, esc[0], 'O', k.fin)
		}
		return append(out, esc[0], '[', k.fin)
	case kindTilde:
		if k.mods != 0 && k.fin != 0 {
			return appendCSI(out, 1, k.mods, k.fin)
		}
		if k.mods != 0 {
			return appendCSI(out, k.code, k.mods, '~')
		}
		out = append(out, esc[0], '[')
		out = strconv.AppendInt(out, int64(k.code), 10)
		return append(out, '~')
	case kindSS3:
		if k.mods != 0 {
			return appendCSI(out, 1, k.mods, k.fin)
		}
		return append(out, esc[0], 'O', k.fin)
	case kindPad:
		prefix()
		if m.AppKeypad {
			return append(out, esc[0], 'O', k.fin)
		}
		return utf8.AppendRune(out, k.r)
	}
	return out
}

// appendCSI appends xterm's modified-key form ESC [ code ; 1+mods fin.
func appendCSI(out []byte, code, mods int, fin byte) []byte {
	out = append(out, esc[0], '[')
	out = strconv.AppendInt(out, int64(code), 10)
	out = append(out, ';')
	out = strconv.AppendInt(out, int64(1+mods), 10)
	return append(out, fin)
}

// control returns the control code a terminal sends for Ctrl and r, as xterm
// does without modifyOtherKeys (letters, the ASCII symbols @[\]^_?, space and
// the digits 2-8 of the VT220 layout).
func control(r rune) (byte, bool) {
	switch {
	case r >= 'a' && r <= 'z':
		return byte(r - 'a' + 1), true
	case r >= '@' && r <= '_': // @, A-Z, [ \ ] ^ _
		return byte(r - '@'), true
	}
	switch r {
	case ' ', '2':
		return 0, true
	case '3':
		return 0x1b, true
	case '4':
		return 0x1c, true
	case '5':
		return 0x1d, true
	case '6':
		return 0x1e, true
	case '7', '/':
		return 0x1f, true
	case '8', '?':
		return 0x7f, true
	}
	return 0, false
}
