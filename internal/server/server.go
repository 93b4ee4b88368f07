package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/melmux/melmux/internal/audit"
	"github.com/melmux/melmux/internal/filekind"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/melmux/melmux/internal/config"
	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/server/sched"
	"github.com/melmux/melmux/internal/ui"
	"github.com/melmux/melmux/layout"
	"github.com/melmux/melmux/pane"
	"github.com/melmux/melmux/worktree"
)

// Default session size when nobody gave one (docs/cli.md, new).
const (
	DefaultCols = 200
	DefaultRows = 50
)

// Config starts a server.
type Config struct {
	Name       string
	SocketPath string
	Log        *slog.Logger
	Cols, Rows int
	Scrollback int    // history lines per pane; 0 = the emulator's default
	Shell      string // default program for a pane; "" = $SHELL or /bin/sh
	Env        []string
	Self       string // the melmux binary: CLI verbs typed at the ":" prompt, spawn_agent's workers
	// AgentReadWait bounds read_agent's wait for a melmux agent's turn when
	// the request gives none; 0 = config.DefaultReadWait.
	AgentReadWait time.Duration
	UI            UIConfig
	// ConfigProblem is shown to every client that attaches: what was wrong
	// with the config file the server started with.
	ConfigProblem string
	// MaxClients bounds the terminals attached at once; 0 =
	// config.DefaultMaxClients.
	MaxClients int
	// RemainOnExit says which panes stay once their program ends
	// (config.RemainAuto, RemainOn, RemainOff); "" = config.RemainAuto.
	RemainOnExit string
	// StateFile is where the session's state is kept for `melmux restore`
	// (sessionstate.Path); "" keeps none.
	StateFile string
	// ConfigFile is the config file the server started with, which
	// source_file reads again when it is given none; "" for none.
	ConfigFile string
	// Prices are the models' prices per million tokens, for the cost of
	// melmux agents.
	Prices map[string]config.Price
	// Agents are the coding agents' kinds and rules, and how their changes
	// of state are notified.
	Agents AgentsConfig
	// SpareProc: the server owns the process's GOMAXPROCS and runs one P
	// more than it had at New while a client is attached (sched.Attached).
	// Only for a process that runs one server, as the daemon does.
	SpareProc bool
	// tune is what this package's tests shorten or watch (hooks.go).
	tune tuning
}

// UIConfig is what attached clients are drawn and driven with.
type UIConfig struct {
	Prefix   string            // prefix key in ui.ParseKey notation; "" = C-b
	Bindings map[string]string // key → command line, over the defaults
	Status   ui.StatusStyle
	Verbs    []string // the CLI verbs the ":" prompt completes
}

// Server is one session.
type Server struct {
	name    string
	sock    string
	log     *slog.Logger
	created time.Time
	shell   string
	env     []string
	self    string
	// conf is the part of the config that source_file replaces
	// (reload.go).
	conf       atomic.Pointer[liveConfig]
	hooks      testHooks // nil but in tests
	tune       tuning
	configFile string
	history    ui.History  // the ":" prompt's, shared by every client for the server's life
	remain     string      // remain_on_exit
	saver      *stateSaver // nil when no state file is kept
	res        resources   // the panes' CPU and memory, sampled when asked
	audit      *audit.Log  // nil when agents.Audit is ""
	// notifySlots bounds the notify_commands running at once.
	notifySlots chan struct{}
	// placing is the placement slot (remote_place.go), a channel of one
	// rather than a mutex: place takes it and hands it on with the
	// placement, whose caller gives it back (placement.done) once the
	// pane is marked.
	placing chan struct{}

	// clients are the attached clients, under a lock of their own
	// (clients.go).
	clients *clientSet
	// mels is the melmux agents registered in the panes (melagent.go),
	// under its own lock.
	mels melAgents
	// sched holds other panes' output back while a typed key's echo is on
	// its way, and owns the feed slots and the spare P (package sched).
	sched *sched.Sched

	ln       net.Listener
	done     chan struct{} // closed when the session ends
	doneOnce sync.Once
	conns    sync.WaitGroup
	nconns   atomic.Int64 // connections being served, for debug_stats
	quiet    *quietRelease
	web      webHub // melmux web, while it serves (web.go)
	// counts are the worktree counts running git in the background
	// (countWorktree); countsCtx ends them when the session ends, which then
	// waits for them, so no git outlives the server or writes into a
	// worktree being removed. Added to under mu, only before shutdown.
	counts     sync.WaitGroup
	countsCtx  context.Context
	stopCounts context.CancelFunc

	// agentPanes finds a pane's entry by its id without Server.mu, for the
	// agents part's calls that take no Server.mu (agentEntry): a pane is
	// in it from startPaneLocked to removePane, as in the table.
	agentPanes sync.Map // int -> *paneEntry
	// focus is the focused pane as the last section under Server.mu left
	// the layout (withLock), for the agents part, which decides whether a
	// person looks at a pane without Server.mu (lookedAt).
	focus atomic.Int64
	// ending is set with shutdown, for those who check it without
	// Server.mu (a notification held back).
	ending atomic.Bool

	mu     sync.Mutex // guards everything below
	panes  map[int]*paneEntry
	closed closedPanes // how the panes that are gone ended
	layout *layout.Layout
	nextID int
	cols   int // the session size: pane area plus the status line
	rows   int
	// sizeByResize says the resize command set the size, not the
	// smallest client: the status line says so, and the next client event
	// (an attach, a terminal's new size) takes the size back.
	sizeByResize bool
	buffer       string // the paste buffer (copy mode, paste-buffer)
	started      bool   // a first pane has existed: the end of the last pane ends the session
	shutdown     bool
	// seen is the tab the clients' last frame showed (agent_notify.go).
	seen attnSeen
}

