package server

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/melmux/melmux/internal/proto"
)

// spawnRegisterWait bounds how long spawn_agent waits for its worker to
// register: it does so before its first model call, so this is start-up.
const spawnRegisterWait = 10 * time.Second

// spawn_agent opens a pane (placed as open_pane places one) running a melmux
// worker agent on a task, and answers once the worker has registered (which
// queues its task as turn 1), with its pane, its agent id and its first
// screen: a read_agent right after then waits for the task's reply. A worker that exits first
// (no provider configured, a bad flag) is an error carrying its exit status
// and its screen, so the lead sees why.
func init() {
	register(&Command{Name: "spawn_agent", Run: func(ctx context.Context, s *Server, raw json.RawMessage) (any, error) {
		var p proto.SpawnAgentParams
		if err := decodeParams("spawn_agent", raw, &p); err != nil {
			return nil, err
		}
		if err := targetParam("spawn_agent", p.Target); err != nil {
			return nil, err
		}
		if strings.TrimSpace(p.Task) == "" {
			return nil, errorf(proto.CodeBadParams, "spawn_agent: parameter \"task\" is required and must not be empty: the worker's task, self-contained")
		}
		if strings.ContainsRune(p.Task, 0) {
			return nil, errorf(proto.CodeBadParams, "spawn_agent: task holds a NUL byte, which no environment variable can carry")
		}
		if len(p.Task) > proto.MaxWorkerTask {
			return nil, errorf(proto.CodeBadParams, "spawn_agent: task is %d bytes, over the %d a worker's task may be (it reaches the worker in an environment variable, which Linux bounds at 128 KiB); put the rest in a file and name it in the task", len(p.Task), proto.MaxWorkerTask)
		}
		if p.MaxLegs < 0 {
			return nil, errorf(proto.CodeBadParams, "spawn_agent: max_legs %d must not be negative (0 = the agent's default)", p.MaxLegs)
		}
		for _, kv := range p.Env {
			if k, _, ok := strings.Cut(kv, "="); !ok || k == "" || strings.ContainsRune(kv, 0) {
				return nil, errorf(proto.CodeBadParams, "spawn_agent: env entry %q is not KEY=VALUE", kv)
			}
		}
		if s.self == "" {
			return nil, errorf(proto.CodeFailed, "spawn_agent: this session does not know its melmux binary, so it cannot start a worker (the server was started without Config.Self)")
		}
		var pl *placement
		if p.Host == "" && p.Place {
			var err error
			if pl, err = s.place("spawn_agent", p.Worktree || p.WorktreeName != ""); err != nil {
				return nil, err
			}
			defer pl.done()
			if h := pl.remoteHost(); h != "" {
				p.Host, p.Cwd = h, "" // the lead's directory is this machine's
			}
		}
		if p.Host != "" {
			return s.spawnRemoteAgent(ctx, p, pl)
		}
		id := uuid.NewString()
		argv := workerArgv(s.self, id, p)
		since := time.Now()
		e, res, err := s.spawnIn(ctx, "spawn_agent", spawnSpec{argv: argv, command: filepath.Base(s.self) + " agent --role worker --id " + id,
			cwd: absDir(p.Cwd), env: workerEnv(s.env, p), target: p.Target, layout: p.Layout, focus: p.Focus},
			p.Worktree, p.WorktreeName, func(int) string { return "agent-" + id[:8] })
		if err != nil {
			return nil, err
		}
		if pl != nil {
			s.withLock(func() { s.markPlacedLocked(e) })
			pl.done()
		}
		pane := e.p.ID()
		if err := s.waitRegistered(ctx, e, id, spawnRegisterWait); err != nil {
			return nil, err
		}
		waitFirstScreen(ctx, e.p, since)
		r := placed(e, res, true)
		s.log.Info("worker spawned", "pane", pane, "agent", id)
		out := proto.SpawnAgentResult{ID: r.ID, AgentID: id, Tab: r.Tab, Layout: r.Layout, Note: r.Note,
			Cols: r.Cols, Rows: r.Rows, Lines: r.Lines, Worktree: r.Worktree, Branch: r.Branch}
		if pl != nil {
			out.Host = pl.host
		}
		return out, nil
	}})
}

// workerArgv is the command line of a worker agent. Its task is not on it
// (workerEnv): any user of the machine may read a process's command line.
func workerArgv(self, id string, p proto.SpawnAgentParams) []string {
	argv := []string{self, "agent", "--role", "worker", "--id", id}
	for _, f := range [][2]string{{"--provider", p.Provider}, {"--model", p.Model}, {"--base-url", p.BaseURL}, {"--key-env", p.KeyEnv}} {
		if f[1] != "" {
			argv = append(argv, f[0], f[1])
		}
	}
	if p.MaxLegs > 0 {
		argv = append(argv, "--max-legs", strconv.Itoa(p.MaxLegs))
	}
	return argv
}

// workerEnv is the environment of a worker agent: the session's, the
// caller's variables over it, and its task in proto.AgentTaskEnv.
func workerEnv(base []string, p proto.SpawnAgentParams) []string {
	return overrideEnv(base, append(slices.Clip(p.Env), proto.AgentTaskEnv+"="+p.Task))
}

// overrideEnv is base with the KEY=VALUE entries of over replacing those of
// the same keys.
func overrideEnv(base, over []string) []string {
	if len(over) == 0 {
		return base
	}
	keys := map[string]bool{}
	for _, kv := range over {
		k, _, _ := strings.Cut(kv, "=")
		keys[k] = true
	}
	out := make([]string, 0, len(base)+len(over))
	for _, kv := range base {
		if k, _, _ := strings.Cut(kv, "="); !keys[k] {
			out = append(out, kv)
		}
	}
	return append(out, over...)
}

// waitRegistered waits (bounded) until the agent id has registered in the
// pane with its task queued. Its exit first, or the bound passing, is an
// error showing its screen.
func (s *Server) waitRegistered(ctx context.Context, e *paneEntry, id string, within time.Duration) error {
	pane := e.p.ID()
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	for {
		var ok bool
		var ch <-chan struct{}
		s.mels.do(func() {
			if mp := s.mels.panes[pane]; mp != nil {
				ok = mp.a != nil && mp.a.id == id && mp.a.given > 0
				ch = mp.changesLocked()
			}
		})
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-e.p.Exited():
			return errorf(proto.CodeFailed, "spawn_agent: the worker in pane %d exited (%s) before it registered; its screen:\n%s\n(pane %d stays for reading; `melmux kill-pane -t %[4]d` removes it)",
				pane, exitWords(e.p.Status()), screenText(e), pane)
		case <-deadline.C:
			return errorf(proto.CodeFailed, "spawn_agent: the worker in pane %d did not register with its task within %s; its screen:\n%s\n(it still runs in pane %d)",
				pane, within, screenText(e), pane)
		case <-ctx.Done():
			return errorf(proto.CodeFailed, "spawn_agent: cancelled (the worker runs on in pane %d)", pane)
		case <-s.done:
			return errorf(proto.CodeFailed, "spawn_agent: the session ended")
		}
	}
}

// screenText is the pane's screen as text, for error messages.
func screenText(e *paneEntry) string {
	lines := trimTrailingEmpty(e.p.Term().Lines())
	if len(lines) == 0 {
		return "(empty)"
	}
	return strings.Join(lines, "\n")
}
