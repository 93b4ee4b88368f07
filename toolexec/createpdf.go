package toolexec

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/melmux/melmux/toolexec/pdf"
)

// PDFEngineEnv forces create_pdf's engine (chromium, chrome, edge,
// wkhtmltopdf, weasyprint or builtin).
const PDFEngineEnv = "MELMUX_PDF_ENGINE"

// renderPDF is pdf.Render; a variable so tests can count calls without
// depending on which engines the machine has.
var renderPDF = pdf.Render

func (e *Executor) createPDF(ctx context.Context, a args) Result {
	content := a.str("content")
	if strings.TrimSpace(content) == "" {
		return errResult("create_pdf: content is empty; give the document as Markdown")
	}
	outPath := a.str("output_path")
	if !strings.EqualFold(filepath.Ext(outPath), ".pdf") {
		return errResult("create_pdf: output_path %s must end in .pdf", quoteArg(outPath))
	}
	t, err := e.resolve(outPath)
	if err != nil {
		return errResult("create_pdf: %v", err)
	}
	shown := t.shown
	if fi, err := e.statAt(t); err == nil && fi.IsDir() {
		return errResult("create_pdf: %s is a directory", shown)
	}
	// The engines write by name, so they write into a private directory;
	// the result is installed through the output directory's descriptor
	// like any other write.
	tmpDir, err := os.MkdirTemp("", "melmux-pdf-")
	if err != nil {
		return errResult("create_pdf: %v", err)
	}
	defer os.RemoveAll(tmpDir)
	rendered := filepath.Join(tmpDir, "out.pdf")
	title := strings.TrimSpace(a.str("title"))
	engine, err := renderPDF(ctx, content, title, rendered, pdf.Options{Engine: e.getenv(PDFEngineEnv)})
	if err != nil {
		return errResult("create_pdf: %s: %v", shown, err)
	}
	data, err := os.ReadFile(rendered)
	if err != nil {
		return errResult("create_pdf: the %s engine reported success but wrote no file: %v", engine, err)
	}
	if _, err := e.writeTarget(ctx, t, bytes.NewReader(data)); err != nil {
		return errResult("create_pdf: %v", err)
	}
	pages := ""
	if n := countPDFPages(data); n > 0 {
		pages = fmt.Sprintf(", %d page%s", n, map[bool]string{true: "", false: "s"}[n == 1])
	}
	return Result{Text: fmt.Sprintf("wrote %s (%s%s) with %s", shown, humanSize(int64(len(data))), pages, engine)}
}

var pageObjRE = regexp.MustCompile(`/Type\s*/Page\b`)

// countPDFPages counts page objects; 0 when they are hidden in compressed
// object streams and so cannot be counted cheaply.
func countPDFPages(data []byte) int {
	if !bytes.HasPrefix(data, []byte("%PDF")) {
		return 0
	}
	return len(pageObjRE.FindAllIndex(data, -1))
}

func humanSize(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d bytes", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
}
