package keys

import (
	"strings"
	"testing"
	"unicode/utf8"
)

var (
	normal = Modes{}
	app    = Modes{AppCursor: true, AppKeypad: true}
	paste  = Modes{BracketedPaste: true}
)

// The expected bytes are what tmux 3.3a sent into a pane for the same key
// (see TestAgainstTmux, which checks these live), except where the package
// doc says xterm decides.
func TestEncode(t *testing.T) {
	for _, c := range []struct {
		in   string
		m    Modes
		want string
	}{
		// Text.
		{"", normal, ""},
		{"ls -la", normal, "ls -la"},
		{"héllo wörld ✓ 日本", normal, "héllo wörld ✓ 日本"},
		{"ls\n", normal, "ls\r"},
		{"a\nb\n", normal, "a\rb\r"},
		{"a\r\nb\r\n", normal, "a\rb\r"},
		{"\n", paste, "\r"},
		{"\t", normal, "\t"},
		{"\xff\xfe raw", normal, "\xff\xfe raw"},

		// Named keys.
		{"<Enter>", normal, "\r"},
		{"<CR>", normal, "\r"},
		{"<cr>", normal, "\r"},
		{"<Return>", normal, "\r"},
		{"<Tab>", normal, "\t"},
		{"<Esc>", normal, "\x1b"},
		{"<ESC>", normal, "\x1b"},
		{"<BS>", normal, "\x7f"},
		{"<Backspace>", normal, "\x7f"},
		{"<Space>", normal, " "},
		{"<NL>", normal, "\n"},
		{"<Nul>", normal, "\x00"},
		{"<Up><Down><Right><Left>", normal, "\x1b[A\x1b[B\x1b[C\x1b[D"},
		{"<Up><Down><Right><Left>", app, "\x1bOA\x1bOB\x1bOC\x1bOD"},
		{"<Home><End>", normal, "\x1b[1~\x1b[4~"},
		{"<Home><End>", app, "\x1b[1~\x1b[4~"},
		{"<PgUp><PgDn><PageUp><PageDown>", normal, "\x1b[5~\x1b[6~\x1b[5~\x1b[6~"},
		{"<Del><Ins><Delete><Insert>", normal, "\x1b[3~\x1b[2~\x1b[3~\x1b[2~"},
		{"<F1><F2><F3><F4>", normal, "\x1bOP\x1bOQ\x1bOR\x1bOS"},
		{"<F5><F6><F7><F8><F9><F10><F11><F12>", normal, "\x1b[15~\x1b[17~\x1b[18~\x1b[19~\x1b[20~\x1b[21~\x1b[23~\x1b[24~"},
		{"<f1><F12>", app, "\x1bOP\x1b[24~"},

		// Literal stand-ins.
		{"<lt>", normal, "<"},
		{"<LT>Enter>", normal, "<Enter>"},
		{"a <Bar> b <Bslash>", normal, "a | b \\"},

		// Control, meta, shift on characters.
		{"<C-a><C-z><C-A><c-x>", normal, "\x01\x1a\x01\x18"},
		{"<C-c>", normal, "\x03"},
		{"<C-@><C-[><C-\\><C-]><C-^><C-_><C-?><C-/>", normal, "\x00\x1b\x1c\x1d\x1e\x1f\x7f\x1f"},
		{"<C-Space><C-2>", normal, "\x00\x00"},
		{"<C-3><C-4><C-5><C-6><C-7><C-8>", normal, "\x1b\x1c\x1d\x1e\x1f\x7f"},
		{"<C-1><C-é>", normal, "1é"},
		{"<M-a><M-A><A-x><m-b>", normal, "\x1ba\x1bA\x1bx\x1bb"},
		{"<M-é>", normal, "\x1bé"},
		{"<C-M-a><M-C-a><C-M-A>", normal, "\x1b\x01\x1b\x01\x1b\x01"},
		{"<S-a><S-é><C-S-a>", normal, "AÉ\x01"},
		{"<M-Space><S-Space>", normal, "\x1b  "},
		{"<C-->", normal, "-"},
		{"<M-lt>", normal, "\x1b<"},

		// Modifiers on named keys.
		{"<S-Tab>", normal, "\x1b[Z"},
		{"<C-S-Tab>", normal, "\x1b[Z"},
		{"<M-S-Tab>", normal, "\x1b\x1b[Z"},
		{"<C-Tab>", normal, "\t"},
		{"<M-Tab>", normal, "\x1b\t"},
		{"<M-Enter><M-CR>", normal, "\x1b\r\x1b\r"},
		{"<C-Enter><S-Enter>", normal, "\r\r"},
		{"<C-M-Enter>", normal, "\x1b\r"},
		{"<M-Esc>", normal, "\x1b\x1b"},
		{"<C-BS><M-BS><C-M-BS>", normal, "\x08\x1b\x7f\x1b\x08"},
		{"<C-Up><M-Up><S-Up><C-M-Up><C-S-Up><C-M-S-Up>", normal, "\x1b[1;5A\x1b[1;3A\x1b[1;2A\x1b[1;7A\x1b[1;6A\x1b[1;8A"},
		{"<C-Left>", app, "\x1b[1;5D"},
		{"<C-Home><M-End><S-Home>", normal, "\x1b[1;5H\x1b[1;3F\x1b[1;2H"},
		{"<C-Del><C-PgUp><S-PgDn><M-Ins>", normal, "\x1b[3;5~\x1b[5;5~\x1b[6;2~\x1b[2;3~"},
		{"<S-F1><C-F4><C-F5><M-F12>", normal, "\x1b[1;2P\x1b[1;5S\x1b[15;5~\x1b[24;3~"},

		// Keypad.
		{"<k0><k9><kPlus><kMinus><kMultiply><kDivide><kPoint><kComma><kEqual><kEnter>", normal, "09+-*/.,=\r"},
		{"<k0><k9><kPlus><kMinus><kMultiply><kDivide><kPoint><kComma><kEqual><kEnter>", app,
			"\x1bOp\x1bOy\x1bOk\x1bOm\x1bOj\x1bOo\x1bOn\x1bOl\x1bOX\x1bOM"},
		{"<M-k1>", app, "\x1b\x1bOq"},

		// Not keys: typed literally.
		{"<", normal, "<"},
		{"a < b", normal, "a < b"},
		{"if a<b && c>d", normal, "if a<b && c>d"},
		{"<>", normal, "<>"},
		{"<x>", normal, "<x>"},
		{"<Foo>", normal, "<Foo>"},
		{"<C->", normal, "<C->"},
		{"<X-a>", normal, "<X-a>"},
		{"<C-Foo>", normal, "<C-Foo>"},
		{"<F13>", normal, "<F13>"},
		{"<<Enter>", normal, "<\r"},
		{"<Enter", normal, "<Enter"},
		{"x<Enter>>", normal, "x\r>"},
		{"<C-ab>", normal, "<C-ab>"},
		{"<div class=\"x\">", normal, "<div class=\"x\">"},

		// Mixed.
		{"ls<Enter>", normal, "ls\r"},
		{"vim<CR>ihello<Esc>:wq<CR>", normal, "vim\rihello\x1b:wq\r"},
		{"echo 1 <lt> 2<Enter>", normal, "echo 1 < 2\r"},
		{"a<Space>b", normal, "a b"},
	} {
		if got := string(Encode(c.in, c.m)); got != c.want {
			t.Errorf("Encode(%q, %+v) = %q, want %q", c.in, c.m, got, c.want)
		}
	}
}

