package pdf

import (
	"bytes"
	"fmt"
	"html"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// newMarkdown is the one goldmark configuration both paths share, so the
// HTML engines and the built-in renderer see the same document structure.
// Raw HTML stays off (goldmark's default): see the package comment.
func newMarkdown() goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(extension.GFM),
		goldmark.WithParserOptions(parser.WithAutoHeadingID()),
	)
}

// printCSS is a plain print stylesheet: serif-free body text at a reading
// size, code shaded and wrapped rather than cut off at the page edge, tables
// ruled and kept from splitting rows across pages.
const printCSS = `
@page { size: A4; margin: 20mm 18mm; }
html { font-family: "DejaVu Sans", "Liberation Sans", "Noto Sans", Arial, Helvetica, sans-serif;
  font-size: 10.5pt; line-height: 1.45; color: #111; }
body { margin: 0; }
h1, h2, h3, h4, h5, h6 { line-height: 1.2; margin: 1.1em 0 0.45em; page-break-after: avoid; break-after: avoid; }
h1 { font-size: 20pt; border-bottom: 1px solid #bbb; padding-bottom: 0.15em; }
h1.doc-title { font-size: 24pt; margin-top: 0; }
h2 { font-size: 16pt; border-bottom: 1px solid #ddd; padding-bottom: 0.1em; }
h3 { font-size: 13.5pt; }
h4 { font-size: 12pt; }
h5 { font-size: 11pt; }
h6 { font-size: 10.5pt; color: #444; }
p, ul, ol, pre, table, blockquote { margin: 0 0 0.7em; }
a { color: #1a4fa0; text-decoration: underline; }
code, pre, kbd, samp { font-family: "DejaVu Sans Mono", "Liberation Mono", "Noto Sans Mono", Consolas, Menlo, monospace; font-size: 0.9em; }
code { background: #f0f0f0; padding: 0.05em 0.25em; border-radius: 2px; }
pre { background: #f3f3f3; border: 1px solid #e0e0e0; padding: 0.6em 0.8em; white-space: pre-wrap; overflow-wrap: anywhere; tab-size: 4; }
pre code { background: none; padding: 0; }
blockquote { border-left: 3px solid #ccc; padding: 0 0 0 0.9em; color: #444; margin-left: 0; }
table { border-collapse: collapse; max-width: 100%; }
th, td { border: 1px solid #bbb; padding: 0.25em 0.5em; vertical-align: top; overflow-wrap: anywhere; }
th { background: #eee; }
tr { page-break-inside: avoid; break-inside: avoid; }
hr { border: 0; border-top: 1px solid #bbb; margin: 1em 0; }
img { max-width: 100%; }
li > p { margin: 0.2em 0; }
del { color: #555; }
`

// rebaseLinks makes relative link and image destinations absolute paths
// under baseDir, which the file:// page resolves to files there. (Not file:
// URLs: goldmark's safe mode blanks those.) The page itself lives in a throwaway directory, and a
// <base> element would instead break in-document "#anchor" links, which
// browsers keep as internal links in the PDF only when they point at the
// page itself.
func rebaseLinks(doc ast.Node, baseDir string) {
	rebase := func(dest []byte) []byte {
		d := string(dest)
		if d == "" || strings.HasPrefix(d, "#") || strings.HasPrefix(d, "/") || strings.HasPrefix(d, "\\") {
			return dest
		}
		u, err := url.Parse(d)
		if err != nil || u.Scheme != "" || u.Host != "" {
			return dest
		}
		p, err := url.PathUnescape(u.Path)
		if err != nil {
			return dest
		}
		full := filepath.ToSlash(filepath.Join(baseDir, filepath.FromSlash(p)))
		if !strings.HasPrefix(full, "/") {
			full = "/" + full // a Windows drive path, as file URLs spell it
		}
		abs := &url.URL{Path: full, RawQuery: u.RawQuery, Fragment: u.Fragment}
		return []byte(abs.String())
	}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			n.Destination = rebase(n.Destination)
		case *ast.Image:
			n.Destination = rebase(n.Destination)
		}
		return ast.WalkContinue, nil
	})
}

// buildHTML renders markdown into a complete, self-contained HTML page.
// baseDir is where relative links and images resolve from: the directory of
// the output file, since the HTML itself lives in a throwaway temp dir.
func buildHTML(markdown, title, baseDir string) ([]byte, error) {
	src := []byte(markdown)
	md := newMarkdown()
	doc := md.Parser().Parse(text.NewReader(src))
	if baseDir != "" {
		rebaseLinks(doc, baseDir)
	}
	var body bytes.Buffer
	if err := md.Renderer().Render(&body, src, doc); err != nil {
		return nil, fmt.Errorf("convert Markdown to HTML: %w", err)
	}
	var b bytes.Buffer
	b.Grow(body.Len() + len(printCSS) + 512)
	b.WriteString("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n")
	// No scripts, no network fetches except images: the page is rendered
	// by a real browser that can read local files.
	b.WriteString(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data: file: http: https:">` + "\n")
	fmt.Fprintf(&b, "<title>%s</title>\n", html.EscapeString(title))
	b.WriteString("<style>")
	b.WriteString(printCSS)
	b.WriteString("</style>\n</head><body>\n")
	if title != "" {
		fmt.Fprintf(&b, "<h1 class=\"doc-title\">%s</h1>\n", html.EscapeString(title))
	}
	b.Write(body.Bytes())
	b.WriteString("</body></html>\n")
	return b.Bytes(), nil
}
