package server

import (
	"context"
	"encoding/json"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/worktree"
)

// diff answers what a worktree pane holds that its base branch does not,
// committed or not, new files included: the patch, or git's --stat summary.
func init() {
	register(&Command{Name: "diff", Run: func(ctx context.Context, s *Server, raw json.RawMessage) (any, error) {
		var p proto.DiffParams
		if err := decodeParams("diff", raw, &p); err != nil {
			return nil, err
		}
		if p.Pane <= 0 {
			return nil, errorf(proto.CodeBadParams, "diff: parameter \"pane\" is required: a pane id from list_panes")
		}
		if p.StatWidth < 0 || p.StatWidth > 1000 {
			return nil, errorf(proto.CodeBadParams, "diff: stat_width %d is out of range (0 for 80, else up to 1000 columns)", p.StatWidth)
		}
		e, ch, err := s.paneDiff(ctx, "diff", p.Pane, worktree.DiffOptions{Stat: p.Stat, Patch: !p.Stat, StatWidth: p.StatWidth})
		if err != nil {
			return nil, err
		}
		out := proto.DiffResult{Pane: p.Pane, Worktree: e.wt.Path, Branch: e.wt.Branch, Base: e.wt.Base,
			Files: []proto.DiffFile{}, Added: ch.Added, Deleted: ch.Deleted, Text: ch.Text, Truncated: ch.Truncated}
		for _, f := range ch.Files {
			out.Files = append(out.Files, proto.DiffFile(f))
		}
		return out, nil
	}})
}
