package uiconf

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrBadKey is wrapped by ParseKey's errors.
var ErrBadKey = errors.New("bad key name")

// Code is a key that is not a character; internal/ui maps each to tcell's.
type Code uint8

// The keys ParseKey names. F1 to F24 are consecutive, F1+n being F(n+1).
const (
	Rune Code = iota // a character: Key.Rune
	Enter
	Tab
	BTab
	Escape
	BSpace
	Up
	Down
	Left
	Right
	Home
	End
	PgUp
	PgDn
	Insert
	Delete
	F1
)

// Mod is a set of modifiers.
type Mod uint8

const (
	Ctrl Mod = 1 << iota
	Alt
	Shift
)

// Key is one key press as ParseKey reads it: a character (Code Rune) or a
// named key, with modifiers. A Ctrl letter is lower case; Shift is in the
// character when the character carries it (S-a is A).
type Key struct {
	Code Code
	Rune rune
	Mod  Mod
}

var keyNames = map[string]Code{
	"enter": Enter, "tab": Tab, "btab": BTab, "backtab": BTab,
	"esc": Escape, "escape": Escape, "bspace": BSpace, "bs": BSpace,
	"backspace": BSpace, "up": Up, "down": Down, "left": Left,
	"right": Right, "home": Home, "end": End, "pgup": PgUp,
	"pageup": PgUp, "ppage": PgUp, "pgdn": PgDn, "pagedown": PgDn,
	"npage": PgDn, "ic": Insert, "insert": Insert, "dc": Delete,
	"delete": Delete, "del": Delete,
}

// ParseKey reads a key in tmux notation: a character ("%", "c"), a name
// (Enter Tab BTab Escape Space BSpace Up Down Left Right Home End PgUp PgDn
// Insert Delete F1-F24), optionally after modifiers C- (Ctrl), M- (Alt) and
// S- (Shift): "C-b", "M-x", "S-Up", "C-M-a". Names are case-insensitive; a
// Ctrl letter is the same key in either case. Angle brackets ("<C-b>") are
// accepted too.
func ParseKey(s string) (Key, error) {
	orig := s
	if len(s) > 2 && s[0] == '<' && s[len(s)-1] == '>' {
		s = s[1 : len(s)-1]
	}
	var mod Mod
	for len(s) > 2 && s[1] == '-' {
		switch s[0] {
		case 'C', 'c':
			mod |= Ctrl
		case 'M', 'm', 'A', 'a':
			mod |= Alt
		case 'S', 's':
			mod |= Shift
		default:
			return Key{}, fmt.Errorf("%w %q: unknown modifier %q (use C-, M- or S-)", ErrBadKey, orig, s[:2])
		}
		s = s[2:]
	}
	if s == "" {
		return Key{}, fmt.Errorf("%w: empty key name", ErrBadKey)
	}
	if utf8.RuneCountInString(s) == 1 {
		r, _ := utf8.DecodeRuneInString(s)
		if r < ' ' || r == 0x7f {
			return Key{}, fmt.Errorf("%w %q: write control keys as C-x", ErrBadKey, orig)
		}
		if mod&Ctrl != 0 && r >= 'A' && r <= 'Z' {
			r += 'a' - 'A'
		}
		if mod&Ctrl == 0 && mod&Shift != 0 {
			// Shift is in the character a terminal sends: S-a is A.
			r = unicode.ToUpper(r)
			mod &^= Shift
		}
		return Key{Rune, r, mod}, nil
	}
	low := strings.ToLower(s)
	if low == "space" {
		return Key{Rune, ' ', mod}, nil
	}
	if k, ok := keyNames[low]; ok {
		return Key{Code: k, Mod: mod}, nil
	}
	if low[0] == 'f' {
		if n, err := strconv.Atoi(low[1:]); err == nil && n >= 1 && n <= 24 {
			return Key{Code: F1 + Code(n-1), Mod: mod}, nil
		}
	}
	return Key{}, fmt.Errorf("%w %q: use a character, or Enter Tab BTab Escape Space BSpace Up Down Left Right Home End PgUp PgDn Insert Delete F1-F24, with optional C- M- S- modifiers", ErrBadKey, orig)
}
