package toolexec

import (
	"fmt"
	"github.com/melmux/melmux/internal/proto"
	"strconv"
	"unicode/utf8"
)

// Size limits on what a model may send. Each is far above what a model
// writes in one call (its whole output is at most a few hundred kilobytes)
// and low enough that one call cannot exhaust memory or time: without them
// a huge grep pattern took seconds and gigabytes, and a huge path came back
// in an error twice its size (docs/benchmarks.md, "Figures behind the
// code's comments"). docs/cli.md lists them.
const (
	// MaxArgumentsBytes bounds a call's JSON-encoded arguments as received:
	// room for the largest content (MaxContentBytes) with escaping.
	MaxArgumentsBytes = 3 * MaxContentBytes
	// MaxContentBytes bounds the text written by write_file, each of
	// edit_file's strings and create_pdf's document.
	MaxContentBytes = 32 << 20
	// MaxEditFileBytes bounds the file edit_file will load: it holds the
	// file and its edited copy in memory at once.
	MaxEditFileBytes = 64 << 20
	// maxPathBytes is Linux's PATH_MAX: no system call takes a longer path.
	maxPathBytes = 4096
	// maxPatternBytes bounds grep and find_files patterns. Real patterns are
	// a few dozen bytes; the regexp compiler's cost grows with the pattern.
	maxPatternBytes = 4096
	// maxCommandBytes is Linux's MAX_ARG_STRLEN less the NUL: exec refuses a
	// longer single argument, and sh -c passes the command as one.
	maxCommandBytes = 128<<10 - 1
	// maxPaneTextBytes keeps a pane tool's request, escaped, within the
	// control protocol's 1 MiB line.
	maxPaneTextBytes = 256 << 10
	// maxPlanBytes bounds a plan; maxNoteBytes a remembered note, which
	// every later recall returns; maxLineArgBytes a title, a search query
	// or a model name.
	maxPlanBytes    = 1 << 20
	maxNoteBytes    = 64 << 10
	maxLineArgBytes = 2 << 10
)

// argLimits gives every string argument of every tool its limit in bytes,
// keyed tool.argument; a test checks none is missing.
var argLimits = map[string]int{
	"read_file.path":         maxPathBytes,
	"list_dir.path":          maxPathBytes,
	"grep.pattern":           maxPatternBytes,
	"find_files.pattern":     maxPatternBytes,
	"write_file.path":        maxPathBytes,
	"write_file.content":     MaxContentBytes,
	"edit_file.path":         maxPathBytes,
	"edit_file.old_string":   MaxContentBytes,
	"edit_file.new_string":   MaxContentBytes,
	"run_command.command":    maxCommandBytes,
	"web_search.query":       maxLineArgBytes,
	"write_plan.title":       maxLineArgBytes,
	"write_plan.markdown":    maxPlanBytes,
	"create_pdf.content":     MaxContentBytes,
	"create_pdf.output_path": maxPathBytes,
	"create_pdf.title":       maxLineArgBytes,
	"remember.note":          maxNoteBytes,
	"open_pane.layout":       maxLineArgBytes,
	"open_pane.command":      maxCommandBytes,
	"spawn_agent.layout":     maxLineArgBytes,
	"spawn_agent.model":      maxLineArgBytes,
	"spawn_agent.task":       proto.MaxWorkerTask, // the worker gets it in one environment variable
	"send_keys.text":         maxPaneTextBytes,
	"send_agent.text":        maxPaneTextBytes,
}

// paneIDMinimum is the least pane id: ids count from 1, and a model that
// sends 0 or -1 is told that here, in the words of the argument it got
// wrong, not with the session's message for a missing parameter.
var paneIDMinimum = map[string]bool{
	"send_keys.pane": true, "send_agent.pane": true, "read_pane.pane": true, "read_agent.pane": true,
}

// checkMinimum refuses a pane id below 1.
func checkMinimum(qualified string, v any) error {
	if n, ok := v.(int64); ok && paneIDMinimum[qualified] && n < 1 {
		return fmt.Errorf("must be a pane id, 1 or more (list_panes shows them), got %d", n)
	}
	return nil
}

// quoteMax is how much of a model's argument an error message quotes: enough
// to recognise it, never enough to flood the model's context with it.
const quoteMax = 64

// quoteArg quotes at most the first quoteMax bytes of s (at a rune boundary),
// saying how long it was when cut.
func quoteArg(s string) string {
	if len(s) <= quoteMax {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%s (%d bytes)", quotePrefix(s), len(s))
}

// quotePrefix quotes the first quoteMax bytes of s, with an ellipsis when
// there is more.
func quotePrefix(s string) string {
	if len(s) <= quoteMax {
		return strconv.Quote(s)
	}
	cut := quoteMax
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "…"
}

// HumanBytes writes a limit or a size the way docs/cli.md does: 4096 bytes,
// 64 KiB, 32 MiB. melmux mcp words its own limits with it.
func HumanBytes(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// tooLong is the error for a string argument over its limit.
func tooLong(value string, limit int) error {
	return fmt.Errorf("is %d bytes, over the limit of %s (it starts %s)", len(value), HumanBytes(limit), quotePrefix(value))
}
