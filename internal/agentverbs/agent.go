package agentverbs

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/google/uuid"
	"golang.org/x/term"

	"github.com/melmux/melmux/internal/cli"
	"github.com/melmux/melmux/internal/client"
	"github.com/melmux/melmux/internal/config"
	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/orchestrator"
	"github.com/melmux/melmux/toolexec"
)

func init() {
	cli.Register(cli.AgentVerb("agent", runAgent, false))
}

// Exit statuses of `melmux agent --once` beyond 0 and 1.
const (
	exitBudget      = 3   // the turn used its leg budget
	exitInterrupted = 130 // SIGINT stopped it (128+2, as shells report)
)

// agentOpts are the agent verb's flags.
type agentOpts struct {
	role     toolexec.Role
	flags    orchestrator.Settings
	task     string
	once     bool
	maxLegs  int
	resume   string
	id       string
	roleSet  bool
	modelSet bool
}

func parseAgentFlags(g *cli.Globals, args []string) (*agentOpts, error) {
	fs := cli.NewFlags(g, "agent")
	role := fs.String("role", "lead", "lead or worker (base: file tools only)")
	provider := fs.String("provider", "", "relay, openai or anthropic (default: from the environment, then [agent] in config.toml, then Ollama on localhost)")
	model := fs.String("model", "", "the model (default: the provider's)")
	baseURL := fs.String("base-url", "", "the endpoint (default: the provider's variable)")
	keyEnv := fs.String("key-env", "", "the environment variable holding the API key")
	task := fs.String("task", "", "the first message (with --once: the whole job)")
	once := fs.Bool("once", false, "run --task to its end, print the final answer last and exit (0 done, 1 error, 3 leg budget)")
	maxLegs := fs.Int("max-legs", 0, "legs (paid model calls) per turn (default max_legs in config.toml, else 50)")
	resume := fs.String("resume", "", "continue the conversation of agent ID (its transcript)")
	id := fs.String("id", "", "the agent id (given by spawn-agent; default a new uuid)")
	if err := cli.ParseFlags(fs, args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, cli.Usagef("agent: unexpected argument %q (give the first message with --task)", fs.Arg(0))
	}
	// spawn_agent gives a worker its task in the environment, which only
	// its user can read, where a command line any user can; taken out, so
	// that the worker's commands do not inherit it.
	if t, ok := os.LookupEnv(proto.AgentTaskEnv); ok {
		os.Unsetenv(proto.AgentTaskEnv)
		if *task == "" {
			*task = t
		}
	}
	r, err := toolexec.ParseRole(*role)
	if err != nil {
		return nil, cli.Usagef("agent: --role: %v", err)
	}
	if *maxLegs < 0 {
		return nil, cli.Usagef("agent: --max-legs must be 1 or more (0 or none: max_legs in config.toml, else 50), got %d", *maxLegs)
	}
	if *once && strings.TrimSpace(*task) == "" {
		return nil, cli.Usagef("agent: --once needs --task TEXT (the job to run)")
	}
	if *id != "" {
		if _, err := uuid.Parse(*id); err != nil {
			return nil, cli.Usagef("agent: --id %q is not a uuid", *id)
		}
	}
	o := &agentOpts{role: r, task: *task, once: *once, maxLegs: *maxLegs, resume: *resume, id: *id,
		flags: orchestrator.Settings{Provider: *provider, Model: *model, BaseURL: *baseURL, KeyEnv: *keyEnv}}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "role":
			o.roleSet = true
		case "model":
			o.modelSet = true
		}
	})
	return o, nil
}

// agentRun is one running agent: the loop, its tools, its transcript and,
// inside a melmux pane, its registration with the session.
type agentRun struct {
	g        *cli.Globals
	opts     *agentOpts
	agent    *orchestrator.Agent
	settings orchestrator.Settings
	id       string
	sess     *session // nil outside a session pane
	log      *orchestrator.Transcript
	exec     *toolexec.Executor
	turns    int // turns run (local numbering when there is no session)
	restored *orchestrator.Restored
	// taskQueued: the session queued --task as turn 1 at registration.
	taskQueued bool
	// warn takes what goes wrong between turns (a report the session
	// refused): stderr, or in the REPL the terminal in raw mode, where a
	// line needs its CR or the next one (the prompt) starts where it ended.
	warn io.Writer
}

func runAgent(g *cli.Globals, args []string) error {
	opts, err := parseAgentFlags(g, args)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	r, err := startAgent(ctx, g, opts)
	if err != nil {
		return err
	}
	defer r.close()
	if opts.once {
		return r.runOnce(ctx)
	}
	if f, ok := g.Stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return r.repl(ctx, f)
	}
	return r.runLines(ctx)
}

