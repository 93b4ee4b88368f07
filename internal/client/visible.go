package client

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Visible makes text from outside melmux (a pane's title or screen, a
// program's status report, an agent's reply, a model's words) safe to print
// on a person's terminal, where its control characters would act: a reply
// holding ESC ] 52 wrote the clipboard, ESC [ 2 J cleared the screen. Every
// control character but newline and tab is shown instead: C0 in caret
// notation (ESC as ^[), DEL as ^?, a C1 control as <U+009B>; so are the
// bidirectional embedding, override and isolate characters (U+202A-U+202E,
// U+2066-U+2069), which make the terminal show the text in another order
// than it has (<U+202E>). A carriage return is dropped: it would let text
// overwrite text, and CRLF line ends lose nothing by it. A byte that is not
// UTF-8 becomes U+FFFD, as a terminal would show it, so that no lone 0x9b
// (CSI in 8-bit terminals) gets through. A stream may be made visible piece
// by piece when each piece is whole runes.
func Visible(s string) string { return visible(s, false) }

// VisibleLine is Visible for text that must stay on one line, a field of a
// table or of a one-line message: newline, tab and carriage return are shown
// too (^J, ^I, ^M).
func VisibleLine(s string) string { return visible(s, true) }

func visible(s string, line bool) string {
	clean := true
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if hidden(r, line) || r == utf8.RuneError && n == 1 {
			clean = false
			break
		}
		i += n
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for _, r := range s {
		switch {
		case !hidden(r, line):
			b.WriteRune(r) // a byte that is not UTF-8 comes as U+FFFD
		case r == '\r' && !line:
		case r < 0x20:
			b.WriteByte('^')
			b.WriteRune(r + '@')
		case r == 0x7f:
			b.WriteString("^?")
		default:
			fmt.Fprintf(&b, "<U+%04X>", r)
		}
	}
	return b.String()
}

// hidden reports whether r acts on a terminal instead of showing: a control
// character (newline and tab only on a line of their own) or a bidi one.
func hidden(r rune, line bool) bool {
	switch {
	case r == '\n' || r == '\t':
		return line
	case r < 0x20 || r >= 0x7f && r < 0xa0:
		return true
	}
	return IsBidiControl(r)
}

// IsBidiControl reports whether r is one of the bidirectional formatting
// characters that change the order text is shown in (embeddings,
// overrides, isolates and their ends). The marks (LRM, RLM, ALM) are left
// out: they only nudge neutral characters.
func IsBidiControl(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}
