package toolexec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"
)

// Result is what the model reads back from one call.
type Result struct {
	Text    string
	IsError bool
}

func errResult(format string, a ...any) Result {
	return Result{Text: fmt.Sprintf(format, a...), IsError: true}
}

func errorResult(err error) Result { return Result{Text: err.Error(), IsError: true} }

// PaneTools executes the lead's pane tools (open_pane, spawn_agent,
// send_keys, send_agent, read_pane, read_agent, list_panes) in a melmux
// session. args have been validated against the tool's schema. A returned
// error becomes an error result carrying its text.
type PaneTools interface {
	Call(ctx context.Context, name string, args json.RawMessage) (string, error)
}

// DefaultCommandTimeout bounds run_command when neither the executor nor
// MELMUX_COMMAND_TIMEOUT sets a limit.
const DefaultCommandTimeout = 10 * time.Minute

// CommandTimeoutEnv names the environment variable holding run_command's
// time limit as a Go duration.
const CommandTimeoutEnv = "MELMUX_COMMAND_TIMEOUT"

// Executor runs tool calls in one workspace for one role. Its exported
// fields are read-only once Run has been called; Run is safe for concurrent
// use.
type Executor struct {
	// Root is the workspace: the working directory of run_command, the base
	// of relative paths and the boundary of confinement. Empty means the
	// process's current directory.
	Root string
	// Role gates the tools; empty means lead, as for `melmux tool`.
	Role Role
	// CommandTimeout bounds run_command; zero means MELMUX_COMMAND_TIMEOUT,
	// else DefaultCommandTimeout.
	CommandTimeout time.Duration
	// Panes runs the pane tools; nil makes them fail with a message saying a
	// melmux session is needed.
	Panes PaneTools
	// Memory backs remember/recall; nil opens the store at MemoryPath on the
	// first remember or recall.
	Memory *MemoryStore
	// MemoryPath overrides DefaultMemoryPath for the lazily opened store.
	MemoryPath string
	// AllowOutside lets paths resolve outside Root, on purpose.
	AllowOutside bool
	// HTTPClient is used by web_search; nil means a client with a 30s timeout.
	HTTPClient *http.Client
	// Getenv reads configuration (search backends, timeouts, PDF engine);
	// nil means os.Getenv. Tests set it to avoid touching the process env.
	Getenv func(string) string

	once    sync.Once
	initErr error
	root    string // Root, absolute and with symlinks resolved

	memMu  sync.Mutex // guards memory, the lazily opened store
	memory *MemoryStore
}

func (e *Executor) getenv(k string) string {
	if e.Getenv != nil {
		return e.Getenv(k)
	}
	return os.Getenv(k)
}

func (e *Executor) init() error {
	e.once.Do(func() {
		root := e.Root
		if root == "" {
			wd, err := os.Getwd()
			if err != nil {
				e.initErr = fmt.Errorf("workspace: %w", err)
				return
			}
			root = wd
		}
		abs, err := filepath.Abs(root)
		if err != nil {
			e.initErr = fmt.Errorf("workspace %s: %w", root, err)
			return
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			e.initErr = fmt.Errorf("workspace %s: %w", root, err)
			return
		}
		fi, err := os.Stat(real)
		if err != nil {
			e.initErr = fmt.Errorf("workspace %s: %w", root, err)
			return
		}
		if !fi.IsDir() {
			e.initErr = fmt.Errorf("workspace %s is not a directory", root)
			return
		}
		e.root = real
	})
	return e.initErr
}

// abandonGrace is how long Run waits, once its context has ended, for the
// tool to return by itself. Every tool watches its context, but a system
// call blocked in the kernel (a hung network file system) cannot be
// interrupted; the caller gets its answer anyway.
var abandonGrace = 5 * time.Second

