package ui

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/melmux/melmux/pane/term"
)

// What a paste carries. Every text put into a pane as a paste (a person's
// paste, the melmux buffer, send_agent's text) goes through PasteBytes, so
// this is decided once.
//
// A paste carries text: characters, tabs and line breaks. Every other
// control character is left out, as xterm leaves them out of a paste by
// default. Inside a bracketed paste ESC could end the paste early and have
// the rest run as typed keys: removing the end marker ESC[201~ once joined
// the halves around it ("ESC[20" "ESC[201~" "1~") into a real one, and Claude
// Code in its default permission mode then ran "!touch FILE" with no
// question asked. Without bracketed paste each control character acts as
// the key it is (^C ends a line reader, ^U erases the line). The C1
// controls (U+0080-U+009F) are left out too: some programs take U+009B as
// CSI. Line breaks (CRLF, LF and a lone CR) are sent as CR, what Enter
// sends; a byte that is not UTF-8 as U+FFFD.

// PasteBytes is what a terminal sends when text is pasted into an
// application with the given modes: the text as PasteText has it with its
// line breaks as CR, wrapped in ESC[200~ ... ESC[201~ when the application
// enabled bracketed paste (2004). Nothing in the text can end the paste.
func PasteBytes(text string, m term.Modes) []byte {
	text = strings.ReplaceAll(PasteText(text), "\n", "\r")
	if !m.BracketedPaste {
		return []byte(text)
	}
	out := make([]byte, 0, len(text)+12)
	out = append(out, "\x1b[200~"...)
	out = append(out, text...)
	return append(out, "\x1b[201~"...)
}

// PasteText is the text a paste carries: control characters other than tab
// and line breaks left out, every line break a "\n", every byte that is
// not UTF-8 a U+FFFD.
func PasteText(text string) string {
	if _, n := PasteDropped(text); n == 0 && !strings.ContainsRune(text, '\r') && utf8.ValidString(text) {
		return text
	}
	text = strings.ReplaceAll(text, "\r\n", "\n")
	var b strings.Builder
	b.Grow(len(text))
	for _, r := range text {
		switch {
		case r == '\r':
			b.WriteByte('\n')
		case !pasteDrops(r):
			b.WriteRune(r) // a byte that is not UTF-8 comes as U+FFFD
		}
	}
	return b.String()
}

// PasteControl is a character a paste leaves out.
type PasteControl struct {
	At   int  // its byte offset in the text
	Rune rune // the character
}

// String names the character and where it is: "ESC (0x1b) at byte 3".
func (c PasteControl) String() string {
	return fmt.Sprintf("%s at byte %d", ControlName(c.Rune), c.At)
}

// PasteDropped counts the characters a paste leaves out of text and
// returns the first.
func PasteDropped(text string) (first PasteControl, n int) {
	for i, r := range text {
		if pasteDrops(r) {
			if n == 0 {
				first = PasteControl{At: i, Rune: r}
			}
			n++
		}
	}
	return first, n
}

// pasteDrops reports whether a paste leaves r out: a C0 control other than
// tab, LF and CR (the line breaks), DEL, or a C1 control.
func pasteDrops(r rune) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r':
		return false
	case r < 0x20:
		return true
	}
	return r >= 0x7f && r < 0xa0
}

// ControlName names a control character for a message: "ESC (0x1b)",
// "^C (0x03)", "DEL (0x7f)", "U+009B (a C1 control)".
func ControlName(r rune) string {
	switch {
	case r == 0x1b:
		return "ESC (0x1b)"
	case r == 0x7f:
		return "DEL (0x7f)"
	case r < 0x20:
		return fmt.Sprintf("^%c (0x%02x)", r+'@', r)
	case r >= 0x80 && r < 0xa0:
		return fmt.Sprintf("U+%04X (a C1 control)", r)
	}
	return fmt.Sprintf("%q", r)
}
