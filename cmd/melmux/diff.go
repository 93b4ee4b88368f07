package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/melmux/melmux/internal/cli"
	"github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/worktree"
)

func init() {
	cli.Register(&cli.Verb{
		Name:    "diff",
		Usage:   "-t PANE [--stat] [--color auto|always|never] [--json]",
		Summary: "what a worktree pane holds that its base branch does not (changed since it was made, committed or not, less what a merge took into the base branch)",
		Run: func(g *cli.Globals, args []string) error {
			fs := cli.NewFlags(g, "diff")
			target := fs.String("t", "", "the pane (default: this pane inside melmux)")
			stat := fs.Bool("stat", false, "the files changed and their counts (git's --stat) instead of the patch")
			color := fs.String("color", "auto", "auto (when stdout is a terminal and $NO_COLOR is unset), always or never")
			asJSON := fs.Bool("json", false, "print the result as JSON")
			if err := cli.ParseFlags(fs, args); err != nil {
				return err
			}
			if fs.NArg() > 0 {
				return cli.Usagef("diff takes no arguments besides flags, got %q", strings.Join(fs.Args(), " "))
			}
			pane, err := paneFlag(g, "diff", *target)
			if err != nil {
				return err
			}
			tty, width := terminalOut(g.Stdout)
			colored := false
			switch *color {
			case "auto":
				colored = tty && os.Getenv("NO_COLOR") == ""
			case "always":
				colored = true
			case "never":
			default:
				return cli.Usagef("diff: --color %q: use auto, always or never", *color)
			}
			var res proto.DiffResult
			if err := call(g, "diff", proto.DiffParams{Pane: pane, Stat: *stat, StatWidth: width}, &res); err != nil {
				return err
			}
			if *asJSON {
				return printJSON(g.Stdout, res)
			}
			if len(res.Files) == 0 {
				fmt.Fprintf(g.Stderr, "melmux: pane %d's worktree (%s) has no changes since %.12s\n", pane, res.Branch, res.Base)
				return nil
			}
			// A worktree's files are whatever its agent wrote: on a
			// terminal their control characters are shown, not run. Piped
			// (to git apply, to a file) the patch stays exact.
			text := res.Text
			if tty || colored {
				text = client.Visible(text)
			}
			if colored {
				text = coloredDiff(text)
			}
			if _, err := io.WriteString(g.Stdout, text); err != nil {
				return err
			}
			if res.Truncated {
				fmt.Fprintf(g.Stderr, "melmux: the diff is cut at 2 MiB; `git -C %s diff %s` shows it all\n", res.Worktree, res.Base)
			}
			return nil
		},
	})
}

// terminalOut reports whether w is a terminal, and its width (0 when not
// one, which the server takes as 80).
func terminalOut(w io.Writer) (bool, int) {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return false, 0
	}
	cols, _, err := term.GetSize(int(f.Fd()))
	if err != nil {
		return true, 0
	}
	return true, min(cols, 1000)
}

// The colours of a diff on a terminal, git's defaults.
const (
	sgrBold  = "\x1b[1m"
	sgrCyan  = "\x1b[36m"
	sgrGreen = "\x1b[32m"
	sgrRed   = "\x1b[31m"
	sgrReset = "\x1b[m"
)

// coloredDiff is a diff's text with ANSI colours: headers bold, hunk
// headers cyan, added lines and the bars' '+' green, deleted lines and '-'
// red.
func coloredDiff(text string) string {
	var cls worktree.Classifier
	var b strings.Builder
	for _, line := range strings.SplitAfter(text, "\n") {
		if line == "" {
			continue
		}
		body := strings.TrimSuffix(line, "\n")
		nl := line[len(body):]
		sgr := ""
		switch cls.Next(body) {
		case worktree.LineFile, worktree.LineHeader:
			sgr = sgrBold
		case worktree.LineHunk:
			sgr = sgrCyan
		case worktree.LineAdded:
			sgr = sgrGreen
		case worktree.LineDeleted:
			sgr = sgrRed
		case worktree.LineText:
			if head, plus, minus, ok := worktree.StatBar(body); ok {
				b.WriteString(head + sgrGreen + plus + sgrRed + minus + sgrReset + nl)
				continue
			}
		}
		if sgr == "" {
			b.WriteString(line)
			continue
		}
		b.WriteString(sgr + body + sgrReset + nl)
	}
	return b.String()
}
