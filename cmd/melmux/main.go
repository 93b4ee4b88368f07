package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/melmux/melmux/internal/proto"
)

// verb is one CLI subcommand. Each lives in its own file and registers itself
// in init, so adding a verb touches no other file.
type verb struct {
	name    string
	usage   string // the synopsis after "melmux NAME"
	summary string
	run     func(g *globals, args []string) error
}

var verbs = map[string]*verb{}

func register(v *verb) {
	if _, dup := verbs[v.name]; dup {
		panic("melmux: verb registered twice: " + v.name)
	}
	verbs[v.name] = v
}

// globals are the options every verb accepts, before or after the verb.
type globals struct {
	session string // -s NAME; empty means $MELMUX_SESSION or "main"
	stdout  io.Writer
	stderr  io.Writer
	stdin   io.Reader
}

// usageError marks a wrong command line: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// exitError carries a chosen exit status with an optional message, for verbs
// such as wait whose "no" answer is not an error worth printing.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	g := &globals{stdout: stdout, stderr: stderr, stdin: stdin}
	args, err := takeSessionFlag(g, args)
	if err == nil {
		err = dispatch(g, args)
	}
	if err == nil {
		return 0
	}
	var ue *usageError
	var ee *exitError
	var pe *proto.Error
	switch {
	case errors.As(err, &pe) && pe.Code == proto.CodeBadParams:
		// The server refused a value the command line gave: a usage error.
		fmt.Fprintf(stderr, "melmux: %s\n", pe.Message)
		return 2
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "melmux: %s\n", ue.msg)
		return 2
	case errors.As(err, &ee):
		if ee.msg != "" {
			fmt.Fprintf(stderr, "melmux: %s\n", ee.msg)
		}
		return ee.code
	case errors.Is(err, flag.ErrHelp):
		return 0
	default:
		fmt.Fprintf(stderr, "melmux: %s\n", err)
		return 1
	}
}

// takeSessionFlag removes a leading -s NAME (or -s=NAME) so the verb can
// follow it; a -s after the verb is handled by the verb's own flag set.
func takeSessionFlag(g *globals, args []string) ([]string, error) {
	for len(args) > 0 {
		a := args[0]
		switch {
		case a == "-s" || a == "--s" || a == "--session":
			if len(args) < 2 {
				return nil, usagef("-s needs a session name")
			}
			if err := setSession(g, args[1]); err != nil {
				return nil, err
			}
			args = args[2:]
		case strings.HasPrefix(a, "-s=") || strings.HasPrefix(a, "--session="):
			if err := setSession(g, a[strings.Index(a, "=")+1:]); err != nil {
				return nil, err
			}
			args = args[1:]
		default:
			return args, nil
		}
	}
	return args, nil
}

func dispatch(g *globals, args []string) error {
	if len(args) == 0 {
		return attachOrCreate(g)
	}
	name := args[0]
	switch name {
	case "help", "-h", "--help":
		printHelp(g.stdout)
		return nil
	case "version", "--version":
		fmt.Fprintln(g.stdout, "melmux", version)
		return nil
	}
	v, ok := verbs[name]
	if !ok {
		return usagef("unknown verb %q (verbs: %s)", name, strings.Join(verbNames(), ", "))
	}
	// A bad $MELMUX_SESSION would name a socket outside the socket directory
	// (../x) or garble messages: refused before any verb uses it.
	if env := os.Getenv("MELMUX_SESSION"); env != "" {
		if err := proto.ValidateSessionName(env); err != nil {
			return usagef("$MELMUX_SESSION: %v", err)
		}
	}
	return v.run(g, args[1:])
}

const version = "0.1.0"

// verbNames lists the public verbs, sorted; `__serve` is internal.
func verbNames() []string {
	names := make([]string, 0, len(verbs))
	for n := range verbs {
		if !strings.HasPrefix(n, "__") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

func printHelp(w io.Writer) {
	fmt.Fprintln(w, "usage: melmux [-s NAME] [VERB [ARGS]]")
	fmt.Fprintln(w, "With no verb, attach to the session (creating it). Verbs:")
	for _, n := range verbNames() {
		v := verbs[n]
		fmt.Fprintf(w, "  %-12s %s\n", n, v.summary)
	}
}

// newFlags makes a verb's flag set: errors are returned, not printed twice,
// and -s is accepted after the verb too.
func newFlags(g *globals, v string) *flag.FlagSet {
	fs := flag.NewFlagSet(v, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Func("s", "session name", func(name string) error { return setSession(g, name) })
	return fs
}

// setSession takes an explicit -s NAME. An empty name is refused rather than
// read as "not given": `melmux -s "$NAME" kill-server` with NAME unset must
// not end the main session.
func setSession(g *globals, name string) error {
	if err := proto.ValidateSessionName(name); err != nil {
		return usagef("-s: %v", err)
	}
	g.session = name
	return nil
}

// parseFlags parses args and turns a flag error into a usage error that shows
// the verb's synopsis.
func parseFlags(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	if err == nil {
		return nil
	}
	if errors.Is(err, flag.ErrHelp) {
		v := verbs[fs.Name()]
		fmt.Fprintf(os.Stdout, "usage: melmux %s %s\n%s\n", fs.Name(), v.usage, v.summary)
		return err
	}
	syn := ""
	if v := verbs[fs.Name()]; v != nil {
		syn = fmt.Sprintf(" (usage: melmux %s %s)", fs.Name(), v.usage)
	}
	return usagef("%s: %v%s", fs.Name(), err, syn)
}
