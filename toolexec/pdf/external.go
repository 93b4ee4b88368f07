package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// engineBinaries are the executable names tried on PATH for each external
// engine, most common first.
var engineBinaries = map[string][]string{
	EngineChrome:      {"google-chrome", "google-chrome-stable", "google-chrome-beta", "chrome"},
	EngineChromium:    {"chromium", "chromium-browser"},
	EngineEdge:        {"microsoft-edge", "microsoft-edge-stable", "msedge"},
	EngineWkhtmltopdf: {"wkhtmltopdf"},
	EngineWeasyprint:  {"weasyprint"},
}

// engineAppPaths are install locations that are not on PATH by default
// (macOS application bundles, Windows program folders).
var engineAppPaths = map[string][]string{
	EngineChrome: {
		"/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
		`C:\Program Files\Google\Chrome\Application\chrome.exe`,
		`C:\Program Files (x86)\Google\Chrome\Application\chrome.exe`,
	},
	EngineChromium: {"/Applications/Chromium.app/Contents/MacOS/Chromium"},
	EngineEdge: {
		"/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
		`C:\Program Files (x86)\Microsoft\Edge\Application\msedge.exe`,
		`C:\Program Files\Microsoft\Edge\Application\msedge.exe`,
	},
}

// externalTimeout bounds one external engine run, so a hung browser costs
// a bounded delay before the chain moves on; the caller's context can cut
// it shorter. A variable so tests can shrink it.
var externalTimeout = 90 * time.Second

// logTail is how much of an engine's output an error message quotes.
const logTail = 1500

// findBinary returns the path of the engine's executable, or "".
func findBinary(engine string) string {
	for _, name := range engineBinaries[engine] {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	for _, p := range engineAppPaths[engine] {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p
		}
	}
	return ""
}

// renderExternalFile renders through an external engine into a scratch
// directory, checks the result really is a PDF, then installs it at out.
func renderExternalFile(ctx context.Context, engine, bin, markdown, title, out string) error {
	page, err := buildHTML(markdown, title, filepath.Dir(out))
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrEngineFailed, engine, err)
	}
	work, err := os.MkdirTemp("", "melmux-pdf-*")
	if err != nil {
		return fmt.Errorf("%w: %s: scratch directory: %w", ErrEngineFailed, engine, err)
	}
	defer os.RemoveAll(work)
	htmlPath := filepath.Join(work, "document.html")
	if err := os.WriteFile(htmlPath, page, 0o600); err != nil {
		return fmt.Errorf("%w: %s: write HTML: %w", ErrEngineFailed, engine, err)
	}
	pdfPath := filepath.Join(work, "document.pdf")
	args := engineArgs(engine, work, htmlPath, pdfPath, title)

	runCtx, cancel := context.WithTimeout(ctx, externalTimeout)
	defer cancel()
	logText, runErr := runEngine(runCtx, bin, args, work)
	if runErr != nil {
		if runCtx.Err() != nil {
			// Name the timeout plainly: "signal: killed" alone reads like a crash.
			runErr = fmt.Errorf("killed after %v: %w", timeoutOf(ctx), runCtx.Err())
		}
		return fmt.Errorf("%w: %s (%s): %w%s", ErrEngineFailed, engine, bin, runErr, quoteLog(logText))
	}
	if err := checkPDFFile(pdfPath); err != nil {
		return fmt.Errorf("%w: %s (%s) exited 0 but %w%s", ErrEngineFailed, engine, bin, err, quoteLog(logText))
	}
	if err := copyFileAtomic(pdfPath, out); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrEngineFailed, engine, err)
	}
	return nil
}

// timeoutOf reports the effective limit for a message: the engine timeout
// or the caller's sooner deadline.
func timeoutOf(ctx context.Context) time.Duration {
	if dl, ok := ctx.Deadline(); ok {
		if left := time.Until(dl); left < externalTimeout {
			return left.Round(time.Millisecond)
		}
	}
	return externalTimeout
}

func quoteLog(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	return "; output: " + s
}

