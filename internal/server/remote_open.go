package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"time"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/sessionstate"
	"github.com/melmux/melmux/layout"
)

// remoteOpenWait bounds how long open_pane --host waits for the link: ssh's
// own prompts and a first copy of melmux's binaries over a slow link fit.
const remoteOpenWait = 3 * time.Minute

// openRemote opens a pane whose program runs on p.Host (docs/remote.md): the
// pane runs `melmux __remote`, which brings melmux to the host over ssh when
// it is missing there, starts the program in a session of the host's own and
// draws it here. It answers once the link is up, or with why it could not
// be, the pane gone again.
func (s *Server) openRemote(ctx context.Context, p proto.OpenPaneParams, pl *placement) (any, error) {
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
	e, res, err := s.startRemote(remoteSpec{host: p.Host, cwd: p.Cwd, argv: argv, command: command,
		title: printable(p.Title), env: s.env, target: p.Target, layout: p.Layout, focus: p.Focus, placed: pl})
	if err != nil {
		return nil, err
	}
	up, err := s.waitLink(ctx, "open_pane", e, p.Host)
	if err != nil {
		return nil, err
	}
	out := placed(e, res, up && !p.NoWait)
	out.Host = p.Host
	if !up {
		out.Note = "the link to " + p.Host + " is not up yet: the pane says why, and melmux goes on trying"
	}
	return out, nil
}

// remoteSpec is a pane whose program runs on a host.
type remoteSpec struct {
	host, cwd string
	argv      []string // the program on the host; none runs the user's shell
	command   string   // as borders show it
	flags     []string // __remote's own, before the destination
	title     string
	env       []string
	target    int
	layout    string
	focus     bool
	// placed is the lead's placement that chose the host: the pane counts
	// as an agent there from its start.
	placed *placement
}

// startRemote opens the pane running `melmux __remote` for r, its link
// connecting.
func (s *Server) startRemote(r remoteSpec) (*paneEntry, layout.AddResult, error) {
	// The stream, on the pane's command line, goes into the state file: a
	// session restored after dying links to the host's session again.
	bridge := append([]string{s.self, "__remote", "--stream", newStreamID()}, r.flags...)
	if r.cwd != "" {
		bridge = append(bridge, "--cwd", r.cwd)
	}
	bridge = append(append(bridge, r.host, "--"), r.argv...)
	e, res, err := s.spawn(spawnSpec{argv: bridge, command: r.command, title: r.title, env: r.env,
		target: r.target, layout: r.layout, focus: r.focus})
	if err != nil {
		return nil, res, err
	}
	id := e.p.ID()
	s.withLock(func() {
		l := e.linkLocked()
		l.host, l.command = r.host, r.command
		if l.state == "" {
			l.state, l.since = proto.LinkConnecting, time.Now()
			e.p.RefuseInput(linkRefusal(id, l))
		}
		if r.placed != nil {
			s.markPlacedLocked(e)
		}
	})
	r.placed.done()
	return e, res, nil
}

// restoredRemoteLocked makes a restored pane running argv, when that is
// `melmux __remote` (sessionstate.Pane.Launch runs it again as saved), the
// remote pane it was: its host and command as borders and list_panes show
// them, its typing refused until its link to the host's session is up.
func (s *Server) restoredRemoteLocked(e *paneEntry, sp sessionstate.Pane, argv []string) {
	if len(argv) < 3 || argv[1] != "__remote" {
		return
	}
	host := ""
	for i := 2; i < len(argv); i++ {
		a := argv[i]
		if a == "--cwd" || a == "--stream" || a == "--pass-env" {
			i++
			continue
		}
		if strings.HasPrefix(a, "-") {
			continue
		}
		host = a
		break
	}
	if host == "" {
		return
	}
	l := e.linkLocked()
	l.host, l.command = host, sp.Command
	e.command = sp.Command
	if l.state == "" {
		l.state, l.since = proto.LinkConnecting, time.Now()
		e.p.RefuseInput(linkRefusal(e.p.ID(), l))
	}
}

// newStreamID names a remote pane's typing stream and its host's session.
func newStreamID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// waitLink waits until e's link to host is up (or was, and dropped since):
// true. A link that could not be made removes the pane and is the error;
// one not up within remoteOpenWait is false, the pane left trying.
func (s *Server) waitLink(ctx context.Context, verb string, e *paneEntry, host string) (bool, error) {
	id := e.p.ID()
	deadline := time.NewTimer(remoteOpenWait)
	defer deadline.Stop()
	for {
		var state, why string
		var ch <-chan struct{}
		s.withLock(func() { state, why, ch = e.link.state, e.link.err, e.link.ch })
		switch state {
		case proto.LinkConnected, proto.LinkDisconnected:
			return true, nil
		case proto.LinkFailed:
			s.dropRemote(id)
			return false, errorf(proto.CodeFailed, "%s: %s: %s", verb, host, why)
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
				return false, errorf(proto.CodeFailed, "%s: %s: melmux __remote exited (%s): %s", verb, host, exitWords(e.p.Status()), screen)
			}
		case <-deadline.C:
			return false, nil
		case <-ctx.Done():
			return false, ctx.Err()
		case <-s.done:
			return false, errorf(proto.CodeFailed, "%s: the session ended", verb)
		}
	}
}

// dropRemote removes a remote pane whose link could not be made.
func (s *Server) dropRemote(id int) {
	if last, err := s.removePane(id, true); err == nil && last {
		go s.lastPaneGone("last pane killed")
	}
}
