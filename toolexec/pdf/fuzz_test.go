package pdf

import (
	"bytes"
	"context"
	"testing"
)

// FuzzBuiltin feeds arbitrary Markdown to the built-in renderer: whatever
// the input, it must produce a complete PDF and never an error or panic
// (renderBuiltin turns panics into errors, so an error here is a bug).
func FuzzBuiltin(f *testing.F) {
	for _, seed := range []string{
		everything, "", "# h\n", "- a\n  - b\n    1. c\n", "| a |\n|---|\n| b |\n",
		"```\n\tcode\n```\n", "> > > q\n", "![x](y.png)", "a\\\nb", "日本語のテキスト", "😀\u0000\x7f\xff",
		"|" + "a|" + "\n|-|\n|" + string(make([]byte, 300)) + "|\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, md string) {
		var buf bytes.Buffer
		if err := renderBuiltin(context.Background(), md, "T", t.TempDir(), &buf); err != nil {
			t.Fatalf("renderBuiltin(%q): %v", md, err)
		}
		if !bytes.HasPrefix(buf.Bytes(), []byte("%PDF-")) || !bytes.Contains(buf.Bytes()[max(0, buf.Len()-64):], []byte("%%EOF")) {
			t.Fatalf("renderBuiltin(%q): incomplete PDF", md)
		}
	})
}
