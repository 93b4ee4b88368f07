package pdf

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-pdf/fpdf"

	"github.com/melmux/melmux/internal/testexec"
	"github.com/melmux/melmux/internal/testreq"
)

// everything exercises every element the built-in renderer draws.
const everything = `Intro with *emphasis*, **strong words**, ` + "`inline code`" + `, ~~struck out~~, a [docs link](https://example.com/docs) and https://auto.example.org/path here.
Soft break joins this line; a hard break follows\
on its own line. Non-ASCII: naïve café — 日本.

# Heading One

## Heading Two

### Heading Three

#### Heading Four

##### Heading Five

###### Heading Six

- bullet alpha
- bullet beta
  - nested gamma
    - deeper delta
- [x] finished task
- [ ] open task

1. first ordinal
2. second ordinal
   1. inner ordinal

` + "```go\nfunc main() {\n\tfmt.Println(\"fenced code\")\n}\n```" + `

    indented code line

> quoted wisdom with **bold**
>
> > nested quotation

---

| Fruit | Count | Remark |
|:------|------:|:------:|
| apple | 3 | crisp |
| banana | 12 | a remark long enough that it has to wrap inside its own column of the table because the page is only so wide |

![diagram alt](diagram.png)

<div>raw html stays out</div>

Closing paragraph with a verylongtokenwithoutspaces_0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789 inside.
`

var pageRE = regexp.MustCompile(`/Type\s*/Page[^s]`)

// pdfinfo is looked up as the test binary starts: the tests of a failing
// engine put PATH on a directory holding the fake engine only.
var pdfinfo, pdfinfoErr = exec.LookPath("pdfinfo")

// checkPDF asserts path holds a complete PDF and returns its page count.
func checkPDF(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	if !bytes.HasPrefix(data, []byte("%PDF-")) {
		t.Fatalf("%s does not start with %%PDF-: %q", path, data[:min(len(data), 20)])
	}
	tail := data[max(0, len(data)-1024):]
	if !bytes.Contains(tail, []byte("%%EOF")) {
		t.Fatalf("%s has no %%%%EOF trailer", path)
	}
	pages := len(pageRE.FindAll(data, -1))
	bin, err := pdfinfo, pdfinfoErr
	if err != nil && testreq.Strict(requireGate) {
		t.Fatalf("pdfinfo is not installed (poppler-utils), and the page count is required here: %v", err)
	}
	if err == nil {
		out, err := exec.Command(bin, path).CombinedOutput()
		if err != nil {
			t.Fatalf("pdfinfo %s: %v\n%s", path, err, out)
		}
		m := regexp.MustCompile(`(?m)^Pages:\s+(\d+)`).FindSubmatch(out)
		if m == nil {
			t.Fatalf("pdfinfo gave no page count:\n%s", out)
		}
		n, _ := strconv.Atoi(string(m[1]))
		// Browsers compress object dictionaries, so the scan only
		// counts for uncompressed (fpdf) output.
		if pages != 0 && pages != n {
			t.Fatalf("page objects %d but pdfinfo says %d", pages, n)
		}
		pages = n
	}
	if pages < 1 {
		t.Fatalf("%s: no pages found", path)
	}
	return pages
}

// requireGate is the older gate of the PDF tests, which .ci/run still sets.
const requireGate = "MELMUX_REQUIRE_CHROMIUM"

// pdfText extracts text with pdftotext, or skips (fails under CI's
// MELMUX_REQUIRE_CHROMIUM=1) when it is missing.
func pdfText(t *testing.T, path string) string {
	t.Helper()
	bin := testreq.Tool(t, "pdftotext", requireGate)
	out, err := exec.Command(bin, "-enc", "UTF-8", path, "-").CombinedOutput()
	if err != nil {
		t.Fatalf("pdftotext %s: %v\n%s", path, err, out)
	}
	return string(out)
}

// squash removes all whitespace, so checks survive line wrapping.
func squash(s string) string {
	return strings.Join(strings.Fields(s), "")
}