// startAgent resolves the provider, opens or resumes the transcript, and
// joins the session when running in one of its panes.
func startAgent(ctx context.Context, g *cli.Globals, o *agentOpts) (*agentRun, error) {
	cfg, cfgErr := config.Load()
	if cfgErr != nil {
		fmt.Fprintf(g.Stderr, "melmux: %v (%s)\n", cfgErr, config.Effect(cfgErr, "the defaults"))
	}
	r := &agentRun{g: g, opts: o, id: o.id}
	dir, err := orchestrator.TranscriptDir(os.Getenv)
	if err != nil {
		return nil, err
	}
	if o.resume != "" {
		path, err := orchestrator.FindTranscript(dir, o.resume)
		if err != nil {
			return nil, err
		}
		r.log, r.restored, err = orchestrator.OpenTranscript(path)
		if err != nil {
			return nil, err
		}
		m := r.restored.Meta
		r.id = m.ID
		if !o.roleSet && m.Role != "" {
			if role, err := toolexec.ParseRole(m.Role); err == nil {
				o.role = role
			}
		}
		if o.flags.Provider == "" {
			o.flags.Provider = m.Provider
		}
		if !o.modelSet && o.flags.Provider == m.Provider {
			o.flags.Model = m.Model
		}
		if o.task == "" {
			o.task = m.Task
		}
	}
	r.settings, err = orchestrator.Resolve(ctx, o.flags, cfg.Agent, os.Getenv, nil)
	if err != nil {
		r.log.Close()
		return nil, fmt.Errorf("agent: %w", err)
	}
	idle, err := orchestrator.IdleFromEnv(os.Getenv)
	if err != nil {
		r.log.Close()
		return nil, fmt.Errorf("agent: %w", err)
	}
	provider, err := orchestrator.NewProvider(r.settings, nil, orchestrator.WithRetry(orchestrator.RetryPolicy{Idle: idle}),
		orchestrator.WithLimits(orchestrator.LimitsOf(cfg.Agent)))
	if err != nil {
		r.log.Close()
		return nil, fmt.Errorf("agent: %w", err)
	}
	if r.id == "" {
		r.id = uuid.NewString()
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	maxLegs := o.maxLegs
	if maxLegs == 0 {
		maxLegs = cfg.Agent.MaxLegs
	}
	sock, pane := proto.SocketPath(g.Session), cli.EnvPane(g)
	var panes *client.PaneTools
	spawnEnv := r.settings.Env()
	if v, ok := os.LookupEnv(orchestrator.IdleEnv); ok { // workers go silent-bound as their lead does
		spawnEnv = append(spawnEnv, orchestrator.IdleEnv+"="+v)
	}
	if _, err := os.Stat(sock); err == nil {
		panes = &client.PaneTools{Socket: sock, Target: pane, Cwd: wd, Spawn: proto.SpawnAgentParams{
			Provider: r.settings.Provider, BaseURL: r.settings.BaseURL, KeyEnv: r.settings.KeyEnv,
			Model: r.settings.Model, MaxLegs: o.maxLegs, Env: spawnEnv, Worktree: cfg.Agent.Worktrees}}
	}
	r.exec = &toolexec.Executor{Root: wd, Role: o.role}
	if panes != nil {
		r.exec.Panes = panes
	}
	if r.log == nil {
		r.log, err = orchestrator.CreateTranscript(dir, orchestrator.Meta{ID: r.id, Role: string(o.role),
			Provider: r.settings.Provider, Model: r.settings.Model, Task: o.task, Cwd: wd, Created: time.Now().UTC()})
		if err != nil {
			return nil, fmt.Errorf("agent: %w", err)
		}
	}
	r.agent = &orchestrator.Agent{Provider: provider, Model: r.settings.Model, Role: o.role, Tools: r.exec, MaxLegs: maxLegs,
		MaxCalls: cfg.Agent.MaxCalls, Log: r.log}
	if r.restored != nil {
		r.agent.Restore(r.restored)
		r.turns = r.restored.Turns
	}
	pc := orchestrator.PromptContext{Role: o.role, AgentID: r.id, Cwd: wd, Task: o.task, Now: time.Now()}
	if panes != nil {
		pc.Session, pc.Pane = sessionName(g), pane
		lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		if list, err := panes.Call(lctx, "list_panes", nil); err == nil {
			pc.Panes = list
		}
		cancel()
	}
	r.agent.SetSystem(orchestrator.SystemPrompt(pc))
	if panes != nil && pane > 0 {
		// A task given at registration is queued as turn 1 by the session
		// itself, so a lead's send_agent right after spawn_agent comes second.
		reg := proto.AgentRegisterParams{Pane: pane, ID: r.id, Role: string(o.role), Provider: r.settings.Provider, Model: r.settings.Model}
		if r.freshTask() {
			reg.Task = o.task
		}
		if rs := r.restored; rs != nil {
			// The session goes on from the conversation's last turn: a
			// restored session's agent reports turn 3, not a turn the
			// session never gave, and keeps its legs and tokens.
			reg.Turn, reg.Legs = rs.Turns, rs.Legs
			reg.InputTokens, reg.OutputTokens = rs.Usage.InputTokens, rs.Usage.OutputTokens
		}
		sess, err := joinSession(ctx, sock, reg)
		if err != nil {
			fmt.Fprintf(g.Stderr, "melmux: this agent runs unregistered (the session will not list it): %v\n", err)
		} else {
			r.sess = sess
			sess.Transcript = r.log.Path // a reply too big for one report names where it is whole
			r.taskQueued = reg.Task != ""
		}
	}
	return r, nil
}

// freshTask says --task is still to be done: given, and not a conversation
// resumed past its first turn.
func (r *agentRun) freshTask() bool {
	return r.opts.task != "" && (r.restored == nil || r.restored.Turns == 0)
}

// firstTask queues --task when the session did not already, and returns it
// as a message to run at once when there is no session to take it from.
func (r *agentRun) firstTask(ctx context.Context) (*message, error) {
	if !r.freshTask() || r.taskQueued {
		return nil, nil
	}
	m, err := r.post(ctx, r.opts.task, "task")
	if err != nil || r.sess != nil {
		return nil, err
	}
	return &m, nil
}

// sessionName is the session the agent's pane tools act on.
func sessionName(g *cli.Globals) string {
	if g.Session != "" {
		return g.Session
	}
	if s := os.Getenv("MELMUX_SESSION"); s != "" {
		return s
	}
	return "main"
}

func (r *agentRun) close() {
	if r.sess != nil {
		r.sess.Close()
	}
	r.exec.Close()
	r.log.Close()
}

// message is one user message for the agent, with its turn id.
type message struct {
	turn int
	text string
	from string
}

// post queues a message: through the session when registered, so a lead's
// send_agent and a person's typing share one order; locally otherwise.
func (r *agentRun) post(ctx context.Context, text, from string) (message, error) {
	if r.sess == nil {
		r.turns++
		return message{turn: r.turns, text: text, from: from}, nil
	}
	turn, err := r.sess.Post(ctx, text, from)
	return message{turn: turn, text: text, from: from}, err
}

// next takes the next message from the session's queue.
func (r *agentRun) next(ctx context.Context) (message, error) {
	m, err := r.sess.Next(ctx)
	return message{turn: m.Turn, text: m.Text, from: m.From}, err
}

// report tells the session the agent's state; outside one it does nothing.
func (r *agentRun) report(state string, turn int, reply string, turnErr error) {
	if r.sess == nil {
		return
	}
	if err := r.sess.Report(context.Background(), state, turn, reply, turnErr, r.agent.Legs(), r.agent.Usage()); err != nil {
		w := r.warn
		if w == nil {
			w = r.g.Stderr
		}
		fmt.Fprintf(w, "melmux: reporting to the session: %v\n", err)
	}
}

// turn runs one message to its end, with the session told before and after.
func (r *agentRun) turn(ctx context.Context, m message, obs orchestrator.Observer) (orchestrator.TurnResult, error) {
	r.agent.Observer = obs
	r.report("working", m.turn, "", nil)
	res, err := r.agent.Turn(ctx, m.text)
	r.log.TurnEnd(m.turn, res.Reply, err)
	r.report("idle", m.turn, res.Reply, err)
	return res, err
}

// runOnce runs --task and exits: progress on stderr, the final answer last
// on stdout. Interrupted by SIGINT, it exits exitInterrupted once the turn
// has stopped and everything is written (the caller closes the rest).
func (r *agentRun) runOnce(ctx context.Context) error {
	ictx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	err := r.once(ictx)
	if err == nil {
		return nil
	}
	if errors.Is(err, orchestrator.ErrBudget) {
		return &cli.ExitError{Code: exitBudget, Msg: err.Error()}
	}
	if ictx.Err() != nil && ctx.Err() == nil {
		return &cli.ExitError{Code: exitInterrupted, Msg: fmt.Sprintf("agent: interrupted by SIGINT: %v", err)}
	}
	return fmt.Errorf("agent: %w", err)
}

// once is runOnce under ctx, which SIGINT ends.
func (r *agentRun) once(ctx context.Context) error {
	first, err := r.firstTask(ctx)
	if err != nil {
		return err
	}
	m := message{turn: r.turns + 1, text: r.opts.task, from: "task"}
	switch {
	case first != nil:
		m = *first
	case r.sess != nil:
		if m, err = r.next(ctx); err != nil {
			return fmt.Errorf("taking the task from the session: %w", err)
		}
	}
	out := &lineObserver{w: r.g.Stderr, maxCalls: r.agent.CallLimit()}
	res, err := r.turn(ctx, m, out)
	out.end()
	ending := "done"
	switch {
	case errors.Is(err, orchestrator.ErrBudget):
		ending = "stopped at the leg budget"
	case err != nil && ctx.Err() != nil:
		ending = "interrupted"
	case err != nil:
		ending = "failed"
	}
	fmt.Fprintf(r.g.Stderr, "[%s]\n", r.footer(ending))
	if err != nil {
		return err
	}
	fmt.Fprintln(r.g.Stdout, strings.TrimRight(res.Reply, "\n"))
	return nil
}

// runLines serves an agent whose stdin is not a terminal: every line read
// is a message (and the session's messages too, when registered).
func (r *agentRun) runLines(ctx context.Context) error {
	out := &lineObserver{w: r.g.Stdout, maxCalls: r.agent.CallLimit()}
	lines := make(chan string)
	go func() {
		defer close(lines)
		readLines(r.g.Stdin, lines)
	}()
	first, err := r.firstTask(ctx)
	if err != nil {
		return err
	}
	for {
		m, ok, err := first, true, error(nil)
		if first == nil {
			var next message
			next, ok, err = r.wait(ctx, lines)
			m = &next
		}
		first = nil
		if err != nil || !ok {
			return err
		}
		if m.from != "person" && m.from != "" {
			fmt.Fprintf(r.g.Stdout, "» turn %d (%s): %s\n", m.turn, m.from, m.text)
		}
		_, err = r.turn(ctx, *m, out)
		out.end()
		if err != nil {
			fmt.Fprintf(r.g.Stdout, "✗ %v\n", err)
		}
	}
}

// wait returns the next message: a line from lines (posted first, so it
// takes its place in the session's order) or one the session queued.
func (r *agentRun) wait(ctx context.Context, lines <-chan string) (message, bool, error) {
	if r.sess == nil {
		select {
		case l, ok := <-lines:
			if !ok {
				return message{}, false, nil
			}
			m, err := r.post(ctx, l, "person")
			return m, true, err
		case <-ctx.Done():
			return message{}, false, nil
		}
	}
	r.report(r.restingState(), r.turns, "", nil)
	nctx, cancel := context.WithCancel(ctx)
	defer cancel()
	got := make(chan message, 1)
	errc := make(chan error, 1)
	go func() {
		m, err := r.next(nctx)
		if err != nil {
			errc <- err
			return
		}
		got <- m
	}()
	for {
		select {
		case m := <-got:
			r.turns = m.turn
			return m, true, nil
		case err := <-errc:
			if ctx.Err() != nil {
				return message{}, false, nil
			}
			return message{}, false, fmt.Errorf("agent: the session went away: %w", err)
		case l, ok := <-lines:
			if !ok {
				lines = nil
				// End of input: finish what is queued, then stop.
				cancel()
				return message{}, false, nil
			}
			if _, err := r.post(ctx, l, "person"); err != nil {
				return message{}, false, err
			}
		case <-ctx.Done():
			return message{}, false, nil
		}
	}
}

// restingState is what an agent between turns is: waiting for its first
// message, idle after a finished turn.
func (r *agentRun) restingState() string {
	if r.turns == 0 {
		return "waiting"
	}
	return "idle"
}

func readLines(rd io.Reader, out chan<- string) {
	buf := make([]byte, 0, 4096)
	tmp := make([]byte, 4096)
	for {
		n, err := rd.Read(tmp)
		buf = append(buf, tmp[:n]...)
		for {
			i := bytes.IndexByte(buf, '\n')
			if i < 0 {
				break
			}
			if l := strings.TrimRight(string(buf[:i]), "\r"); strings.TrimSpace(l) != "" {
				out <- l
			}
			buf = buf[i+1:]
		}
		if err != nil {
			if l := strings.TrimSpace(string(buf)); l != "" {
				out <- l
			}
			return
		}
	}
}

// footer is the agent's status in one line: role, model, legs, tokens.
func (r *agentRun) footer(state string) string {
	u := r.agent.Usage()
	where := ""
	if p := cli.EnvPane(r.g); p > 0 && r.sess != nil {
		where = fmt.Sprintf(" · pane %d", p)
	}
	return fmt.Sprintf("mel %s · %s/%s · legs %d · tokens %s in, %s out%s · %s", r.opts.role, r.settings.Provider, r.settings.Model,
		r.agent.Legs(), compactCount(u.InputTokens), compactCount(u.OutputTokens), where, state)
}

func compactCount(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%dk", n/1000)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprint(n)
}
