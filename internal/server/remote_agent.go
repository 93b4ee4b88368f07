package server

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/melmux/melmux/internal/proto"
)

// remoteRegisterWait bounds how long a worker on a host takes to register
// once its link is up: its start there, then its registration's round
// trips through ssh, each a few times a local worker's.
const remoteRegisterWait = time.Minute

// spawnRemoteAgent is spawn_agent with a host (docs/remote.md): the worker
// runs on the host, in a pane of the host's session as any remote pane's
// program, and belongs to this session: its control connection is this
// session's socket, carried over the pane's ssh channel (internal/remote's
// forward.go). So it registers for the local pane, and send_agent,
// read_agent and wait treat it as a local worker, with nothing proxied
// here. Its task and the provider's variables reach it in its environment,
// over the channel, never on a command line.
func (s *Server) spawnRemoteAgent(ctx context.Context, p proto.SpawnAgentParams, pl *placement) (any, error) {
	if p.Worktree || p.WorktreeName != "" {
		return nil, errorf(proto.CodeBadParams, "spawn_agent: --worktree is not available with --host: a worktree is made on this machine")
	}
	if strings.HasPrefix(p.Host, "-") || strings.ContainsAny(p.Host, " \t\r\n") {
		return nil, errorf(proto.CodeBadParams, "spawn_agent: host %q is not a destination ssh takes", p.Host)
	}
	id := uuid.NewString()
	names := []string{proto.AgentTaskEnv}
	for _, kv := range p.Env {
		k, _, _ := strings.Cut(kv, "=")
		if strings.Contains(k, ",") {
			return nil, errorf(proto.CodeBadParams, "spawn_agent: env name %q holds a comma", k)
		}
		names = append(names, k)
	}
	since := time.Now()
	e, res, err := s.startRemote(remoteSpec{host: p.Host, cwd: p.Cwd, argv: workerArgv("melmux", id, p)[1:],
		command: "melmux agent --role worker --id " + id, flags: []string{"--agent", "--pass-env", strings.Join(names, ",")},
		env: workerEnv(s.env, p), target: p.Target, layout: p.Layout, focus: p.Focus, placed: pl})
	if err != nil {
		return nil, err
	}
	pane := e.p.ID()
	up, err := s.waitLink(ctx, "spawn_agent", e, p.Host)
	if err != nil {
		return nil, err
	}
	if !up {
		return nil, errorf(proto.CodeFailed, "spawn_agent: the link to %s is not up within %s: pane %d says why, and melmux goes on trying", p.Host, remoteOpenWait, pane)
	}
	if err := s.waitRegistered(ctx, e, id, remoteRegisterWait); err != nil {
		return nil, err
	}
	waitFirstScreen(ctx, e.p, since)
	r := placed(e, res, true)
	s.log.Info("worker spawned", "pane", pane, "agent", id, "host", p.Host)
	return proto.SpawnAgentResult{ID: r.ID, AgentID: id, Tab: r.Tab, Layout: r.Layout, Note: r.Note,
		Cols: r.Cols, Rows: r.Rows, Lines: r.Lines, Host: p.Host}, nil
}
