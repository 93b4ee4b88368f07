package server

import (
	"context"
	"encoding/json"

	"github.com/melmux/melmux/internal/proto"
)

// worktree_merge merges a pane's worktree branch into its base branch in
// the repository's main checkout (git merge --no-edit), as the person's own
// git command: the repository's hooks run. It refuses, merging nothing, on
// uncommitted work in the worktree, a dirty main checkout, another branch
// checked out there, and conflicts (worktree.Worktree.Merge).
func init() {
	register(&Command{Name: "worktree_merge", Run: func(ctx context.Context, s *Server, raw json.RawMessage) (any, error) {
		var p proto.PaneRef
		if err := decodeParams("worktree_merge", raw, &p); err != nil {
			return nil, err
		}
		if err := paneParam("worktree_merge", p.Pane); err != nil {
			return nil, err
		}
		e, wt, err := s.worktreeOf("worktree_merge", p.Pane)
		if err != nil {
			return nil, err
		}
		m, err := wt.Merge(ctx)
		if err != nil {
			return nil, errorf(proto.CodeFailed, "worktree_merge: pane %d: %v", p.Pane, err)
		}
		s.worktreeChanged(e)
		s.log.Info("worktree merged", "pane", p.Pane, "branch", m.Branch, "into", m.Into, "repo", m.Repo, "commit", m.Commit)
		return proto.WorktreeMergeResult{Pane: p.Pane, Branch: m.Branch, Into: m.Into, Repo: m.Repo, Commit: m.Commit,
			Commits: m.Commits, FastForward: m.FastForward}, nil
	}})
}