func wantText(t *testing.T, text string, wants ...string) {
	t.Helper()
	sq := squash(text)
	for _, w := range wants {
		if !strings.Contains(sq, squash(w)) {
			t.Errorf("PDF text lacks %q; text was:\n%s", w, text)
		}
	}
}

// fontCaps reports what the discovered fonts can draw on this machine.
func fontCaps() (utf8, cjk bool) {
	fs := newFontSet(fpdf.New("P", "pt", "A4", ""), systemFonts())
	if !fs.utf8() {
		return false, false
	}
	s1, r1 := fs.pick('日', false, false, false)
	s2, r2 := fs.pick('本', false, false, false)
	return true, r1 == '日' && r2 == '本' && s1.covers('日') && s2.covers('本')
}

func TestBuiltinRendersEveryElement(t *testing.T) {
	out := filepath.Join(t.TempDir(), "nested", "dirs", "all.pdf")
	md := everything + "\nJump [to heading three](#heading-three).\n"
	engine, err := Render(context.Background(), md, "Everything Title", out, Options{Engine: "builtin"})
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	if engine != EngineBuiltin {
		t.Fatalf("engine = %q, want builtin", engine)
	}
	checkPDF(t, out)
	data, _ := os.ReadFile(out)
	if !bytes.Contains(data, []byte("/Dest")) {
		t.Errorf("no internal link for #heading-three")
	}
	dangling := filepath.Join(filepath.Dir(out), "dangling.pdf")
	if _, err := Render(context.Background(), "[nowhere](#missing)", "", dangling, Options{Engine: "builtin"}); err != nil {
		t.Fatal(err)
	}
	if d, _ := os.ReadFile(dangling); bytes.Contains(d, []byte("/Annots")) {
		t.Errorf("a link to a missing anchor produced a link annotation")
	}
	if !bytes.Contains(data, []byte("/URI (https://example.com/docs)")) {
		t.Errorf("external link annotation missing")
	}
	if fi, _ := os.Stat(out); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode = %v, want 0644", fi.Mode().Perm())
	}
	text := pdfText(t, out)
	wantText(t, text,
		"Everything Title",
		"Intro with emphasis, strong words, inline code, struck out, a docs link",
		"(https://example.com/docs)", "https://auto.example.org/path",
		"Soft break joins this line; a hard break follows",
		"Heading One", "Heading Two", "Heading Three", "Heading Four", "Heading Five", "Heading Six",
		"bullet alpha", "nested gamma", "deeper delta", "finished task", "open task",
		"1. first ordinal", "2. second ordinal", "1. inner ordinal",
		`fmt.Println("fenced code")`, "indented code line",
		"quoted wisdom with bold", "nested quotation",
		"Fruit", "Count", "Remark", "apple", "banana", "crisp", "because the page is only so wide",
		"[diagram alt] (diagram.png)",
		"verylongtokenwithoutspaces_0123456789abcdefghijklmnopqrstuvwxyz0123456789",
	)
	if strings.Contains(text, "raw html stays out") {
		t.Errorf("raw HTML block was rendered:\n%s", text)
	}
	utf8Font, cjk := fontCaps()
	if !utf8Font {
		t.Log("no UTF-8 TrueType font on this machine: non-ASCII checked by the core-font test only")
		return
	}
	wantText(t, text, "naïve café —", "☑", "☐", "•")
	if cjk {
		wantText(t, text, "naïve café — 日本.")
	} else {
		t.Log("no font with CJK glyphs found: 日本 not checked")
	}
}