// Run executes one tool call: name and its JSON-encoded arguments as the
// model sent them. It never panics; every failure is an error Result. When
// ctx ends, the tool stops and says so (run_command kills what it started);
// a tool still blocked abandonGrace later is left behind and Run returns.
func (e *Executor) Run(ctx context.Context, name, arguments string) (res Result) {
	defer func() {
		if p := recover(); p != nil {
			res = panicResult(name, p)
		}
	}()
	if ctx == nil {
		ctx = context.Background()
	}
	role, err := e.Role.normalize()
	if err != nil {
		return errorResult(err)
	}
	allowed := toolNames(Definitions(role))
	def, known := lookup(name)
	if !known {
		return errResult("unknown tool %s (role %s allows: %s)", quoteArg(name), role, strings.Join(allowed, ", "))
	}
	if !contains(allowed, name) {
		return errResult("tool %s is not allowed for role %s (role %s allows: %s)", name, role, role, strings.Join(allowed, ", "))
	}
	a, err := parseArgs(def, arguments)
	if err != nil {
		return errorResult(err)
	}
	if err := ctx.Err(); err != nil {
		return errResult("%s: not run: %v", name, err)
	}
	done := make(chan Result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- panicResult(name, p)
			}
		}()
		done <- e.dispatch(ctx, name, a)
	}()
	select {
	case r := <-done:
		return r
	case <-ctx.Done():
	}
	grace := time.NewTimer(abandonGrace)
	defer grace.Stop()
	select {
	case r := <-done:
		return r
	case <-grace.C:
		return errResult("%s: %v, and the tool did not stop within %s: it is blocked in a system call "+
			"(a hung file system or device?) and was left behind; what it was doing may still complete",
			name, context.Cause(ctx), abandonGrace)
	}
}

func panicResult(name string, p any) Result {
	return errResult("%s: internal error in melmux (please report): %v\n%s", name, p, firstFrames(debug.Stack()))
}

// dispatch runs a validated call.
func (e *Executor) dispatch(ctx context.Context, name string, a args) Result {
	if isPaneTool(name) {
		return e.runPaneTool(ctx, name, a)
	}
	if err := e.init(); err != nil {
		return errorResult(err)
	}
	switch name {
	case "read_file":
		return e.readFile(ctx, a)
	case "list_dir":
		return e.listDir(ctx, a)
	case "grep":
		return e.grep(ctx, a)
	case "find_files":
		return e.findFiles(ctx, a)
	case "write_file":
		return e.writeFile(ctx, a)
	case "edit_file":
		return e.editFile(ctx, a)
	case "run_command":
		return e.runCommand(ctx, a)
	case "web_search":
		return e.webSearch(ctx, a)
	case "write_plan":
		return e.writePlan(ctx, a)
	case "create_pdf":
		return e.createPDF(ctx, a)
	case "remember":
		return e.remember(ctx, a)
	case "recall":
		return e.recall(ctx)
	}
	return errResult("tool %s has no implementation in this build", name)
}

// ErrNoSession is the error result's cause when a pane tool runs without a
// PaneTools implementation.
var ErrNoSession = errors.New("pane tools need a melmux session: run inside a melmux pane or set MELMUX_SOCKET")

func (e *Executor) runPaneTool(ctx context.Context, name string, a args) Result {
	if e.Panes == nil {
		return errResult("%s: %v", name, ErrNoSession)
	}
	raw, err := json.Marshal(map[string]any(a))
	if err != nil {
		return errResult("%s: encoding arguments: %v", name, err)
	}
	out, err := e.Panes.Call(ctx, name, raw)
	if err != nil {
		// Some of the session's messages already start with the method's
		// name, which is the tool's.
		if msg := err.Error(); strings.HasPrefix(msg, name+": ") {
			return Result{Text: msg, IsError: true}
		}
		return errResult("%s: %v", name, err)
	}
	return Result{Text: out}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// firstFrames keeps the top of a stack trace: enough to locate a bug without
// flooding the model's context.
func firstFrames(stack []byte) string {
	lines := strings.Split(string(stack), "\n")
	if len(lines) > 16 {
		lines = lines[:16]
	}
	return strings.Join(lines, "\n")
}