// paneEntry is what the server keeps about a pane beyond the pane itself.
type paneEntry struct {
	p *pane.Pane
	// argv is the command line the pane was asked to run, without the
	// hooks melmux added to an agent CLI's (agenthooks.go): what borders
	// show and the state file keeps.
	argv    []string
	title   string
	command string
	cwd     string
	shell   bool // started with no command: the default shell (remain_on_exit auto)
	// exitDone is closed once the server has handled the end of the pane's
	// program: the pane stays, or it has closed (remain_on_exit).
	exitDone chan struct{}
	// wt is the git worktree the pane was started in, nil for none; set at
	// creation, never changed.
	wt *worktree.Worktree
	// Guarded by Server.mu: the worktree's +A −D as last counted (worktree.go).
	wtCount wtCount

	// draw is what frames keep of the pane's screen, under its own lock
	// (scene.go).
	draw paneDraw
	// Guarded by Server.mu: what the last frame that read the pane said of
	// its agent and title; a key's echo frame shows them again rather than
	// wait for the pane's emulator while it parses (sceneFresh).
	drawnAgent agentView
	drawnTitle string
	drawn      bool

	// The agents part of the pane (agent.go), guarded by its own lock
	// (paneAgent.agentMu).
	paneAgent
	// out keeps the times of the last output writes (its own lock: the
	// pane's reader writes it).
	out *outputTimes

	// Guarded by Server.mu: the pane's part in a pane on another host
	// (remote.go); nil for a pane that has none.
	link *paneLink
}