// engineArgs builds the command line for one engine.
func engineArgs(engine, work, htmlPath, pdfPath, title string) []string {
	fileURL := (&url.URL{Scheme: "file", Path: filepath.ToSlash(htmlPath)}).String()
	if runtime.GOOS == "windows" {
		fileURL = "file:///" + filepath.ToSlash(htmlPath)
	}
	switch engine {
	case EngineWkhtmltopdf:
		args := []string{"--quiet", "--encoding", "utf-8", "--disable-javascript",
			"--enable-local-file-access", "--page-size", "A4", "--print-media-type",
			// wkhtmltopdf ignores @page margins; match the stylesheet's.
			"--margin-top", "20mm", "--margin-bottom", "20mm",
			"--margin-left", "18mm", "--margin-right", "18mm"}
		if title != "" {
			args = append(args, "--title", title)
		}
		return append(args, htmlPath, pdfPath)
	case EngineWeasyprint:
		return []string{"--encoding", "utf-8", htmlPath, pdfPath}
	default: // the Chromium family shares one command line
		args := []string{
			"--headless", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
			"--disable-background-networking", "--disable-component-update", "--disable-sync",
			"--disable-extensions", "--disable-dev-shm-usage", "--mute-audio",
			"--user-data-dir=" + filepath.Join(work, "profile"),
			// Both spellings: the flag was renamed in Chrome 111 and
			// unknown switches are ignored.
			"--no-pdf-header-footer", "--print-to-pdf-no-header",
			"--print-to-pdf=" + pdfPath,
		}
		if needNoSandbox() {
			// Chromium refuses to start as root with its sandbox on.
			args = append(args, "--no-sandbox")
		}
		return append(args, fileURL)
	}
}

// runEngine runs bin with output going to a log file rather than a pipe:
// a browser's helper processes inherit the descriptors, and with a pipe
// Wait would block until the last helper exited.
func runEngine(ctx context.Context, bin string, args []string, work string) (string, error) {
	logPath := filepath.Join(work, "engine.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return "", fmt.Errorf("create log: %w", err)
	}
	defer logFile.Close()

	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = work
	cmd.Stdin = nil
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	// Keep browser state in the scratch directory rather than the user's
	// home (crash dumps, font caches, the "first run" marker).
	cmd.Env = append(os.Environ(),
		"XDG_CONFIG_HOME="+filepath.Join(work, "config"),
		"XDG_CACHE_HOME="+filepath.Join(work, "cache"),
	)
	setProcessGroup(cmd)
	cmd.Cancel = func() error { return killProcessGroup(cmd) }
	cmd.WaitDelay = 5 * time.Second

	runErr := cmd.Run()
	// Whatever the outcome, leave no helper behind: the browser's zygote
	// and crash handler live in the same process group.
	if cmd.Process != nil {
		_ = killProcessGroup(cmd)
	}
	return readTail(logPath, logTail), runErr
}

func readTail(path string, n int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return ""
	}
	start := fi.Size() - n
	if start < 0 {
		start = 0
	}
	buf, err := io.ReadAll(io.NewSectionReader(f, start, fi.Size()-start))
	if err != nil {
		return ""
	}
	s := strings.ToValidUTF8(string(buf), "?")
	if start > 0 {
		s = "..." + s
	}
	return s
}

// checkPDFFile verifies the file an engine left looks like a whole PDF: a
// browser killed mid-write, or one that printed an error page to stdout
// and exited 0, must not be mistaken for success.
func checkPDFFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return errors.New("wrote no PDF file")
		}
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	head := make([]byte, 5)
	if _, err := io.ReadFull(f, head); err != nil || string(head) != "%PDF-" {
		return fmt.Errorf("wrote a file that is not a PDF (%d bytes, no %%PDF- header)", fi.Size())
	}
	tailLen := int64(1024)
	if fi.Size() < tailLen {
		tailLen = fi.Size()
	}
	tail := make([]byte, tailLen)
	if _, err := f.ReadAt(tail, fi.Size()-tailLen); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	if !bytes.Contains(tail, []byte("%%EOF")) {
		return fmt.Errorf("wrote a truncated PDF (%d bytes, no %%%%EOF trailer)", fi.Size())
	}
	return nil
}