func TestBuiltinEmbedsLocalImages(t *testing.T) {
	dir := t.TempDir()
	pic := func(name string, enc func(*os.File, image.Image) error, img image.Image) {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := enc(f, img); err != nil {
			t.Fatal(err)
		}
	}
	rgb := image.NewNRGBA(image.Rect(0, 0, 120, 60))
	deep := image.NewNRGBA64(image.Rect(0, 0, 1600, 40)) // 16-bit, wider than the page
	for x := 0; x < 120; x++ {
		for y := 0; y < 60; y++ {
			rgb.Set(x, y, color.NRGBA{uint8(x * 2), uint8(y * 4), 90, 200})
		}
	}
	pic("a.png", func(f *os.File, m image.Image) error { return png.Encode(f, m) }, rgb)
	pic("deep.png", func(f *os.File, m image.Image) error { return png.Encode(f, m) }, deep)
	pic("b.jpg", func(f *os.File, m image.Image) error { return jpeg.Encode(f, m, nil) }, rgb)
	pic("c.gif", func(f *os.File, m image.Image) error { return gif.Encode(f, m, nil) }, rgb)
	os.WriteFile(filepath.Join(dir, "broken.png"), []byte("\x89PNG\r\n\x1a\nnot really"), 0o644)
	md := "![png](a.png)\n\n![deep](deep.png)\n\n![jpeg](b.jpg)\n\n![gif](" + filepath.Join(dir, "c.gif") + ")\n\n" +
		"![broken alt](broken.png)\n\n![missing alt](nope.png)\n\n![remote alt](https://example.com/x.png)\n\n" +
		"Inline ![inline alt](a.png) stays text.\n"
	out := filepath.Join(dir, "img.pdf")
	if _, err := Render(context.Background(), md, "", out, Options{Engine: "builtin"}); err != nil {
		t.Fatalf("Render: %v", err)
	}
	checkPDF(t, out)
	data, _ := os.ReadFile(out)
	// Images with transparency carry a soft mask, itself an image object.
	images := bytes.Count(data, []byte("/Subtype /Image"))
	masks := bytes.Count(data, []byte("/SMask "))
	if images-masks != 4 || masks != 2 {
		t.Errorf("embedded %d images with %d masks, want 4 (png, 16-bit png, jpeg, gif) with 2 masks (the translucent and the transparent png)", images-masks, masks)
	}
	wantText(t, pdfText(t, out), "[broken alt] (broken.png)", "[missing alt] (nope.png)",
		"[remote alt] (https://example.com/x.png)", "Inline [inline alt] (a.png) stays text.")
}

func TestBuiltinCoreFontsWhenNoTrueTypeFont(t *testing.T) {
	discoverFontsHook = func() fontFiles { return fontFiles{} }
	t.Cleanup(func() { discoverFontsHook = nil })
	out := filepath.Join(t.TempDir(), "core.pdf")
	md := "# Café\n\nnaïve café — 日本 “quoted” 5€\n\n- item\n\n```\ncode ü\n```\n\n- [x] done\n"
	if _, err := Render(context.Background(), md, "Core Fonts", out, Options{Engine: "builtin"}); err != nil {
		t.Fatalf("Render: %v", err)
	}
	checkPDF(t, out)
	data, _ := os.ReadFile(out)
	if bytes.Contains(data, []byte("FontFile2")) {
		t.Errorf("a TrueType font was embedded though discovery found none")
	}
	text := pdfText(t, out)
	// Windows-1252 holds ï, é, —, curly quotes and €; CJK becomes '?'.
	wantText(t, text, "Core Fonts", "Café", "naïve café — ?? “quoted” 5€", "code ü", "[x] done")
}

func TestBuiltinPaginatesLongDocuments(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 120; i++ {
		fmt.Fprintf(&b, "Paragraph %d has enough words in it to wrap across more than one line of the page at the body size used.\n\n", i)
	}
	b.WriteString("| KeyHeader | ValueHeader |\n|---|---|\n")
	for i := 0; i < 80; i++ {
		fmt.Fprintf(&b, "| row%d | value %d |\n", i, i)
	}
	b.WriteString("\n```\n")
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&b, "code line %d\n", i)
	}
	b.WriteString("```\n\nThe very end.\n")
	out := filepath.Join(t.TempDir(), "long.pdf")
	if _, err := Render(context.Background(), b.String(), "", out, Options{Engine: "builtin"}); err != nil {
		t.Fatalf("Render: %v", err)
	}
	if pages := checkPDF(t, out); pages < 5 {
		t.Errorf("pages = %d, want at least 5 for this much content", pages)
	}
	text := pdfText(t, out)
	wantText(t, text, "Paragraph 0 has", "Paragraph 119 has", "row0", "row79", "value 79", "code line 99", "The very end.")
	// 80 rows do not fit one page: the header is repeated on the next.
	if n := strings.Count(text, "KeyHeader"); n < 2 {
		t.Errorf("table header appears %d times, want it repeated after the page break", n)
	}
}