// New prepares a server; Serve starts it.
func New(cfg Config) *Server {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	if cfg.Cols <= 0 {
		cfg.Cols = DefaultCols
	}
	if cfg.Rows <= 0 {
		cfg.Rows = DefaultRows
	}
	if cfg.Shell == "" {
		cfg.Shell = os.Getenv("SHELL")
	}
	if cfg.Shell == "" {
		cfg.Shell = "/bin/sh"
	}
	if cfg.UI.Status == (ui.StatusStyle{}) {
		cfg.UI.Status = ui.DefaultStatusStyle()
	}
	if cfg.Env == nil {
		cfg.Env = os.Environ()
	}
	if cfg.MaxClients <= 0 {
		cfg.MaxClients = config.DefaultMaxClients
	}
	if cfg.RemainOnExit == "" {
		cfg.RemainOnExit = config.RemainAuto
	}
	if cfg.AgentReadWait <= 0 {
		cfg.AgentReadWait = config.DefaultReadWait
	}
	s := &Server{
		tune:        cfg.tune.orDefaults(),
		name:        cfg.Name,
		sock:        cfg.SocketPath,
		log:         cfg.Log,
		created:     time.Now(),
		shell:       cfg.Shell,
		env:         cfg.Env,
		self:        cfg.Self,
		configFile:  cfg.ConfigFile,
		remain:      cfg.RemainOnExit,
		saver:       newStateSaver(cfg.StateFile),
		audit:       openAudit(cfg.Agents.Audit),
		notifySlots: make(chan struct{}, notifyCommandsAtOnce),
		placing:     make(chan struct{}, 1),
		done:        make(chan struct{}),
		panes:       map[int]*paneEntry{},
		layout:      layout.New(),
		nextID:      1,
		cols:        cfg.Cols,
		rows:        cfg.Rows,
	}
	s.conf.Store(&liveConfig{ui: cfg.UI, scroll: cfg.Scrollback, readWait: cfg.AgentReadWait,
		prices: cfg.Prices, agents: cfg.Agents, problem: cfg.ConfigProblem})
	s.quiet = newQuietRelease(s.afterOutput)
	s.sched = sched.New(sched.Config{SpareProc: cfg.SpareProc, EchoHold: s.tune.echoHold})
	s.clients = newClientSet(cfg.MaxClients, s.sched)
	s.countsCtx, s.stopCounts = context.WithCancel(context.Background())
	return s
}

// Listen creates the socket (0600), and its directory (0700) when there is
// none. An existing directory is used only if proto.CheckSocketDir finds it
// safe, and its mode is never changed: melmux did not create it. What is at
// the socket path is removed only when it is a stale socket of this user (one
// that refuses connections); a live server there, or any other kind of file,
// is an error.
func (s *Server) Listen() error {
	// sun_path holds 108 bytes with its terminating NUL.
	if len(s.sock) > 107 {
		return fmt.Errorf("socket path %s is %d bytes, over the 107 a unix socket allows: use a shorter $XDG_RUNTIME_DIR, $MELMUX_SOCKET or session name", s.sock, len(s.sock))
	}
	dir := filepath.Dir(s.sock)
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("socket directory: %w", err)
		}
	}
	if err := proto.CheckSocketDir(dir); err != nil {
		return err
	}
	if err := removeStaleSocket(s.sock); err != nil {
		return fmt.Errorf("session %q: %w", s.name, err)
	}
	var ln net.Listener
	var err error
	if s.tune.keepUmask {
		ln, err = net.Listen("unix", s.sock)
	} else {
		old := syscall.Umask(0o177)
		ln, err = net.Listen("unix", s.sock)
		syscall.Umask(old)
	}
	if err != nil {
		return fmt.Errorf("listen on %s: %w", s.sock, err)
	}
	if err := os.Chmod(s.sock, 0o600); err != nil {
		ln.Close()
		return fmt.Errorf("socket %s: %w", s.sock, err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(true)
	s.ln = ln
	return nil
}

// ErrSessionRuns is Listen's error when a server of the session answers on
// its socket already.
var ErrSessionRuns = errors.New("a server of the session already runs")

// removeStaleSocket clears the socket path of a server that is gone. Only a
// socket of this user that refuses connections is removed.
func removeStaleSocket(sock string) error {
	fi, err := os.Lstat(sock)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.Mode()&fs.ModeSocket == 0 {
		return fmt.Errorf("%s exists and is not a socket (%s); melmux removes only a stale socket: move it away or choose another $MELMUX_SOCKET", sock, filekind.Of(fi.Mode()))
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("the socket %s belongs to uid %d, not to you (uid %d)", sock, st.Uid, os.Getuid())
	}
	c, err := net.DialTimeout("unix", sock, time.Second)
	if err == nil {
		c.Close()
		return fmt.Errorf("%w on %s", ErrSessionRuns, sock)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		return fmt.Errorf("the socket %s is there but neither answers nor refuses (%v); melmux leaves it alone", sock, err)
	}
	if err := os.Remove(sock); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove the stale socket: %w", err)
	}
	return nil
}

