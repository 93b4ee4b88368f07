package ui

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/melmux/melmux/pane/term"
)

func TestPasteBytes(t *testing.T) {
	bp := term.Modes{BracketedPaste: true}
	for _, tc := range []struct {
		text string
		m    term.Modes
		want string
	}{
		{"ls\n", term.Modes{}, "ls\r"},
		{"a\r\nb", term.Modes{}, "a\rb"},
		{"a\rb\n\nc", term.Modes{}, "a\rb\r\rc"},
		{"a\nb", bp, "\x1b[200~a\rb\x1b[201~"},
		{"tab\there", bp, "\x1b[200~tab\there\x1b[201~"},
		{"evil\x1b[201~rm -rf ~\n", bp, "\x1b[200~evil[201~rm -rf ~\r\x1b[201~"},
		// The end marker's removal joined its halves into another: Claude
		// Code ran the command after it with no question.
		{"\x1b[20\x1b[201~1~!touch FILE", bp, "\x1b[200~[20[201~1~!touch FILE\x1b[201~"},
		{"\x1b[200~nested\x1b[201~", bp, "\x1b[200~[200~nested[201~\x1b[201~"},
		// Keys that act without bracketed paste.
		{"first\x03second\x15third\x04", term.Modes{}, "firstsecondthird"},
		{"del\x7f c1\u009b[2J nul\x00", term.Modes{}, "del c1[2J nul"},
		{"bad \x9b byte", term.Modes{}, "bad \uFFFD byte"},
		{"été ✓ \u202e", bp, "\x1b[200~été ✓ \u202e\x1b[201~"},
	} {
		if got := string(PasteBytes(tc.text, tc.m)); got != tc.want {
			t.Errorf("PasteBytes(%q, %+v) = %q, want %q", tc.text, tc.m, got, tc.want)
		}
	}
}

func TestPasteDropped(t *testing.T) {
	for _, tc := range []struct {
		text  string
		first string
		n     int
	}{
		{"plain\ttext\r\nlines\n", "", 0},
		{"first\x03second", "^C (0x03) at byte 5", 1},
		{"é\x1b[201~\x1b", "ESC (0x1b) at byte 2", 2},
		{"x\x7f", "DEL (0x7f) at byte 1", 1},
		{"\u009b", "U+009B (a C1 control) at byte 0", 1},
	} {
		first, n := PasteDropped(tc.text)
		got := ""
		if n > 0 {
			got = first.String()
		}
		if got != tc.first || n != tc.n {
			t.Errorf("PasteDropped(%q) = %q, %d; want %q, %d", tc.text, got, n, tc.first, tc.n)
		}
	}
}

// pasteAlphabet is what the random texts are made of: the markers, their
// halves, every kind of control character, line breaks and plain text.
var pasteAlphabet = []string{
	"\x1b", "[", "2", "0", "1", "~", "\x1b[200~", "\x1b[201~", "\x1b[20", "0~", "1~", "\x1b[", "\x9b", "\u009b",
	"\r", "\n", "\r\n", "\t", "\x00", "\x03", "\x15", "\x7f", "\u0085", "a", "é", "✓", "!touch x",
}

// checkPaste fails unless out is a paste that nothing can break out of: with
// bracketed paste one ESC[200~ at the start, one ESC[201~ at the end and no
// other ESC; without it no ESC at all; either way UTF-8 with no control
// character but tab and CR.
func checkPaste(t *testing.T, text string, m term.Modes, out []byte) {
	t.Helper()
	body := out
	if m.BracketedPaste {
		if !bytes.HasPrefix(body, []byte("\x1b[200~")) || !bytes.HasSuffix(body, []byte("\x1b[201~")) {
			t.Fatalf("PasteBytes(%q) = %q: not one bracketed paste", text, out)
		}
		body = body[6 : len(body)-6]
	}
	if !utf8.Valid(body) {
		t.Fatalf("PasteBytes(%q) = %q: not UTF-8", text, out)
	}
	for _, r := range string(body) {
		if r < 0x20 && r != '\t' && r != '\r' || r >= 0x7f && r < 0xa0 {
			t.Fatalf("PasteBytes(%q, %+v) = %q: carries %U", text, m, out, r)
		}
	}
}

func TestPasteBytesCannotBeBrokenOut(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 1))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(pasteAlphabet[rng.IntN(len(pasteAlphabet))])
		}
		text := b.String()
		for _, m := range []term.Modes{{}, {BracketedPaste: true}} {
			out := PasteBytes(text, m)
			checkPaste(t, text, m, out)
			if want := strings.Count(string(out), "\x1b"); m.BracketedPaste && want != 2 || !m.BracketedPaste && want != 0 {
				t.Fatalf("PasteBytes(%q, %+v) = %q: %d ESC", text, m, out, want)
			}
		}
	}
}

// FuzzPasteBytes checks the same of any text (go test -fuzz FuzzPasteBytes
// ./internal/ui).
func FuzzPasteBytes(f *testing.F) {
	for _, s := range []string{"\x1b[20\x1b[201~1~!touch FILE", "a\r\nb", "\x1b[200~\x1b[201~", "\u009b201~", "first\x03second"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, m := range []term.Modes{{}, {BracketedPaste: true}} {
			checkPaste(t, text, m, PasteBytes(text, m))
		}
	})
}
