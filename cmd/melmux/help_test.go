package main

import (
	"bytes"
	"flag"
	"strings"
	"testing"

	"github.com/melmux/melmux/internal/cli"
)

// TestEveryVerbsHelp runs `melmux VERB --help` for every verb: it exits 0,
// prints the verb's synopsis, and names every flag the verb's flag sets
// define with its description.
func TestEveryVerbsHelp(t *testing.T) {
	var sets []*flag.FlagSet
	stop := cli.WatchFlagSets(func(fs *flag.FlagSet) { sets = append(sets, fs) })
	defer stop()
	for _, verb := range cli.Names() {
		for _, args := range helpLines(verb) {
			sets = nil
			var out, errb bytes.Buffer
			if code := run(args, strings.NewReader(""), &out, &errb); code != 0 {
				t.Errorf("melmux %s: exit status %d, want 0; stderr:\n%s", strings.Join(args, " "), code, errb.String())
				continue
			}
			help := out.String()
			if !strings.Contains(help, "usage: melmux "+verb+" ") {
				t.Errorf("melmux %s prints no synopsis:\n%s", strings.Join(args, " "), help)
			}
			for _, fs := range sets {
				fs.VisitAll(func(f *flag.Flag) {
					_, usage := flag.UnquoteUsage(f)
					name := "--" + f.Name
					if len(f.Name) == 1 {
						name = "-" + f.Name
					}
					if strings.TrimSpace(usage) == "" {
						t.Errorf("melmux %s: flag %s has no description", verb, name)
						return
					}
					if !strings.Contains(help, "  "+name+" ") && !strings.Contains(help, "  "+name+"\n") || !strings.Contains(help, usage) {
						t.Errorf("melmux %s: flag %s (%q) is not described in:\n%s", strings.Join(args, " "), name, usage, help)
					}
				})
			}
		}
	}
}

// helpLines are the command lines asking a verb for help: the verb's own,
// and each subcommand's for a verb that has them.
func helpLines(verb string) [][]string {
	lines := [][]string{{verb, "--help"}}
	if verb == "worktree" {
		for _, sub := range []string{"list", "commit", "merge", "clean"} {
			lines = append(lines, []string{verb, sub, "--help"})
		}
	}
	return lines
}