// Serve accepts connections until the session ends. A failed accept never
// ends the session: with no fd left (EMFILE, ENFILE), or any other error but
// a closed listener, it is logged and retried after a backoff (5ms doubling
// to 1s), so the panes live on and serving resumes once fds are free again.
// The soft fd limit needs no raising here: Go's runtime raises it to the
// hard limit (less one) at start, and gives the panes' programs the original
// back, which code of ours raising it again would defeat.
func (s *Server) Serve() error {
	if s.ln == nil {
		if err := s.Listen(); err != nil {
			return err
		}
	}
	go func() {
		<-s.done
		s.ln.Close()
	}()
	if s.saver != nil {
		go s.saveLoop()
	}
	var delay time.Duration
	var lastLog time.Time
	for {
		c, err := s.ln.Accept()
		if err != nil {
			if s.ending.Load() && errors.Is(err, net.ErrClosed) {
				<-s.done // closed early by a session kept for a restore
			}
			select {
			case <-s.done:
				s.conns.Wait()
				return nil
			default:
			}
			if errors.Is(err, net.ErrClosed) {
				return fmt.Errorf("accept: %w", err)
			}
			delay = min(max(2*delay, 5*time.Millisecond), time.Second)
			// One line a second at most: a full fd table fails every accept.
			if time.Since(lastLog) >= time.Second {
				lastLog = time.Now()
				s.log.Warn("accept failed; serving goes on after a pause", "err", err, "pause", delay)
			}
			select {
			case <-time.After(delay):
			case <-s.done:
			}
			continue
		}
		delay = 0
		s.conns.Add(1)
		s.nconns.Add(1)
		go func() {
			defer s.conns.Done()
			defer s.nconns.Add(-1)
			s.handleConn(c)
		}()
	}
}

// Done is closed when the session has ended.
func (s *Server) Done() <-chan struct{} { return s.done }

// Shutdown ends the session, every pane's process and every client, as a
// signal to the server does (the machine going down): the state file stays,
// brought up to date, so that `melmux restore` can rebuild the session.
func (s *Server) Shutdown(reason string) { s.endSession(reason, "server exited", true) }

// kill ends the session as kill_server asks: nothing is left to restore.
func (s *Server) kill(reason string) { s.endSession(reason, "server exited", false) }

// lastPaneGone ends the session once its last pane has closed; attached
// clients leave with "[exited]", as tmux's do. Nothing is left to restore.
func (s *Server) lastPaneGone(reason string) { s.endSession(reason, "exited", false) }

// endSession ends the session telling attached clients clientMsg; keep says
// whether its state file stays for a restore.
//
// Once it has begun, the session ends whatever panics on the way: each step
// is confined (logged with its stack) and the next steps still run, and done
// closes, so the daemon exits, its socket removed. Without that, a panic on
// kill_server's or a last pane's goroutine ended the process with its stack
// on the daemon's stderr, which goes nowhere, leaving the socket, the state
// file and the clients' connections to die with it; and a panic under a
// recover of a caller's left a session that refused every new pane (it is
// shutting down) and never ended.
func (s *Server) endSession(reason, clientMsg string, keep bool) {
	first := false
	var clients []*client
	s.withLock(func() {
		first, s.shutdown = !s.shutdown, true
		s.ending.Store(true)
		if first {
			clients = s.clients.close() // none joins from now on
		}
	})
	if !first {
		return
	}
	defer s.doneOnce.Do(func() { close(s.done) })
	if keep && s.ln != nil {
		// A session kept for a restore stops answering before its panes
		// close, as one that died does: a remote pane hung up with no
		// session answering leaves its host's session running, for the
		// restore to link to again (kill_server's ending answers, and
		// ends them).
		s.endStep("closing the socket", func() { _ = s.ln.Close() })
	}
	// Before the panes close, which would change the state.
	s.endStep("the state file's end", func() { s.finishState(keep) })
	var entries []*paneEntry
	s.withLock(func() {
		for _, e := range s.panes {
			entries = append(entries, e)
		}
	})
	s.log.Info("session ending", "reason", reason)
	var wg sync.WaitGroup
	for _, e := range entries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.endStep(fmt.Sprintf("closing pane %d", e.p.ID()), e.p.Close)
		}()
	}
	wg.Wait()
	s.endStep("stopping the counts", func() {
		s.stopCounts()
		s.counts.Wait()
	})
	for _, c := range clients {
		s.endStep("sending a client away", func() { c.exit(clientMsg) })
	}
}

