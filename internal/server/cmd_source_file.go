package server

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/melmux/melmux/internal/config"
	"github.com/melmux/melmux/internal/proto"
)

// source_file reads a config file again (the one the session started with,
// unless another is named) and makes it the session's: see reload for what
// changes. A bad entry is left out and named, as at the session's start; a
// file that does not parse, or cannot be read, changes nothing.
func init() {
	register(&Command{Name: "source_file", Run: func(ctx context.Context, s *Server, raw json.RawMessage) (any, error) {
		var p proto.SourceFileParams
		if err := decodeParams("source_file", raw, &p); err != nil {
			return nil, err
		}
		file := p.File
		switch {
		case file == "" && s.configFile == "":
			return nil, errorf(proto.CodeFailed, "source_file: the session knows no config file (neither $XDG_CONFIG_HOME nor $HOME was set when it started): name one")
		case file == "":
			file = s.configFile
		case !filepath.IsAbs(file):
			return nil, errorf(proto.CodeBadParams, "source_file: file %q must be an absolute path", file)
		}
		// A missing file would be read as no file (the defaults): that
		// is for a session's start, not for a file named to be read.
		if _, err := os.Stat(file); errors.Is(err, fs.ErrNotExist) {
			return nil, errorf(proto.CodeFailed, "source_file: there is no file %s; the session's config stays as it was", file)
		} else if err != nil {
			return nil, errorf(proto.CodeFailed, "source_file: %v; the session's config stays as it was", err)
		}
		cfg, err := config.LoadFile(file)
		switch {
		case errors.Is(err, config.ErrSyntax):
			return nil, errorf(proto.CodeFailed, "%v (%s)", err, config.Effect(err, "the session's config as it was"))
		case err != nil && !errors.Is(err, config.ErrInvalid):
			return nil, errorf(proto.CodeFailed, "source_file: %v; the session's config stays as it was", err)
		}
		res := proto.SourceFileResult{File: file}
		problem := ""
		if err != nil {
			for _, pr := range config.Problems(err) {
				res.Problems = append(res.Problems, pr.Error())
			}
			problem = err.Error() + " (" + config.Effect(err, "") + ")"
		}
		res.Notes = s.reload(cfg, problem)
		s.log.Info("config read again", "file", file, "problems", len(res.Problems))
		return res, nil
	}})
}
