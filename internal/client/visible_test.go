package client

import (
	"testing"
	"unicode/utf8"
)

func TestVisible(t *testing.T) {
	for in, want := range map[string]string{
		"plain\ttext\n":             "plain\ttext\n",
		"a\x1b[2Jb":                 "a^[[2Jb",
		"bell\a del\x7f":            "bell^G del^?",
		"cr\r\nlf":                  "cr\nlf",
		"c1 \u009b31m \u0085":       "c1 <U+009B>31m <U+0085>",
		"été ✓ שלום":                "été ✓ שלום",
		"so\x0e bs\b nul\x00":       "so^N bs^H nul^@",
		"\u202eevil\u202c \u2066x":  "<U+202E>evil<U+202C> <U+2066>x",
		"mark\u200f stays":          "mark\u200f stays",
		"lone \x9b byte, \xff too":  "lone \uFFFD byte, \uFFFD too",
		"clip \x1b]52;c;aGk=\a end": "clip ^[]52;c;aGk=^G end",
	} {
		if got := Visible(in); got != want {
			t.Errorf("Visible(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"title":           "title",
		"two\nlines\tcol": "two^Jlines^Icol",
		"cr\rlf":          "cr^Mlf",
		"t\u202ei\x9b":    "t<U+202E>i\uFFFD",
	} {
		if got := VisibleLine(in); got != want {
			t.Errorf("VisibleLine(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestVisibleLeavesNothingActive checks every rune and every byte: what
// Visible returns is UTF-8 with no control or bidi character but newline and
// tab, and is its own Visible.
func TestVisibleLeavesNothingActive(t *testing.T) {
	var in []byte
	for r := rune(0); r < 0x3000; r++ {
		in = utf8.AppendRune(in, r)
	}
	for b := 0x80; b < 0x100; b++ {
		in = append(in, byte(b), 'x')
	}
	for _, line := range []bool{false, true} {
		out := visible(string(in), line)
		if !utf8.ValidString(out) {
			t.Errorf("line=%v: not UTF-8", line)
		}
		for _, r := range out {
			if hidden(r, line) {
				t.Errorf("line=%v: %U left in", line, r)
			}
		}
		if again := visible(out, line); again != out {
			t.Errorf("line=%v: a second pass changed the text", line)
		}
	}
}
