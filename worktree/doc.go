// Package worktree gives a pane its own git checkout, so agents working side
// by side on one repository never edit the same files.
//
// Everything goes through the git command line (git 2.31 or later), never
// through git's files directly except one: Add records the commit a worktree
// started from in a file `melmux-base` of the worktree's administrative
// directory (.git/worktrees/NAME/), where git keeps its own per-worktree
// state and which `git worktree remove` deletes with it. Diff and Count
// compare against that commit, so a worktree's changes are what it did since
// it was made, committed or not, whatever its branch became.
//
// Worktrees live outside the repository, under Root()/<repo>-<hash>/NAME
// (Root is $XDG_DATA_HOME/melmux/worktrees), on branch melmux/NAME. Diffs
// include files git does not track yet (and does not ignore): git runs with
// a throwaway copy of the worktree's index in which those files are marked
// intent-to-add, so neither the real index nor its lock is ever touched and
// an agent's own git commands in the worktree never meet a lock of ours.
//
// Clean removes the worktrees that hold nothing unsaved: no uncommitted or
// untracked change, and a branch that either has no commit of its own or is
// merged into the branch checked out in the repository's main checkout. It
// never forces: git itself refuses to remove a worktree with changes.
//
// The package knows nothing of panes or sessions; the server records which
// pane works in which worktree.
package worktree
