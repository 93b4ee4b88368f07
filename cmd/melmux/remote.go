package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/melmux/melmux/internal/cli"
	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/remote"
)

// __remote is the program of a pane on another host (docs/remote.md): the
// server runs it for open_pane --host, in the pane, which it mirrors.
// __bridge is its other end, on the host, run over ssh.
func init() {
	cli.Register(&cli.Verb{
		Name:    "__remote",
		Usage:   "[--cwd DIR] [--stream ID] [--agent [--pass-env NAMES]] DEST [-- CMD...]",
		Summary: "mirror a pane running CMD on DEST over ssh (run by open-pane --host)",
		Run:     runRemote,
	})
	cli.Register(&cli.Verb{
		Name:    "__bridge",
		Usage:   "--stream ID --from OFFSET [--agent] [--new -x COLS -y ROWS [--cwd DIR]] SESSION [-- CMD...]",
		Summary: "serve a pane of this host's SESSION on stdio to a melmux __remote (run over ssh)",
		Run:     runBridge,
	})
	cli.Register(&cli.Verb{
		Name:    "__worker",
		Usage:   "SESSION -- CMD...",
		Summary: "run CMD, a worker agent of another host's session, carrying its control connections across ssh channels (run by __bridge)",
		Run:     runWorker,
	})
}

func runWorker(g *cli.Globals, args []string) error {
	fs := cli.NewFlags(g, "__worker")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() < 2 {
		return cli.Usagef("__worker: give the session and the worker's command")
	}
	session, argv := fs.Arg(0), fs.Args()[1:]
	if argv[0] == "--" {
		argv = argv[1:]
	}
	st, err := remote.Worker(session, argv)
	if err != nil {
		return fmt.Errorf("__worker: %w", err)
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		// The pane ends as the worker did.
		signal.Reset(ws.Signal())
		_ = syscall.Kill(os.Getpid(), ws.Signal())
	}
	if code := st.ExitCode(); code != 0 {
		return &cli.ExitError{Code: max(code, 1)}
	}
	return nil
}

func runRemote(g *cli.Globals, args []string) error {
	fs := cli.NewFlags(g, "__remote")
	cwd := fs.String("cwd", "", "the `DIR` the program starts in on the host (default: the home directory)")
	agent := fs.Bool("agent", false, "CMD is a worker agent's arguments to the host's melmux: it belongs to this session")
	passEnv := fs.String("pass-env", "", "with --agent, the `NAMES` (comma-separated) of variables of this environment the worker is given")
	stream := fs.String("stream", "", "the `ID` (24 hex digits) of the typing stream, which names the host's session: one already running there is linked to")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() < 1 {
		return cli.Usagef("__remote: give the destination")
	}
	dest, argv := fs.Arg(0), fs.Args()[1:]
	if len(argv) > 0 && argv[0] == "--" {
		argv = argv[1:]
	}
	if *stream != "" && !validStream(*stream) {
		return cli.Usagef("__remote: --stream %q is not 24 hex digits", *stream)
	}
	bins, err := localBinaries()
	if err != nil {
		return err
	}
	pane, _ := strconv.Atoi(os.Getenv("MELMUX_PANE"))
	o := remote.LinkOptions{Dest: dest, SSH: sshCommand(), Argv: argv, Cwd: *cwd, Bins: bins,
		Sock: os.Getenv("MELMUX_SOCKET"), Pane: pane, In: os.Stdin, Out: os.Stdout, Stream: *stream}
	if *agent {
		o.Agent = &remote.AgentLink{Session: os.Getenv("MELMUX_SESSION")}
		for _, name := range strings.Split(*passEnv, ",") {
			if v, ok := os.LookupEnv(name); ok && name != "" {
				o.Agent.Env = append(o.Agent.Env, name+"="+v)
			}
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGHUP, syscall.SIGTERM)
	defer stop()
	exit, err := remote.Link(ctx, o)
	if err != nil {
		// The pane shows why; open_pane answers it too.
		fmt.Fprintf(os.Stdout, "\r\nmelmux: %s: %v\r\n", dest, err)
		return err
	}
	switch {
	case exit == nil:
		return nil
	case exit.Signal != nil:
		// The local pane ends as the host's program did.
		if sig := unix.SignalNum(*exit.Signal); sig != 0 {
			signal.Reset(sig)
			_ = syscall.Kill(os.Getpid(), sig)
		}
		return &cli.ExitError{Code: 1, Msg: "the program on " + dest + " was killed by " + *exit.Signal}
	case exit.ExitCode != nil && *exit.ExitCode != 0:
		return &cli.ExitError{Code: *exit.ExitCode}
	}
	return nil
}

// validStream says s is a stream ID as the session makes them.
func validStream(s string) bool {
	if len(s) != 24 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// sshCommand is the ssh to run: $MELMUX_SSH (words, for another ssh or
// options of its own: `ssh -F FILE`), else ssh.
func sshCommand() []string {
	if w := strings.Fields(os.Getenv("MELMUX_SSH")); len(w) > 0 {
		return w
	}
	return []string{"ssh"}
}

// localBinaries are the binaries copied to a host that lacks this build.
func localBinaries() (remote.Binaries, error) {
	exe, err := selfPath()
	if err != nil {
		return remote.Binaries{}, err
	}
	srv, err := cli.FindBinary(cli.ServerBinary, serverHolds)
	if err != nil {
		return remote.Binaries{}, fmt.Errorf("a remote pane brings melmux-server to its host: %w", err)
	}
	b := remote.Binaries{Melmux: exe, Server: srv}
	if agent, err := cli.FindBinary(cli.AgentBinary, agentHolds); err == nil {
		b.Agent = agent
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		b.Dist = filepath.Join(d, "melmux", "dist")
	} else if h, err := os.UserHomeDir(); err == nil {
		b.Dist = filepath.Join(h, ".local", "share", "melmux", "dist")
	}
	return b, nil
}

func runBridge(g *cli.Globals, args []string) error {
	fs := cli.NewFlags(g, "__bridge")
	stream := fs.String("stream", "", "the local side's typing stream `ID`")
	from := fs.Int64("from", -1, "the output `OFFSET` wanted first (-1: a repaint)")
	isNew := fs.Bool("new", false, "start the session first")
	cols := fs.Int("x", 80, "the pane's `COLS` (with --new)")
	rows := fs.Int("y", 24, "the pane's `ROWS` (with --new)")
	cwd := fs.String("cwd", "", "the `DIR` the program starts in (with --new)")
	agent := fs.Bool("agent", false, "the program is a worker agent of the local session: carry its control connections")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() < 1 || *stream == "" {
		return cli.Usagef("__bridge: give --stream and the session")
	}
	session, argv := fs.Arg(0), fs.Args()[1:]
	if len(argv) > 0 && argv[0] == "--" {
		argv = argv[1:]
	}
	exe, err := selfPath()
	if err != nil {
		return err
	}
	o := remote.BridgeOptions{Session: session, Sock: proto.SocketPath(session), New: *isNew, Argv: argv, Cwd: *cwd,
		Cols: *cols, Rows: *rows, Self: exe, From: *from, Stream: *stream, Agent: *agent}
	return remote.Bridge(o, os.Stdin, os.Stdout)
}