func TestBuiltinEmptyAndOddInput(t *testing.T) {
	cases := map[string]string{
		"empty":        "",
		"only html":    "<p>hidden</p>",
		"invalid utf8": "bad \xff\xfe bytes",
		"controls":     "bell \a and nul \x00 and tab\tend",
		"emoji":        "smile 😀 and flag 🇯🇵",
		"deep nesting": strings.Repeat("> ", 30) + "deep\n\n" + strings.Repeat("  ", 0) + nestedList(12),
		"wide table":   "|" + strings.Repeat(" col |", 25) + "\n|" + strings.Repeat("---|", 25) + "\n|" + strings.Repeat(" cell_contents_that_are_long |", 25) + "\n",
		"empty items":  "-\n-\n1.\n",
	}
	for name, md := range cases {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "odd.pdf")
			if _, err := Render(context.Background(), md, "", out, Options{Engine: "builtin"}); err != nil {
				t.Fatalf("Render: %v", err)
			}
			checkPDF(t, out)
		})
	}
}

func nestedList(depth int) string {
	var b strings.Builder
	for i := 0; i < depth; i++ {
		fmt.Fprintf(&b, "%s- level %d\n", strings.Repeat("  ", i), i)
	}
	return b.String()
}

func TestRenderRejectsBadInput(t *testing.T) {
	dir := t.TempDir()
	_, err := Render(context.Background(), "x", "", filepath.Join(dir, "a.pdf"), Options{Engine: "latex"})
	if !errors.Is(err, ErrUnknownEngine) {
		t.Fatalf("unknown engine: err = %v, want ErrUnknownEngine", err)
	}
	for _, name := range engineOrder {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("unknown-engine error %q does not list %q", err, name)
		}
	}
	if _, err := Render(context.Background(), "x", "", "  ", Options{}); !errors.Is(err, ErrBadOutputPath) {
		t.Errorf("empty path: err = %v, want ErrBadOutputPath", err)
	}
	if _, err := Render(context.Background(), "x", "", dir, Options{}); !errors.Is(err, ErrBadOutputPath) ||
		!strings.Contains(err.Error(), "directory") {
		t.Errorf("directory path: err = %v, want ErrBadOutputPath naming a directory", err)
	}
	blocker := filepath.Join(dir, "file")
	os.WriteFile(blocker, []byte("x"), 0o644)
	if _, err := Render(context.Background(), "x", "", filepath.Join(blocker, "sub", "a.pdf"), Options{}); !errors.Is(err, ErrBadOutputPath) {
		t.Errorf("parent is a file: err = %v, want ErrBadOutputPath", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Render(ctx, "x", "", filepath.Join(dir, "c.pdf"), Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: err = %v, want context.Canceled", err)
	}
	// Engine names are matched without regard to case or spaces.
	if e, err := Render(context.Background(), "x", "", filepath.Join(dir, "b.pdf"), Options{Engine: " BuiltIn "}); err != nil || e != EngineBuiltin {
		t.Errorf("engine \" BuiltIn \": got %q, %v", e, err)
	}
}

// fakeEngines makes PATH hold only the given scripts, so the chain sees
// exactly these engines.
func fakeEngines(t *testing.T, scripts map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range scripts {
		testexec.Write(t, filepath.Join(dir, name), []byte("#!/bin/sh\n"+body))
	}
	t.Setenv("PATH", dir)
	return dir
}

// printTarget is shell that sets $out from the --print-to-pdf= argument.
const printTarget = `for a in "$@"; do case "$a" in --print-to-pdf=*) out="${a#--print-to-pdf=}";; esac; done
`

func TestEnginesReportsAvailability(t *testing.T) {
	fakeEngines(t, nil)
	if got := Engines(); len(got) != 1 || got[0] != EngineBuiltin {
		t.Fatalf("empty PATH: Engines() = %v, want [builtin]", got)
	}
	fakeEngines(t, map[string]string{
		"weasyprint": "exit 1\n", "chromium-browser": "exit 1\n", "msedge": "exit 1\n",
		"google-chrome-stable": "exit 1\n", "wkhtmltopdf": "exit 1\n",
	})
	want := []string{"chrome", "chromium", "edge", "wkhtmltopdf", "weasyprint", "builtin"}
	if got := Engines(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("Engines() = %v, want %v", got, want)
	}
	if got := EngineNames(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("EngineNames() = %v, want %v", got, want)
	}
}

func TestForcedUnavailableEngine(t *testing.T) {
	fakeEngines(t, nil)
	_, err := Render(context.Background(), "x", "", filepath.Join(t.TempDir(), "a.pdf"), Options{Engine: "wkhtmltopdf"})
	if !errors.Is(err, ErrEngineUnavailable) {
		t.Fatalf("err = %v, want ErrEngineUnavailable", err)
	}
	if !strings.Contains(err.Error(), "available here: builtin") {
		t.Errorf("error %q does not say what is available", err)
	}
}

func TestFailingEngineFallsBackToBuiltin(t *testing.T) {
	cases := map[string]string{
		"exit status": "echo 'chromium: boom' >&2\nexit 3\n",
		"not a pdf":   printTarget + "echo '<html>error page</html>' > \"$out\"\nexit 0\n",
		"truncated":   printTarget + "printf '%%PDF-1.4\\n1 0 obj' > \"$out\"\nexit 0\n",
		"no output":   "exit 0\n",
	}
	for name, script := range cases {
		t.Run(name, func(t *testing.T) {
			fakeEngines(t, map[string]string{"chromium": script})
			dir := t.TempDir()
			out := filepath.Join(dir, "fallback.pdf")
			engine, err := Render(context.Background(), "# Fallback works\n", "T", out, Options{})
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			if engine != EngineBuiltin {
				t.Fatalf("engine = %q, want builtin after chromium failed", engine)
			}
			checkPDF(t, out)

			// Forced, the same failure is an error and leaves nothing behind.
			forcedOut := filepath.Join(dir, "forced.pdf")
			_, err = Render(context.Background(), "x", "", forcedOut, Options{Engine: "chromium"})
			if !errors.Is(err, ErrEngineFailed) {
				t.Fatalf("forced: err = %v, want ErrEngineFailed", err)
			}
			if _, statErr := os.Stat(forcedOut); !os.IsNotExist(statErr) {
				t.Errorf("forced failure left %s behind", forcedOut)
			}
			assertNoTempFiles(t, dir)
		})
	}
}

func TestFailingEngineErrorQuotesItsOutput(t *testing.T) {
	fakeEngines(t, map[string]string{"wkhtmltopdf": "echo 'QtWebKit exploded' >&2\nexit 2\n"})
	_, err := Render(context.Background(), "x", "", filepath.Join(t.TempDir(), "a.pdf"), Options{Engine: "wkhtmltopdf"})
	if err == nil || !strings.Contains(err.Error(), "QtWebKit exploded") || !strings.Contains(err.Error(), "exit status 2") {
		t.Fatalf("err = %v, want exit status and engine output", err)
	}
}

func TestWorkingExternalEngineIsUsed(t *testing.T) {
	// A stand-in that copies a real PDF into place shows the chain uses
	// an engine's output and names that engine.
	src := filepath.Join(t.TempDir(), "src.pdf")
	if _, err := Render(context.Background(), "from fake weasyprint", "", src, Options{Engine: "builtin"}); err != nil {
		t.Fatal(err)
	}
	fakeEngines(t, map[string]string{
		"chromium":   "exit 1\n",
		"weasyprint": "for a; do last=\"$a\"; done\n/bin/cp '" + src + "' \"$last\"\n",
	})
	out := filepath.Join(t.TempDir(), "w.pdf")
	engine, err := Render(context.Background(), "x", "", out, Options{})
	if err != nil || engine != EngineWeasyprint {
		t.Fatalf("Render = %q, %v; want weasyprint", engine, err)
	}
	want, _ := os.ReadFile(src)
	got, _ := os.ReadFile(out)
	if !bytes.Equal(want, got) {
		t.Fatalf("output is not the engine's file")
	}
}

func TestHungEngineIsKilledWithItsChildren(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	t.Setenv("FAKE_CHILD_PID", pidFile)
	fakeEngines(t, map[string]string{
		"chromium": "/bin/sleep 300 &\necho $! > \"$FAKE_CHILD_PID\"\n/bin/sleep 300\n",
	})
	saved := externalTimeout
	t.Cleanup(func() { externalTimeout = saved })
	externalTimeout = 700 * time.Millisecond

	out := filepath.Join(t.TempDir(), "hung.pdf")
	engine, err := Render(context.Background(), "x", "", out, Options{})
	if err != nil || engine != EngineBuiltin {
		t.Fatalf("Render = %q, %v; want builtin after the hung engine timed out", engine, err)
	}
	// The engine must have started its child before the timeout for the
	// kill to be seen; on a loaded machine a shell can take longer than
	// the timeout to start, so the timeout grows until it did.
	var pid string
	for {
		os.Remove(pidFile)
		_, err = Render(context.Background(), "x", "", out, Options{Engine: "chromium"})
		if !errors.Is(err, ErrEngineFailed) || !strings.Contains(err.Error(), "killed after") {
			t.Fatalf("forced hung engine: err = %v, want a timeout error", err)
		}
		raw, _ := os.ReadFile(pidFile)
		if pid = strings.TrimSpace(string(raw)); pid != "" {
			break
		}
		if externalTimeout > time.Minute {
			t.Fatalf("the fake engine never recorded its child, the last time in %v", externalTimeout)
		}
		t.Logf("the fake engine had not started its child in %v: again with twice the time", externalTimeout)
		externalTimeout *= 2
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		stat, err := os.ReadFile("/proc/" + pid + "/stat")
		// Gone, or a zombie waiting for a reaper: either way, killed.
		if err != nil || strings.Contains(string(stat), ") Z ") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("background child %s of the hung engine survived the timeout", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestFailedRenderKeepsOldFile(t *testing.T) {
	fakeEngines(t, map[string]string{"chromium": "exit 1\n"})
	dir := t.TempDir()
	out := filepath.Join(dir, "keep.pdf")
	if err := os.WriteFile(out, []byte("old contents"), 0o640); err != nil {
		t.Fatal(err)
	}
	if _, err := Render(context.Background(), "x", "", out, Options{Engine: "chromium"}); err == nil {
		t.Fatal("forced failing engine returned no error")
	}
	if got, _ := os.ReadFile(out); string(got) != "old contents" {
		t.Fatalf("old file changed to %q", got)
	}
	// A write that fails part-way leaves the old file and no debris.
	err := writeAtomic(out, func(w io.Writer) error {
		w.Write(bytes.Repeat([]byte("x"), 200<<10))
		return errors.New("disk on fire")
	})
	if err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("writeAtomic err = %v", err)
	}
	if got, _ := os.ReadFile(out); string(got) != "old contents" {
		t.Fatalf("old file changed to %q", got)
	}
	assertNoTempFiles(t, dir)
	// A successful render replaces it and keeps its mode.
	if _, err := Render(context.Background(), "new", "", out, Options{Engine: "builtin"}); err != nil {
		t.Fatal(err)
	}
	checkPDF(t, out)
	if fi, _ := os.Stat(out); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode = %v, want the old 0640 kept", fi.Mode().Perm())
	}
}

func assertNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

func TestBuildHTML(t *testing.T) {
	page, err := buildHTML("# Head\n\n| a | b |\n|---|---|\n| 1 | ~~2~~ |\n\nhttps://x.example\n\n<script>alert(1)</script>\n\n"+
		"![pic](img/a%20b.png) [rel](notes.md#part) [anchor](#head) [abs](/etc/x.png) [web](https://w.example/p)\n", "A <b>&</b> title", "/tmp/out dir")
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	for _, want := range []string{
		"<title>A &lt;b&gt;&amp;&lt;/b&gt; title</title>",
		`<h1 class="doc-title">A &lt;b&gt;&amp;&lt;/b&gt; title</h1>`,
		"<table>", "<del>2</del>", `<a href="https://x.example">`,
		`<img src="/tmp/out%20dir/img/a%20b.png" alt="pic">`, `<a href="/tmp/out%20dir/notes.md#part">`,
		`<a href="#head">`, `<a href="/etc/x.png">`, `<a href="https://w.example/p">`, `<h1 id="head">`,
		"Content-Security-Policy", "@page",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("HTML lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "<script>") {
		t.Errorf("raw script passed through:\n%s", s)
	}
}

func TestParseCoverage(t *testing.T) {
	for name, data := range map[string][]byte{
		"empty": nil, "garbage": []byte("hello world, not a font"),
		"otf":        append([]byte("OTTO"), make([]byte, 64)...),
		"collection": append([]byte("ttcf"), make([]byte, 64)...),
		"truncated":  {0, 1, 0, 0, 0, 9},
	} {
		if _, err := parseCoverage(data); err == nil {
			t.Errorf("%s: parseCoverage accepted it", name)
		}
	}
	ff := systemFonts()
	if ff.Regular == "" {
		testreq.Skip(t, "no TrueType font on this machine (Debian's fonts-dejavu-core has one)", requireGate)
	}
	f, err := loadFace(ff.Regular)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range "Aaé€" {
		if !f.cover.has(r) {
			t.Errorf("%s: coverage lacks %q", ff.Regular, r)
		}
	}
	if f.cover.has(0x10FFFF) || f.cover.has(-1) {
		t.Errorf("coverage claims runes outside the BMP")
	}
}

// browser returns a Chromium-family engine and binary, or skips (fails
// with MELMUX_REQUIRE_CHROMIUM=1) when there is none.
func browser(t *testing.T) string {
	t.Helper()
	for _, e := range []string{EngineChromium, EngineChrome, EngineEdge} {
		if findBinary(e) != "" {
			return e
		}
	}
	testreq.Skip(t, "no chromium/chrome/edge on PATH (Debian's chromium)", requireGate)
	return ""
}

func TestChromiumRendersForReal(t *testing.T) {
	engine := browser(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "sub", "browser.pdf")
	// everything's ![diagram alt](diagram.png) resolves next to the output.
	os.MkdirAll(filepath.Dir(out), 0o755)
	f, err := os.Create(filepath.Join(dir, "sub", "diagram.png"))
	if err != nil {
		t.Fatal(err)
	}
	png.Encode(f, image.NewNRGBA(image.Rect(0, 0, 40, 20)))
	f.Close()
	got, err := Render(context.Background(), everything+"\n[to heading three](#heading-three)\n", "Browser Title", out, Options{Engine: engine})
	if err != nil {
		t.Fatalf("Render with %s: %v", engine, err)
	}
	if got != engine {
		t.Fatalf("engine = %q, want %q", got, engine)
	}
	checkPDF(t, out)
	text := pdfText(t, out)
	wantText(t, text, "Browser Title", "Heading Three", "bullet alpha", "crisp",
		`fmt.Println("fenced code")`, "quoted wisdom", "naïve café —")
	assertNoTempFiles(t, filepath.Dir(out))
	data, _ := os.ReadFile(out)
	if !bytes.Contains(data, []byte("/Subtype /Image")) {
		t.Errorf("relative image diagram.png was not embedded")
	}
	if !bytes.Contains(data, []byte("/Dest")) {
		t.Errorf("in-document #anchor link did not become an internal link")
	}

	// Automatic choice prefers the browser over the floor.
	auto := filepath.Join(dir, "auto.pdf")
	got, err = Render(context.Background(), "# Auto\n\nbody text", "", auto, Options{})
	if err != nil || got == EngineBuiltin {
		t.Fatalf("auto Render = %q, %v; want a browser engine", got, err)
	}
	wantText(t, pdfText(t, auto), "Auto", "body text")
}

// The other HTML engines are optional everywhere (CI does not install
// them), so they are tested for real only where present.
func TestOtherHTMLEnginesForReal(t *testing.T) {
	for _, engine := range []string{EngineWkhtmltopdf, EngineWeasyprint} {
		t.Run(engine, func(t *testing.T) {
			if findBinary(engine) == "" {
				t.Skipf("%s not installed", engine)
			}
			out := filepath.Join(t.TempDir(), engine+".pdf")
			got, err := Render(context.Background(), everything, "Engine Title", out, Options{Engine: engine})
			if err != nil || got != engine {
				t.Fatalf("Render = %q, %v", got, err)
			}
			checkPDF(t, out)
			wantText(t, pdfText(t, out), "Engine Title", "Heading Three", "bullet alpha", "crisp", "naïve café —")
		})
	}
}

func TestConcurrentRenders(t *testing.T) {
	// fpdf writes into the font bytes it is handed; the process-wide
	// cache must come out of many renders unchanged.
	sums := map[string][32]byte{}
	ff := systemFonts()
	for _, p := range append([]string{ff.Regular, ff.Bold, ff.Mono}, ff.Fallbacks...) {
		if f, err := loadFace(p); p != "" && err == nil {
			sums[p] = sha256.Sum256(f.data)
		}
	}
	dir := t.TempDir()
	errs := make(chan error, 4)
	for i := 0; i < 4; i++ {
		go func() {
			out := filepath.Join(dir, fmt.Sprintf("c%d.pdf", i))
			_, err := Render(context.Background(), fmt.Sprintf("# Doc %d\n\n%s", i, everything), "", out, Options{Engine: "builtin"})
			errs <- err
		}()
	}
	for i := 0; i < 4; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 4; i++ {
		out := filepath.Join(dir, fmt.Sprintf("c%d.pdf", i))
		checkPDF(t, out)
		wantText(t, pdfText(t, out), fmt.Sprintf("Doc %d", i))
	}
	for p, sum := range sums {
		if f, _ := loadFace(p); sha256.Sum256(f.data) != sum {
			t.Errorf("cached font %s was modified by rendering", p)
		}
	}
}

// BenchmarkBuiltinRender times the floor on the every-element document
// once and ten times over; "core" uses fpdf's core fonts to show how much
// of the cost is parsing and subsetting the TrueType fonts.
func BenchmarkBuiltinRender(b *testing.B) {
	for _, bc := range []struct {
		name   string
		copies int
		core   bool
	}{{"1x", 1, false}, {"10x", 10, false}, {"10x-core", 10, true}} {
		b.Run(bc.name, func(b *testing.B) {
			if bc.core {
				discoverFontsHook = func() fontFiles { return fontFiles{} }
				defer func() { discoverFontsHook = nil }()
			}
			doc := strings.Repeat(everything, bc.copies)
			b.SetBytes(int64(len(doc)))
			for b.Loop() {
				if err := renderBuiltin(context.Background(), doc, "Bench", ".", io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkBuildHTML(b *testing.B) {
	b.SetBytes(int64(len(everything)))
	for b.Loop() {
		if _, err := buildHTML(everything, "Bench", "/tmp"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkChromiumRender(b *testing.B) {
	var engine string
	for _, e := range []string{EngineChromium, EngineChrome, EngineEdge} {
		if findBinary(e) != "" {
			engine = e
			break
		}
	}
	if engine == "" {
		b.Skip("no Chromium-family browser installed")
	}
	out := filepath.Join(b.TempDir(), "bench.pdf")
	for b.Loop() {
		if _, err := Render(context.Background(), everything, "Bench", out, Options{Engine: engine}); err != nil {
			b.Fatal(err)
		}
	}
}
