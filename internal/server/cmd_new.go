package server

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/melmux/melmux/internal/proto"
)

// new creates the first pane of a fresh session at the session size.
func init() {
	register(&Command{Name: "new", Run: func(ctx context.Context, s *Server, raw json.RawMessage) (any, error) {
		var p proto.NewParams
		if err := decodeParams("new", raw, &p); err != nil {
			return nil, err
		}
		return s.newFirst(p)
	}})
}

// StartFirst starts the session's first pane before the server serves, so
// that the daemon `melmux new` starts says it is ready only once the pane
// runs: the pane gets the daemon's own environment and working directory,
// which it inherited from the `melmux new` that started it. If the pane
// cannot start, the session ends there (its socket removed, no state kept)
// and the error is the one the `new` command would have answered.
func (s *Server) StartFirst(argv []string, cols, rows int) error {
	_, err := s.newFirst(proto.NewParams{Command: argv, Cols: cols, Rows: rows})
	if err != nil {
		s.kill("the first pane did not start")
		if s.ln != nil {
			s.ln.Close()
		}
	}
	return err
}

// newFirst is the `new` command once its parameters are read.
func (s *Server) newFirst(p proto.NewParams) (proto.OpenPaneResult, error) {
	if err := checkSize("new", p.Cols, p.Rows, true); err != nil {
		return proto.OpenPaneResult{}, err
	}
	err := s.withLockErr(func() error {
		if s.started {
			return errorf(proto.CodeFailed, "session %q already exists", s.name)
		}
		if p.Cols > 0 {
			s.cols = p.Cols
		}
		if p.Rows > 0 {
			s.rows = p.Rows
		}
		return nil
	})
	if err != nil {
		return proto.OpenPaneResult{}, err
	}
	argv := p.Command
	command := strings.Join(argv, " ")
	if len(argv) == 1 {
		argv = commandArgv(s.shell, argv[0])
	}
	shell := len(argv) == 0
	if shell {
		argv = []string{s.shell}
		command = s.shell
	}
	env := p.Env
	if env == nil {
		env = s.env
	}
	e, res, err := s.spawn(spawnSpec{argv: argv, command: command, cwd: absDir(p.Cwd), env: env, layout: "tab", shell: shell})
	if err != nil {
		return proto.OpenPaneResult{}, err
	}
	cols, rows := e.p.Size()
	return proto.OpenPaneResult{ID: e.p.ID(), Tab: res.Tab, Layout: string(res.Used), Cols: cols, Rows: rows}, nil
}