// endStep is one step of a session's end, confined so the next ones run.
func (s *Server) endStep(what string, f func()) {
	s.confined(what, func() {
		if h := s.hooks.end.Load(); h != nil {
			(*h)(what)
		}
		f()
	})
}

func (s *Server) handleConn(c net.Conn) {
	defer c.Close()
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("connection panic", "panic", r, "stack", string(debug.Stack()))
		}
	}()
	uid, uerr := proto.PeerUID(c)
	refused := uerr != nil || uid != os.Getuid()
	lr := proto.NewLineReader(c, proto.MaxLine)
	// The hello is read even from a peer about to be refused, so that the
	// refusal answers it: closing with the hello unread would reset the
	// connection, and the peer would see a broken pipe instead of why.
	wait := 10 * time.Second
	if refused {
		wait = time.Second
	}
	_ = c.SetReadDeadline(time.Now().Add(wait))
	line, err := lr.ReadLine()
	_ = c.SetReadDeadline(time.Time{})
	if refused {
		s.log.Warn("refused peer", "uid", uid, "err", uerr)
		_ = proto.WriteJSON(c, proto.Welcome{Version: proto.Version,
			Error: errorf(proto.CodeForbidden, "this session belongs to uid %d; peer uid %d refused", os.Getuid(), uid)})
		return
	}
	if err != nil {
		return
	}
	var hello proto.Hello
	if err := json.Unmarshal(line, &hello); err != nil {
		_ = proto.WriteJSON(c, proto.Welcome{Version: proto.Version,
			Error: errorf(proto.CodeBadRequest, "the first line must be a JSON hello {\"version\":%d,\"mode\":\"control\"|\"attach\"}: %v", proto.Version, err)})
		return
	}
	if hello.Version != proto.Version {
		_ = proto.WriteJSON(c, proto.Welcome{Version: proto.Version,
			Error: errorf(proto.CodeVersionMismatch, "protocol version %d is not supported; this server speaks version %d (upgrade the melmux client or server so they match)", hello.Version, proto.Version)})
		return
	}
	switch hello.Mode {
	case proto.ModeControl:
		if err := proto.WriteJSON(c, proto.Welcome{Version: proto.Version, Session: s.name, PID: os.Getpid()}); err != nil {
			return
		}
		s.serveControl(c, lr)
	case proto.ModeAttach:
		s.serveAttach(c, lr, hello)
	default:
		_ = proto.WriteJSON(c, proto.Welcome{Version: proto.Version,
			Error: errorf(proto.CodeBadRequest, "unknown mode %q (modes: control, attach)", hello.Mode)})
	}
}

// maxInflight bounds the requests of one control connection being served at
// once; more wait in the socket.
const maxInflight = 64

// serveControl answers JSON-line requests. Each request runs on its own
// goroutine so a long wait does not hold up the next request; responses are
// written whole under a mutex.
//
// ctx is the connection's: every request of the connection runs under it, and
// it ends when the connection does. Blocking requests (wait, agent_next,
// read_agent) end with it, and agent_register binds a melmux agent's life to it.
func (s *Server) serveControl(c net.Conn, lr *proto.LineReader) {
	ctx, cancel := context.WithCancel(withConn(context.Background()))
	var wmu sync.Mutex // guards writes to c
	var inflight sync.WaitGroup
	slots := make(chan struct{}, maxInflight)
	// Cancel first, then wait: a request blocked on a condition that may never
	// come true (a wait, an agent_next) must not keep the connection's fd and
	// goroutines once the peer has gone.
	defer func() {
		cancel()
		inflight.Wait()
	}()
	respond := func(r proto.Response) {
		if r.Error != nil && len(r.Error.Message) > maxErrorMessage {
			cut := *r.Error
			cut.Message = strings.ToValidUTF8(cut.Message[:maxErrorMessage], "") + " … (the rest of this message is cut)"
			r.Error = &cut
		}
		wmu.Lock()
		defer wmu.Unlock()
		if err := proto.WriteJSON(c, r); err != nil {
			cancel()
		}
	}
	go func() {
		select {
		case <-s.done:
			// Closing the connection tells the client the session ended,
			// but a request under way answers first: the send_keys that
			// made the last pane's program exit did what it was asked, and
			// its caller must not see a lost connection instead.
			cancel()
			awaitInflight(slots, inflightGrace)
			c.Close()
		case <-ctx.Done():
		}
	}()
	for {
		line, err := lr.ReadLine()
		if errors.Is(err, proto.ErrLineTooLong) {
			respond(proto.Response{Error: errorf(proto.CodeTooLarge, "request exceeds the %d byte limit", proto.MaxLine)})
			continue
		}
		if err != nil {
			return
		}
		if len(line) == 0 {
			continue
		}
		req, perr := decodeRequest(line)
		if perr != nil {
			respond(proto.Response{ID: req.ID, Error: perr})
			continue
		}
		// Backpressure: a client that sends without reading its answers
		// stops being read once maxInflight requests wait, instead of
		// making the server hold their results without bound.
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return
		}
		inflight.Add(1)
		go func() {
			defer func() { <-slots }()
			defer inflight.Done()
			resp, then := s.call(ctx, req)
			respond(resp)
			if then != nil {
				then()
			}
		}()
	}
}