func TestEncodePaste(t *testing.T) {
	for _, c := range []struct {
		name string
		in   string
		m    Modes
		want string
	}{
		{"one line is typed", "echo hi", paste, "echo hi"},
		{"one line and Enter is not a paste", "echo hi\n", paste, "echo hi\r"},
		{"multi-line is one paste", "line1\nline2", paste, "\x1b[200~line1\rline2\x1b[201~"},
		{"final newline stays Enter", "line1\nline2\n", paste, "\x1b[200~line1\rline2\x1b[201~\r"},
		{"only one final newline leaves", "a\nb\n\n", paste, "\x1b[200~a\rb\r\x1b[201~\r"},
		{"blank line and Enter", "\n\n", paste, "\x1b[200~\r\x1b[201~\r"},
		{"CRLF counts once", "a\r\nb\r\n", paste, "\x1b[200~a\rb\x1b[201~\r"},
		{"lone CR is a newline too", "a\rb", paste, "\x1b[200~a\rb\x1b[201~"},
		{"paste then a key", "line1\nline2<Enter>", paste, "\x1b[200~line1\rline2\x1b[201~\r"},
		{"key splits the text", "a\n<Tab>b\nc", paste, "a\r\t\x1b[200~b\rc\x1b[201~"},
		{"lt stays in the paste", "x <lt>\ny", paste, "\x1b[200~x <\ry\x1b[201~"},
		{"unknown names stay in the paste", "<b>\n</b>", paste, "\x1b[200~<b>\r</b>\x1b[201~"},
		{"leading newline", "\nabc", paste, "\x1b[200~\rabc\x1b[201~"},
		{"tabs kept", "a\tb\nc", paste, "\x1b[200~a\tb\rc\x1b[201~"},
		{"no paste mode: newlines are Enter", "line1\nline2\n", normal, "line1\rline2\r"},
		{"end marker injected", "a\n\x1b[201~rm -rf /\n", paste, "\x1b[200~a\rrm -rf /\x1b[201~\r"},
		{"start marker removed", "a\n\x1b[200~b", paste, "\x1b[200~a\rb\x1b[201~"},
		{"nested marker halves", "a\n\x1b[20\x1b[201~1~b", paste, "\x1b[200~a\rb\x1b[201~"},
		{"marker left alone outside a paste", "\x1b[201~", paste, "\x1b[201~"},
		{"other escapes kept", "a\n\x1b[31mred", paste, "\x1b[200~a\r\x1b[31mred\x1b[201~"},
	} {
		if got := string(Encode(c.in, c.m)); got != c.want {
			t.Errorf("%s: Encode(%q) = %q, want %q", c.name, c.in, got, c.want)
		}
	}
}

