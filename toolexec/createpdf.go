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
		return errResult("create_pdf: output_path %q must end in .pdf", outPath)
	}
	real, shown, err := e.resolve(outPath)
	if err != nil {
		return errResult("create_pdf: %v", err)
	}
	if fi, err := os.Stat(real); err == nil && fi.IsDir() {
		return errResult("create_pdf: %s is a directory", shown)
	}
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		return errResult("create_pdf: creating the directory for %s: %v", shown, err)
	}
	title := strings.TrimSpace(a.str("title"))
	engine, err := renderPDF(ctx, content, title, real, pdf.Options{Engine: e.getenv(PDFEngineEnv)})
	if err != nil {
		return errResult("create_pdf: %s: %v", shown, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return errResult("create_pdf: the %s engine reported success but %s is missing: %v", engine, shown, err)
	}
	pages := ""
	if n := countPDFPages(real); n > 0 {
		pages = fmt.Sprintf(", %d page%s", n, map[bool]string{true: "", false: "s"}[n == 1])
	}
	return Result{Text: fmt.Sprintf("wrote %s (%s%s) with %s", shown, humanSize(fi.Size()), pages, engine)}
}

var pageObjRE = regexp.MustCompile(`/Type\s*/Page\b`)

// countPDFPages counts page objects; 0 when they are hidden in compressed
// object streams and so cannot be counted cheaply.
func countPDFPages(path string) int {
	data, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(data, []byte("%PDF")) {
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
