package server

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/melmux/melmux/internal/proto"
)

// maxCommitMessage bounds worktree_commit's message: a commit message, not
// a file.
const maxCommitMessage = 64 << 10

// worktree_commit commits every uncommitted change of a pane's worktree
// (git add --all, git commit -m), as the person's own git command: the
// repository's hooks run.
func init() {
	register(&Command{Name: "worktree_commit", Run: func(ctx context.Context, s *Server, raw json.RawMessage) (any, error) {
		var p proto.WorktreeCommitParams
		if err := decodeParams("worktree_commit", raw, &p); err != nil {
			return nil, err
		}
		if err := paneParam("worktree_commit", p.Pane); err != nil {
			return nil, err
		}
		switch {
		case strings.TrimSpace(p.Message) == "":
			return nil, errorf(proto.CodeBadParams, "worktree_commit: parameter \"message\" is required: the commit's message (not empty, not only spaces)")
		case len(p.Message) > maxCommitMessage:
			return nil, errorf(proto.CodeBadParams, "worktree_commit: the message is %d bytes, over the %d allowed", len(p.Message), maxCommitMessage)
		}
		e, wt, err := s.worktreeOf("worktree_commit", p.Pane)
		if err != nil {
			return nil, err
		}
		c, err := wt.Commit(ctx, p.Message)
		if err != nil {
			return nil, errorf(proto.CodeFailed, "worktree_commit: pane %d's worktree: %v", p.Pane, err)
		}
		s.worktreeChanged(e)
		s.log.Info("worktree committed", "pane", p.Pane, "worktree", wt.Path, "commit", c.Commit, "files", c.Files)
		return proto.WorktreeCommitResult{Pane: p.Pane, Worktree: wt.Path, Branch: c.Branch, Commit: c.Commit, Files: c.Files}, nil
	}})
}
