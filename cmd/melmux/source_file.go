package main

import (
	"fmt"
	"path/filepath"

	"github.com/melmux/melmux/internal/cli"
	"github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/proto"
)

// source-file (tmux's name) has the running session read its config again.
// The server reads the file, not this process: melmux does not link the
// config parser, and what the session applies is what the server read. A
// relative FILE is made absolute here, where it was typed.
func init() {
	cli.Register(&cli.Verb{
		Name:    "source-file",
		Usage:   "[--json] [FILE]",
		Summary: "read the config again (FILE, default the one the session started with) and apply it to the running session",
		Run: func(g *cli.Globals, args []string) error {
			fs := cli.NewFlags(g, "source-file")
			asJSON := fs.Bool("json", false, "print the result as JSON")
			if err := cli.ParseFlags(fs, args); err != nil {
				return err
			}
			var p proto.SourceFileParams
			switch fs.NArg() {
			case 0:
			case 1:
				abs, err := filepath.Abs(fs.Arg(0))
				if err != nil {
					return fmt.Errorf("source-file: %w", err)
				}
				p.File = abs
			default:
				return cli.Usagef("source-file takes at most one FILE, got %d arguments (usage: melmux source-file %s)", fs.NArg(), "[--json] [FILE]")
			}
			var res proto.SourceFileResult
			if err := call(g, "source_file", p, &res); err != nil {
				return err
			}
			if *asJSON {
				if err := printJSON(g.Stdout, res); err != nil {
					return err
				}
			} else {
				for _, pr := range res.Problems {
					fmt.Fprintln(g.Stdout, client.VisibleLine(pr))
				}
				for _, n := range res.Notes {
					fmt.Fprintln(g.Stdout, "note: "+client.VisibleLine(n))
				}
			}
			file := client.VisibleLine(res.File)
			if len(res.Problems) > 0 {
				return &cli.ExitError{Code: 1, Msg: fmt.Sprintf("%s: %d entries left out (each named above); the rest of the file applies to session %q", file, len(res.Problems), sessionLabel(g))}
			}
			if !*asJSON {
				fmt.Fprintf(g.Stdout, "applied %s to session %q\n", file, sessionLabel(g))
			}
			return nil
		},
	})
}
