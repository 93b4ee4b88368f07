package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/melmux/melmux/internal/proto"
)

// Version is melmux's version, the same for both binaries.
const Version = "0.1.0"

// Verb is one CLI subcommand.
type Verb struct {
	Name    string
	Usage   string // the synopsis after "melmux NAME"
	Summary string
	Run     func(g *Globals, args []string) error
	// StandIn marks a verb whose real implementation is in another binary
	// (melmux's exec hop to melmux-agent). A real verb registered under the
	// same name replaces it, whichever init runs first, so a binary that
	// links both (cmd/melmux's tests) runs the real one.
	StandIn bool
}

// verbs is the table, filled by init functions before main runs and only
// read after.
var verbs = map[string]*Verb{}

// Register adds a verb. Registering a name twice is a programming error,
// except that a real verb and a stand-in may share a name (the real one
// wins).
func Register(v *Verb) {
	old, dup := verbs[v.Name]
	switch {
	case !dup, old.StandIn && !v.StandIn:
		verbs[v.Name] = v
	case v.StandIn && !old.StandIn:
		// The real verb is already there.
	default:
		panic("melmux: verb registered twice: " + v.Name)
	}
}

// Lookup returns the verb called name, or nil.
func Lookup(name string) *Verb { return verbs[name] }

// Names lists the public verbs, sorted; `__serve` is internal.
func Names() []string {
	names := make([]string, 0, len(verbs))
	for n := range verbs {
		if !strings.HasPrefix(n, "__") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// Globals are the options every verb accepts, before or after the verb, and
// the streams it uses.
type Globals struct {
	Session string // -s NAME; empty means $MELMUX_SESSION or "main"
	Stdout  io.Writer
	Stderr  io.Writer
	Stdin   io.Reader
}

// UsageError marks a wrong command line: exit status 2.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Usagef makes a UsageError.
func Usagef(format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}

// ExitError carries a chosen exit status with an optional message, for verbs
// such as wait whose "no" answer is not an error worth printing.
type ExitError struct {
	Code int
	Msg  string
}

func (e *ExitError) Error() string { return e.Msg }

// Run runs one command line and returns the exit status: 0 success, 1 the
// operation failed, 2 the command line was wrong. noVerb is what an empty
// command line does (melmux attaches); nil prints the help.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer, noVerb func(*Globals) error) int {
	g := &Globals{Stdout: stdout, Stderr: stderr, Stdin: stdin}
	args, err := takeSessionFlag(g, args)
	if err == nil {
		err = dispatch(g, args, noVerb)
	}
	if err == nil {
		return 0
	}
	var ue *UsageError
	var ee *ExitError
	var pe *proto.Error
	switch {
	case errors.As(err, &pe) && pe.Code == proto.CodeBadParams:
		// The server refused a value the command line gave: a usage error.
		fmt.Fprintf(stderr, "melmux: %s\n", pe.Message)
		return 2
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "melmux: %s\n", ue.Msg)
		return 2
	case errors.As(err, &ee):
		if ee.Msg != "" {
			fmt.Fprintf(stderr, "melmux: %s\n", ee.Msg)
		}
		return ee.Code
	case errors.Is(err, flag.ErrHelp):
		return 0
	default:
		fmt.Fprintf(stderr, "melmux: %s\n", err)
		return 1
	}
}

// takeSessionFlag removes a leading -s NAME (or -s=NAME) so the verb can
// follow it; a -s after the verb is handled by the verb's own flag set.
func takeSessionFlag(g *Globals, args []string) ([]string, error) {
	for len(args) > 0 {
		a := args[0]
		switch {
		case a == "-s" || a == "--s" || a == "--session":
			if len(args) < 2 {
				return nil, Usagef("-s needs a session name")
			}
			if err := SetSession(g, args[1]); err != nil {
				return nil, err
			}
			args = args[2:]
		case strings.HasPrefix(a, "-s=") || strings.HasPrefix(a, "--session="):
			if err := SetSession(g, a[strings.Index(a, "=")+1:]); err != nil {
				return nil, err
			}
			args = args[1:]
		default:
			return args, nil
		}
	}
	return args, nil
}

func dispatch(g *Globals, args []string, noVerb func(*Globals) error) error {
	if len(args) == 0 {
		if noVerb == nil {
			printHelp(g.Stdout)
			return nil
		}
		return noVerb(g)
	}
	name := args[0]
	switch name {
	case "help", "-h", "--help":
		printHelp(g.Stdout)
		return nil
	case "version", "--version":
		fmt.Fprintln(g.Stdout, "melmux", Version)
		return nil
	}
	v, ok := verbs[name]
	if !ok {
		return Usagef("unknown verb %q (verbs: %s)", name, strings.Join(Names(), ", "))
	}
	// A bad $MELMUX_SESSION would name a socket outside the socket directory
	// (../x) or garble messages: refused before any verb uses it.
	if env := os.Getenv("MELMUX_SESSION"); env != "" {
		if err := proto.ValidateSessionName(env); err != nil {
			return Usagef("$MELMUX_SESSION: %v", err)
		}
	}
	return v.Run(g, args[1:])
}

