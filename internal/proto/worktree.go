package proto

// KillPaneParams asks kill_pane to end a pane, and with Worktree to remove
// the git worktree it was started in too: only when that holds no
// uncommitted work, unless Force.
type KillPaneParams struct {
	Pane     int  `json:"pane"`
	Worktree bool `json:"worktree,omitempty"`
	Force    bool `json:"force,omitempty"`
}

// KillPaneWorktreeResult is kill_pane's answer when asked to remove the
// pane's worktree: the pane's, and what became of the worktree's branch.
type KillPaneWorktreeResult struct {
	KillPaneResult
	Worktree string `json:"worktree"`
	// WorktreeRemoved is false when the pane went but its worktree stayed
	// (Note says why: work written, or a process still in it, as it died).
	WorktreeRemoved bool   `json:"worktree_removed"`
	Branch          string `json:"branch"`      // the branch it had checked out, "" when detached
	BranchKept      bool   `json:"branch_kept"` // the branch stays, holding commits not merged
	Note            string `json:"note,omitempty"`
	Lost            int    `json:"lost,omitempty"` // uncommitted files removed with it (force)
}

// WorktreeCommitParams asks worktree_commit to commit every uncommitted
// change of a pane's worktree with Message.
type WorktreeCommitParams struct {
	Pane    int    `json:"pane"`
	Message string `json:"message"`
}

// WorktreeCommitResult is the commit worktree_commit made.
type WorktreeCommitResult struct {
	Pane     int    `json:"pane"`
	Worktree string `json:"worktree"`
	Branch   string `json:"branch"`
	Commit   string `json:"commit"`
	Files    int    `json:"files"`
}

// WorktreeMergeResult is what worktree_merge (params: PaneRef) did: the
// pane's branch merged into Into in the main checkout Repo.
type WorktreeMergeResult struct {
	Pane        int    `json:"pane"`
	Branch      string `json:"branch"`
	Into        string `json:"into"`
	Repo        string `json:"repo"`
	Commit      string `json:"commit"`
	Commits     int    `json:"commits"`
	FastForward bool   `json:"fast_forward"`
}
