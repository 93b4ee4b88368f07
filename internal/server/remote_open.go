package server

import (
	"context"
	"strings"
	"time"

	"github.com/melmux/melmux/internal/proto"
)

// remoteOpenWait bounds how long open_pane --host waits for the link: ssh's
// own prompts and a first copy of melmux's binaries over a slow link fit.
const remoteOpenWait = 3 * time.Minute

// openRemote opens a pane whose program runs on p.Host (docs/remote.md): the
// pane runs `melmux __remote`, which brings melmux to the host over ssh when
// it is missing there, starts the program in a session of the host's own and
// draws it here. It answers once the link is up, or with why it could not
// be, the pane gone again.
func (s *Server) openRemote(ctx context.Context, p proto.OpenPaneParams) (any, error) {
	if p.Worktree || p.WorktreeName != "" {
		return nil, errorf(proto.CodeBadParams, "open_pane: --worktree is not available with --host: a worktree is made on this machine")
	}
	if s.self == "" {
		return nil, errorf(proto.CodeFailed, "open_pane: this server does not know the melmux binary (started without --cli), which a remote pane runs")
	}
	if strings.HasPrefix(p.Host, "-") || strings.ContainsAny(p.Host, " \t\r\n") {
		return nil, errorf(proto.CodeBadParams, "open_pane: host %q is not a destination ssh takes", p.Host)
	}
	argv := p.Argv
	if len(argv) == 0 && strings.TrimSpace(p.Command) != "" {
		argv = []string{"/bin/sh", "-c", p.Command}
	}
	command := strings.Join(argv, " ")
	if len(argv) == 3 && argv[1] == "-c" {
		command = argv[2]
	}
	if command == "" {
		command = "$SHELL"
	}
	bridge := []string{s.self, "__remote"}
	if p.Cwd != "" {
		bridge = append(bridge, "--cwd", p.Cwd)
	}
	bridge = append(append(bridge, p.Host, "--"), argv...)
	e, res, err := s.spawn(spawnSpec{argv: bridge, command: command, title: printable(p.Title), env: s.env,
		target: p.Target, layout: p.Layout, focus: p.Focus})
	if err != nil {
		return nil, err
	}
	id := e.p.ID()
	s.withLock(func() {
		l := e.linkLocked()
		l.host, l.command = p.Host, command
		if l.state == "" {
			l.state, l.since = proto.LinkConnecting, time.Now()
			e.p.RefuseInput(linkRefusal(id, l))
		}
	})
	deadline := time.NewTimer(remoteOpenWait)
	defer deadline.Stop()
	for {
		var state, why string
		var ch <-chan struct{}
		s.withLock(func() { state, why, ch = e.link.state, e.link.err, e.link.ch })
		switch state {
		case proto.LinkConnected, proto.LinkDisconnected:
			out := placed(e, res, !p.NoWait)
			return out, nil
		case proto.LinkFailed:
			s.dropRemote(id)
			return nil, errorf(proto.CodeFailed, "open_pane: %s: %s", p.Host, why)
		}
		select {
		case <-ch:
		case <-e.p.Exited():
			// It reports failed before it exits; an exit without one
			// is a bridge that could not start: its screen says why.
			s.withLock(func() { state = e.link.state })
			if state != proto.LinkFailed {
				screen := screenText(e)
				s.dropRemote(id)
				return nil, errorf(proto.CodeFailed, "open_pane: %s: melmux __remote exited (%s): %s", p.Host, exitWords(e.p.Status()), screen)
			}
		case <-deadline.C:
			out := placed(e, res, false)
			out.Note = "the link to " + p.Host + " is not up yet: the pane says why, and melmux goes on trying"
			return out, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-s.done:
			return nil, errorf(proto.CodeFailed, "open_pane: the session ended")
		}
	}
}

// dropRemote removes a remote pane whose link could not be made.
func (s *Server) dropRemote(id int) {
	if last, err := s.removePane(id, true); err == nil && last {
		go s.lastPaneGone("last pane killed")
	}
}