func printHelp(w io.Writer) {
	fmt.Fprintln(w, "usage: melmux [-s NAME] [VERB [ARGS]]")
	fmt.Fprintln(w, "With no verb, attach to the session (creating it). Verbs:")
	for _, n := range Names() {
		fmt.Fprintf(w, "  %-12s %s\n", n, verbs[n].Summary)
	}
}

// NewFlags makes a verb's flag set: errors are returned, not printed twice,
// and -s is accepted after the verb too.
func NewFlags(g *Globals, verb string) *flag.FlagSet {
	fs := flag.NewFlagSet(verb, flag.ContinueOnError)
	fs.SetOutput(flagOutput{help: g.Stdout})
	fs.Func("s", "the session `NAME` (default: $MELMUX_SESSION, else main)", func(name string) error { return SetSession(g, name) })
	if h := flagSetHook.Load(); h != nil {
		(*h)(fs)
	}
	return fs
}

// flagOutput is a verb's flag set's output. What the flag package writes
// there itself is dropped: ParseFlags words its errors, with the synopsis.
// help is where --help prints.
type flagOutput struct{ help io.Writer }

func (flagOutput) Write(p []byte) (int, error) { return len(p), nil }

// flagSetHook, when set, sees each verb's flag set as NewFlags makes it.
var flagSetHook atomic.Pointer[func(*flag.FlagSet)]

// WatchFlagSets calls f with each flag set NewFlags makes from now on, until
// the returned function is called. It is for tests that hold every verb's
// --help to the flags the verb defines.
func WatchFlagSets(f func(*flag.FlagSet)) (stop func()) {
	flagSetHook.Store(&f)
	return func() { flagSetHook.Store(nil) }
}

// PrintHelp prints a verb's help: its synopsis, what it does and each of
// its flags with its description and default.
func PrintHelp(w io.Writer, fs *flag.FlagSet) {
	name := fs.Name()
	if v := verbs[name]; v != nil {
		fmt.Fprintf(w, "usage: melmux %s %s\n%s\n", name, v.Usage, v.Summary)
	} else {
		fmt.Fprintf(w, "usage: melmux %s\n", name)
	}
	fmt.Fprintln(w, "\nFlags:")
	fs.VisitAll(func(f *flag.Flag) {
		arg, usage := flag.UnquoteUsage(f)
		head := "  -" + f.Name
		if len(f.Name) > 1 {
			head = "  --" + f.Name
		}
		if arg != "" {
			head += " " + argName(arg)
		}
		if d := f.DefValue; d != "" && d != "0" && d != "false" && d != "0s" {
			usage += fmt.Sprintf(" (default %s)", d)
		}
		if len(head) > 20 {
			fmt.Fprintf(w, "%s\n  %20s%s\n", head, "", usage)
			return
		}
		fmt.Fprintf(w, "%-22s%s\n", head, usage)
	})
}

// argName is how help names a flag's value: the name its description
// quotes (`DIR`), else one for its type.
func argName(arg string) string {
	switch arg {
	case "string":
		return "TEXT"
	case "int", "uint", "int64", "uint64", "float":
		return "N"
	case "duration":
		return "DUR"
	case "value":
		return "VALUE"
	}
	return arg
}

// SetSession takes an explicit -s NAME. An empty name is refused rather than
// read as "not given": `melmux -s "$NAME" kill-server` with NAME unset must
// not end the main session.
func SetSession(g *Globals, name string) error {
	if err := proto.ValidateSessionName(name); err != nil {
		return Usagef("-s: %v", err)
	}
	g.Session = name
	return nil
}

// ParseFlags parses args and turns a flag error into a usage error that shows
// the verb's synopsis.
func ParseFlags(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	if err == nil {
		return nil
	}
	if errors.Is(err, flag.ErrHelp) {
		w := io.Writer(os.Stdout)
		if o, ok := fs.Output().(flagOutput); ok {
			w = o.help
		}
		PrintHelp(w, fs)
		return err
	}
	syn := ""
	if v := verbs[fs.Name()]; v != nil {
		syn = fmt.Sprintf(" (usage: melmux %s %s)", fs.Name(), v.Usage)
	}
	return Usagef("%s: %v%s", fs.Name(), err, syn)
}