// inflightGrace bounds how long a connection's requests under way may take
// to answer once the session has ended.
const inflightGrace = time.Second

// awaitInflight waits until the requests holding slots have answered, or
// for at most grace: it takes every slot, as each comes free.
func awaitInflight(slots chan struct{}, grace time.Duration) {
	t := time.NewTimer(grace)
	defer t.Stop()
	for range cap(slots) {
		select {
		case slots <- struct{}{}:
		case <-t.C:
			return
		}
	}
}

// decodeRequest reads one request line; the error value answers it.
func decodeRequest(line []byte) (proto.Request, *proto.Error) {
	var req proto.Request
	if err := json.Unmarshal(line, &req); err != nil {
		return proto.Request{}, errorf(proto.CodeBadRequest, "request is not a JSON object {\"id\":N,\"method\":M,\"params\":{...}}: %v", err)
	}
	return req, nil
}

// call runs one request through the command table, confining any panic to
// it. then, when set, is to run after the response has been written.
func (s *Server) call(ctx context.Context, req proto.Request) (resp proto.Response, then func()) {
	resp.ID = req.ID
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("command panic", "method", req.Method, "panic", r, "stack", string(debug.Stack()))
			resp.Result = nil
			resp.Error = errorf(proto.CodeInternal, "%s failed inside the server: %v (the session goes on)", req.Method, r)
			then = nil
		}
	}()
	cmd, ok := commands[req.Method]
	if !ok {
		resp.Error = unknownMethod(req.Method)
		return resp, nil
	}
	res, err := cmd.Run(ctx, s, req.Params)
	if err != nil {
		var pe *proto.Error
		if errors.As(err, &pe) {
			resp.Error = pe
		} else {
			resp.Error = errorf(proto.CodeFailed, "%s: %v", req.Method, err)
		}
		return resp, nil
	}
	if tr, ok := res.(thenResult); ok {
		res, then = tr.result, tr.then
	}
	b, err := json.Marshal(res)
	if err != nil {
		resp.Error = errorf(proto.CodeInternal, "%s: encode result: %v", req.Method, err)
		return resp, then
	}
	if len(b) > s.tune.maxResult {
		resp.Error = errorf(proto.CodeAnswerTooLarge, "%s: the answer is %s, over the %s an answer may be; ask for less", req.Method, mib(len(b)), mib(proto.MaxAnswer))
		return resp, then
	}
	resp.Result = b
	return resp, then
}

// maxResult bounds a result so that its answer line, with the id around
// it, stays within proto.MaxAnswer. (Tests lower it: Server.tune.)
const maxResult = proto.MaxAnswer - 1<<10

// maxErrorMessage bounds an error's message (one may hold a screen): the
// rest is cut, so the answer stays within proto.MaxAnswer.
const maxErrorMessage = 1 << 20

// mib says a size in bytes as people read it.
func mib(n int) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// Call runs a command in-process, for the server's own use: an answer
// chosen in a client's agents list or on the web page goes through the
// command table as a request would.
func (s *Server) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	b, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	resp, then := s.call(ctx, proto.Request{Method: method, Params: b})
	if then != nil {
		then()
	}
	if resp.Error != nil {
		return nil, resp.Error
	}
	return resp.Result, nil
}
