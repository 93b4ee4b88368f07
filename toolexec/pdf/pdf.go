package pdf

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Engine names, as accepted by Options.Engine and returned by Render.
const (
	EngineChrome      = "chrome"
	EngineChromium    = "chromium"
	EngineEdge        = "edge"
	EngineWkhtmltopdf = "wkhtmltopdf"
	EngineWeasyprint  = "weasyprint"
	EngineBuiltin     = "builtin"
)

// engineOrder is the preference order of the automatic chain. The browsers
// come first because their layout and font fallback are the best; the
// built-in renderer is last because it is the floor, not the ideal.
var engineOrder = []string{
	EngineChrome, EngineChromium, EngineEdge,
	EngineWkhtmltopdf, EngineWeasyprint, EngineBuiltin,
}

// Sentinel errors callers can branch on with errors.Is.
var (
	// ErrUnknownEngine: Options.Engine is not one of the engine names.
	ErrUnknownEngine = errors.New("unknown PDF engine")
	// ErrEngineUnavailable: the forced engine has no binary on this machine.
	ErrEngineUnavailable = errors.New("PDF engine not available")
	// ErrEngineFailed: an external engine ran but produced no valid PDF.
	ErrEngineFailed = errors.New("PDF engine failed")
	// ErrBadOutputPath: the output path is empty or names a directory.
	ErrBadOutputPath = errors.New("bad PDF output path")
)

// Options tunes Render.
type Options struct {
	// Engine is "" for the best available engine, else one of the engine
	// names (chrome, chromium, edge, wkhtmltopdf, weasyprint, builtin),
	// which is then used alone: an unavailable or failing forced engine is
	// an error rather than a silent fallback, since the caller asked for it.
	Engine string
}

// EngineNames lists every engine name Render accepts, in preference order.
func EngineNames() []string {
	return append([]string(nil), engineOrder...)
}

// Engines reports which engines exist on this machine, in preference order.
// The built-in engine is always present.
func Engines() []string {
	var out []string
	for _, name := range engineOrder {
		if name == EngineBuiltin || findBinary(name) != "" {
			out = append(out, name)
		}
	}
	return out
}

// Render converts markdown to a PDF at outPath and returns the name of the
// engine that produced it. title, when not empty, becomes the document
// title (metadata and a heading above the content). Parent directories of
// outPath are created; the file appears atomically or not at all.
func Render(ctx context.Context, markdown, title, outPath string, opts Options) (engine string, err error) {
	if ctx == nil {
		ctx = context.Background()
	}
	forced := strings.ToLower(strings.TrimSpace(opts.Engine))
	if forced != "" && !knownEngine(forced) {
		return "", fmt.Errorf("%w %q: allowed are %s, or empty for the best available",
			ErrUnknownEngine, opts.Engine, strings.Join(engineOrder, ", "))
	}
	out, err := prepareOutput(outPath)
	if err != nil {
		return "", err
	}
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("render PDF: %w", err)
	}

	if forced == EngineBuiltin {
		if err := renderBuiltinFile(ctx, markdown, title, out); err != nil {
			return "", err
		}
		return EngineBuiltin, nil
	}
	if forced != "" {
		bin := findBinary(forced)
		if bin == "" {
			return "", fmt.Errorf("%w: %s (looked for %s on PATH); available here: %s",
				ErrEngineUnavailable, forced, strings.Join(engineBinaries[forced], ", "),
				strings.Join(Engines(), ", "))
		}
		if err := renderExternalFile(ctx, forced, bin, markdown, title, out); err != nil {
			return "", err
		}
		return forced, nil
	}

	// Automatic chain: every failure is remembered so that, should even the
	// floor fail, the error tells the whole story.
	var failures []error
	for _, name := range engineOrder {
		if name == EngineBuiltin {
			break
		}
		bin := findBinary(name)
		if bin == "" {
			continue
		}
		err := renderExternalFile(ctx, name, bin, markdown, title, out)
		if err == nil {
			return name, nil
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return "", fmt.Errorf("render PDF: %w", errors.Join(append(failures, err)...))
		}
		failures = append(failures, err)
	}
	if err := renderBuiltinFile(ctx, markdown, title, out); err != nil {
		return "", errors.Join(append(failures, err)...)
	}
	return EngineBuiltin, nil
}

func knownEngine(name string) bool {
	for _, e := range engineOrder {
		if e == name {
			return true
		}
	}
	return false
}

// prepareOutput makes outPath absolute, refuses directories and creates the
// parent directories, so engines only ever deal with a writable target.
func prepareOutput(outPath string) (string, error) {
	if strings.TrimSpace(outPath) == "" {
		return "", fmt.Errorf("%w: empty path; give a file path such as report.pdf", ErrBadOutputPath)
	}
	abs, err := filepath.Abs(outPath)
	if err != nil {
		return "", fmt.Errorf("%w: %s: %w", ErrBadOutputPath, outPath, err)
	}
	if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
		return "", fmt.Errorf("%w: %s is a directory; give a file path", ErrBadOutputPath, outPath)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return "", fmt.Errorf("%w: create parent directory of %s: %w", ErrBadOutputPath, outPath, err)
	}
	return abs, nil
}
