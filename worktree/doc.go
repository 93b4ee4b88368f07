// Package worktree gives a pane its own git checkout, so agents working side
// by side on one repository never edit the same files.
//
// Everything goes through the git command line (git 2.32 or later). Of
// git's files melmux writes two: Add records the commit a worktree started
// from in a file `melmux-base` of the worktree's administrative directory
// (.git/worktrees/NAME/), where git keeps its own per-worktree state and
// which `git worktree remove` deletes with it, and the branch that commit
// was on, its base branch, in `melmux-base-branch`. It reads those files,
// and the worktree's index, to copy it (see review.go). Diff and Count
// compare against From: the merge-base of the worktree's HEAD and its base
// branch, never older than the base commit; so a worktree's changes are
// what it did since it was made, committed or not, less what a merge that
// keeps its commits has brought into the base branch.
//
// Worktrees live outside the repository, under Root()/<repo>-<hash>/NAME
// (Root is $XDG_DATA_HOME/melmux/worktrees), on branch melmux/NAME. Root,
// the repository's directory and the worktree are 0700: a worktree copies
// a repository its owner may keep private.
//
// Reading a worktree (Diff, Count, and Clean's Status) runs no program that
// the repository's configuration names, since an agent can write that
// configuration from its own checkout: git runs over a private git directory
// holding a copy of the worktree's index and only the configuration keys
// that name no program (review.go says exactly what it keeps and why), so
// no hook, fsmonitor, textconv, external diff or filter ever runs, and
// neither the real index nor its lock is touched. Untracked files (not
// ignored) are marked intent-to-add in that copy, so diffs show them. Every
// other git command melmux runs but `git worktree add` runs with no hooks
// and no fsmonitor. `git worktree add` runs as a person's would: its
// checkout runs the repository's post-checkout hook and smudge filters.
//
// Clean removes the worktrees that hold nothing unsaved: no uncommitted or
// untracked change, and a branch that either has no commit of its own or is
// merged into the branch checked out in the repository's main checkout. A
// worktree it cannot judge, for whatever error, is kept. It checks through
// a review and then forces `git worktree remove`, whose own check would run
// `git status` with the repository's configuration; it still refuses, as git
// does, worktrees with submodules and locked ones.
//
// Commit and Merge (act.go) are what a person asks of a worktree by name,
// so, unlike reading one, they run git as the person's would: hooks and
// filters run. Retire removes a worktree whose pane is done with it;
// Processes and Inside find, from /proc, who still works in one.
//
// Add locks a worktree while making it, with a reason naming its process,
// so that what a killed `git worktree add` or a dead melmux leaves is known
// for half-made; Add of the same name and Clean remove those when they hold
// nothing but their checkout (half.go).
//
// The package knows nothing of panes or sessions; the server records which
// pane works in which worktree.
package worktree
