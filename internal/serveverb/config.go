package serveverb

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/melmux/melmux/internal/cli"
	"github.com/melmux/melmux/internal/config"
)

// config check reads a config file as a session would and prints every
// problem with its line, so a file can be checked before a session reads
// it (source-file) or starts with it. The messages quote the file's values
// (%q), so nothing of the file reaches the terminal raw.
func init() {
	cli.Register(cli.ConfigVerb(configVerb, false))
}

func configVerb(g *cli.Globals, args []string) error {
	const usage = "usage: melmux config check [FILE]"
	if len(args) == 0 {
		return cli.Usagef("config needs a subcommand: check [FILE] (%s)", usage)
	}
	if args[0] != "check" {
		if args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
			return cli.ParseFlags(cli.NewFlags(g, "config"), args)
		}
		return cli.Usagef("config: unknown subcommand %q (subcommands: check; %s)", args[0], usage)
	}
	fl := cli.NewFlags(g, "config")
	if err := cli.ParseFlags(fl, args[1:]); err != nil {
		return err
	}
	var file string
	switch fl.NArg() {
	case 0:
		p, err := config.Path()
		if err != nil {
			return err
		}
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(g.Stdout, "ok: there is no %s; melmux uses the defaults\n", p)
			return nil
		}
		file = p
	case 1:
		file = fl.Arg(0)
		// A missing file is no config to a session, but one named
		// here is a mistake.
		if _, err := os.Stat(file); errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("config check: there is no file %s", file)
		} else if err != nil {
			return fmt.Errorf("config check: %w", err)
		}
	default:
		return cli.Usagef("config check takes at most one FILE, got %d arguments (%s)", fl.NArg(), usage)
	}
	_, err := config.LoadFile(file)
	if err == nil {
		fmt.Fprintln(g.Stdout, "ok")
		return nil
	}
	probs := config.Problems(err)
	if len(probs) == 0 {
		return err // the file could not be read
	}
	for _, p := range probs {
		fmt.Fprintln(g.Stdout, p.Error())
	}
	name := file
	if errors.Is(err, config.ErrSyntax) {
		return &cli.ExitError{Code: 1, Msg: name + " is not valid TOML: melmux would use none of it (the defaults at a session's start; a running session keeps its config on source-file)"}
	}
	return &cli.ExitError{Code: 1, Msg: fmt.Sprintf("%s: %d problems: melmux leaves those entries out and uses the rest", name, len(probs))}
}
