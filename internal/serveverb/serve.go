package serveverb

import (
	"errors"
	"fmt"
	"github.com/melmux/melmux/internal/audit"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/melmux/melmux/internal/cli"
	"github.com/melmux/melmux/internal/config"
	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/server"
	"github.com/melmux/melmux/internal/sessionstate"
	"github.com/melmux/melmux/pane"
)

// __serve is the session daemon itself; `melmux new` starts it.
func init() {
	cli.Register(cli.ServeVerb(serve, false))
}

func serve(g *cli.Globals, args []string) error {
	pane.WarmUp()
	fs := cli.NewFlags(g, "__serve")
	sock := fs.String("socket", "", "socket path")
	readyFD := fs.Int("ready-fd", -1, "write \"ok\" or the error to this fd once listening (and the first pane runs)")
	cliPath := fs.String("cli", "", "the melmux binary that the : prompt and spawn_agent run (default: melmux beside this binary, else on $PATH)")
	first := fs.Bool("new", false, "start the first pane, running CMD (default the shell) in this process's directory and environment")
	cols := fs.Int("x", 0, "with --new: the session's columns")
	rows := fs.Int("y", 0, "with --new: the session's rows")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if !*first && (fs.NArg() > 0 || *cols != 0 || *rows != 0) {
		return cli.Usagef("__serve: -x, -y and a command go with --new")
	}
	name := proto.SessionName(g.Session)
	if *sock == "" {
		*sock = proto.SocketPath(g.Session)
	}
	var ready *os.File
	if *readyFD >= 0 {
		ready = os.NewFile(uintptr(*readyFD), "ready")
	}
	// tell gives `melmux new` its answer and closes the pipe; say
	// passes it a warning before.
	tell := func(msg string) {
		if ready != nil {
			fmt.Fprintln(ready, msg)
			ready.Close()
			ready = nil
		}
	}
	say := func(msg string) {
		if ready != nil {
			fmt.Fprintln(ready, proto.ReadyWarn+proto.OneLine(msg))
		}
	}
	logFile := openLog(name)
	defer logFile.Close()
	logger := slog.New(slog.NewTextHandler(logFile, nil))
	cfgFile, _ := config.Path() // Load says why there is none
	cfg, cfgErr := config.Load()
	problem := ""
	if cfgErr != nil {
		problem = cfgErr.Error() + " (" + config.Effect(cfgErr, "the defaults") + ")"
		logger.Warn("config", "err", cfgErr)
		say(problem)
	}
	self := *cliPath
	var err error
	if self == "" {
		self, err = cli.FindBinary(cli.Binary, "the verbs the : prompt and spawn_agent run")
	}
	if err != nil {
		logger.Warn("the : prompt cannot run verbs", "err", err)
	}
	stateFile, err := sessionstate.Path(name)
	if err != nil {
		logger.Warn("the session's state is not kept: `melmux restore` will not be able to rebuild it", "err", err)
	}
	srv := server.New(server.Config{Name: name, SocketPath: *sock, Log: logger, Self: self,
		Scrollback: cfg.Scrollback, Shell: cfg.Shell, ConfigProblem: problem, AgentReadWait: cfg.Agent.ReadWait, MaxClients: cfg.MaxClients,
		RemainOnExit: cfg.RemainOnExit, StateFile: stateFile, ConfigFile: cfgFile, Prices: cfg.Prices,
		Agents: server.AgentsConfig{Rules: cfg.Agents.Rules, Bell: cfg.Agents.Bell, OSC9: cfg.Agents.OSC9,
			NotifyCommand: cfg.Agents.NotifyCommand, Policy: cfg.Agents.Policy, Audit: auditPath(logger)},
		UI: server.UIConfig{Prefix: cfg.Prefix, Bindings: cfg.Bindings, Status: cfg.Status, Verbs: cli.PromptVerbs},
		// While a client is attached the server runs one P more
		// than the CPUs, so a typed key finds a P at once beside
		// floods parsing on every CPU (sched.FeedSlots).
		SpareProc: true})
	if err := srv.Listen(); err != nil {
		if errors.Is(err, server.ErrSessionRuns) {
			// `new` did not look first (noSession): the answer is
			// its own, and nothing of the new session started.
			tell(proto.ReadyError(proto.SessionExists(name, *sock)))
		} else {
			tell(err.Error())
		}
		return err
	}
	if *first {
		if err := srv.StartFirst(fs.Args(), *cols, *rows); err != nil {
			logger.Error("the first pane did not start", "err", err)
			tell(proto.ReadyError(err))
			return err
		}
	}
	if err := logFile.Err(); err != nil {
		say(err.Error() + "; the session runs without it")
	}
	tell(proto.ReadyOK)
	logger.Info("session started", "session", name, "socket", *sock, "pid", os.Getpid())
	// The daemon has no terminal, but a hangup must not end it. Catch
	// SIGHUP rather than ignore it: an ignored signal stays ignored in
	// every pane's program across exec, and a caught one does not.
	hups := make(chan os.Signal, 1)
	signal.Notify(hups, syscall.SIGHUP)
	go func() {
		for range hups {
		}
	}()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		select {
		case s := <-sigs:
			srv.Shutdown("signal " + s.String())
		case <-srv.Done():
		}
	}()
	err = srv.Serve()
	logger.Info("session ended", "session", name)
	return err
}

// openLog opens the session's log in the background: the open, with the
// directory's creation, was a tenth of a millisecond on the way of every
// session start, and nothing is logged before the first pane starts.
func openLog(name string) *lateLog {
	l := &lateLog{opened: make(chan struct{})}
	go func() {
		defer close(l.opened)
		p := proto.LogPath(name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			l.err = fmt.Errorf("the session's log directory: %w", err)
			return
		}
		l.f, l.err = os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if l.err != nil {
			l.err = fmt.Errorf("the session's log: %w", l.err)
		}
	}()
	return l
}

// lateLog is the log's file once it is open: a write waits for the open,
// so no line is lost or reordered, and goes nowhere if it failed (the
// daemon warns `melmux new` of that before it says it is ready).
type lateLog struct {
	opened chan struct{} // closed once f and err are set
	f      *os.File
	err    error
}

func (l *lateLog) Write(b []byte) (int, error) {
	<-l.opened
	if l.f == nil {
		return len(b), nil
	}
	return l.f.Write(b)
}

// Err waits for the open and reports its error.
func (l *lateLog) Err() error {
	<-l.opened
	return l.err
}

func (l *lateLog) Close() error {
	<-l.opened
	if l.f == nil {
		return nil
	}
	return l.f.Close()
}

// auditPath is where answered questions are logged, "" (none) when no
// state directory can be named.
func auditPath(logger *slog.Logger) string {
	path, err := audit.Path()
	if err != nil {
		logger.Warn("answered questions are not logged", "err", err)
		return ""
	}
	return path
}