func TestLookupCoversEveryName(t *testing.T) {
	// Every name must be a key, in any case, and with a modifier.
	for name := range named() {
		for _, n := range []string{name, strings.ToUpper(name), "M-" + name} {
			if _, ok := lookup(n); !ok {
				t.Errorf("lookup(%q) failed", n)
			}
			if got := string(Encode("<"+n+">", normal)); got == "<"+n+">" || got == "" {
				t.Errorf("Encode(<%s>) = %q, typed literally", n, got)
			}
		}
	}
}

// FuzzEncode parses arbitrary key notation in every mode: no panic, plain
// text typed as is, valid UTF-8 kept valid, and multi-line text pasted as
// one clean paste that text cannot end early.
//
// Run: go test ./pane/keys -run '^$' -fuzz FuzzEncode -fuzztime 5m
func FuzzEncode(f *testing.F) {
	for _, s := range []string{"ls\n", "<C-M-x><lt>", "a\nb<Enter>", "<<<>>>", "\x1b[201~\n\x1b[20\x1b[201~1~", "<S-Tab><k5>",
		"<C-é><M-👨\u200d👩><S-F12><kEnter><C-S-M-Home><A-k0>", "<c-<><><C-><M-\n>\r\n\r<Bslash><Bar>"} {
		f.Add(s, true, false, true)
	}
	f.Fuzz(func(t *testing.T, s string, bp, ac, ak bool) {
		out := Encode(s, Modes{BracketedPaste: bp, AppCursor: ac, AppKeypad: ak})
		got := string(out)
		if !strings.ContainsAny(s, "<\r\n") && got != s {
			t.Fatalf("plain text %q changed into %q", s, got)
		}
		if utf8.ValidString(s) && !utf8.Valid(out) {
			t.Fatalf("valid UTF-8 %q encoded as invalid %q", s, got)
		}
		// A run of text either goes as typed or as one paste that holds
		// no marker and is followed by at most the Enter key: no text can
		// end a paste early.
		run := string(appendText(nil, s, Modes{BracketedPaste: true}))
		body := strings.ReplaceAll(s, "\r\n", "\n")
		if strings.HasSuffix(body, "\n") || strings.HasSuffix(body, "\r") {
			body = body[:len(body)-1]
		}
		if !strings.ContainsAny(body, "\r\n") {
			if want := strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\r"), "\n", "\r"); run != want {
				t.Fatalf("one-line %q typed as %q, want %q", s, run, want)
			}
			return
		}
		if !strings.HasPrefix(run, pasteStart) {
			t.Fatalf("multi-line %q was not pasted: %q", s, run)
		}
		end := strings.LastIndex(run, pasteEnd)
		inner, after := run[len(pasteStart):max(end, len(pasteStart))], run[end+len(pasteEnd):]
		if end < 0 || strings.Contains(inner, pasteEnd) || strings.Contains(inner, pasteStart) || after != "" && after != "\r" {
			t.Fatalf("appendText(%q) = %q: not one clean paste", s, run)
		}
	})
}

func BenchmarkEncode(b *testing.B) {
	text := strings.Repeat("echo hello <C-a>world<Enter>", 20) + "line1\nline2\nline3\n"
	m := Modes{BracketedPaste: true}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		Encode(text, m)
	}
}
