package worktree

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

// Half-made worktrees. `git worktree add` makes the branch, then the
// worktree's administrative directory (locked), its directory and .git
// file, then checks the files out and unlocks it; melmux then records the
// base. Killed on the way (kill -9, a timeout, a crash or a reboot), it
// leaves a branch, a locked entry, and a directory holding part of a
// checkout, or nothing, or no .git: a name that cannot be used again, and a
// worktree Clean could not open. Add therefore locks the worktree with a
// reason naming the process making it (makingReason) and unlocks it only
// once the base is recorded. A worktree under the root locked by a melmux
// process that is gone, or with git's own "initializing" (a git worktree
// add that never finished, as older melmux left them), is half-made:
// nobody was ever given it to work in. Add removes a half-made one of the
// name it is asked for, Clean every one, both only when it holds nothing
// but (part of) its checkout.

// makingPrefix starts the reason of the lock Add holds while making a
// worktree; makingRe reads it back.
const makingPrefix = "melmux is making it"

var makingRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^melmux is making it \(process (\d+), start (\d+), add \d+\)$`)
})

// addSeq tells apart the Adds of one process.
var addSeq atomic.Int64

// makingReason is the lock reason of one Add: the process (its id and start
// time, so a process that reuses the id after a reboot is not taken for it)
// and which of its Adds.
func makingReason() string {
	start, _ := procStart(os.Getpid())
	return fmt.Sprintf("%s (process %d, start %d, add %d)", makingPrefix, os.Getpid(), start, addSeq.Add(1))
}

// gitsOwnLock is the reason `git worktree add` locks with until it is done
// (in the C locale melmux runs git in).
const gitsOwnLock = "initializing"

// staleLock reads a lock's reason: whether it is a half-made worktree's,
// and what the lock is, said for a person.
func staleLock(reason string) (stale bool, what string) {
	if reason == gitsOwnLock {
		return true, `locked "initializing" by a git worktree add that did not finish`
	}
	m := makingRe().FindStringSubmatch(reason)
	if m == nil {
		if reason == "" {
			return false, "locked (`git worktree unlock` frees it)"
		}
		return false, fmt.Sprintf("locked: %s (`git worktree unlock` frees it)", reason)
	}
	pid, _ := strconv.Atoi(m[1])
	start, _ := strconv.ParseUint(m[2], 10, 64)
	if processAlive(pid, start) {
		return false, fmt.Sprintf("being made by melmux process %d", pid)
	}
	return true, fmt.Sprintf("its making by melmux process %d did not finish (the process is gone)", pid)
}

// processAlive reports whether process pid runs and, where /proc tells a
// process's start time and start is not 0, is the one that started then.
func processAlive(pid int, start uint64) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	if now, ok := procStart(pid); ok && start != 0 {
		return now == start
	}
	return true
}

// procStart is the start time of process pid in clock ticks since boot
// (field 22 of /proc/PID/stat), when /proc tells it.
func procStart(pid int) (uint64, bool) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, false
	}
	// The command name, field 2, is in parentheses and may hold anything.
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 {
		return 0, false
	}
	fields := strings.Fields(string(data[i+1:]))
	if len(fields) < 20 {
		return 0, false
	}
	start, err := strconv.ParseUint(fields[19], 10, 64)
	return start, err == nil
}

// listed is one worktree of `git worktree list --porcelain`.
type listed struct {
	path   string
	head   string // the commit it has checked out ("" when git could not tell)
	branch string // refs/heads/..., "" when detached
	locked bool
	reason string
}

// listWorktrees lists the worktrees of the repository whose main checkout
// (or git directory) is repo.
func listWorktrees(ctx context.Context, repo string) ([]listed, error) {
	out, err := git(ctx, repo, nil, "worktree", "list", "--porcelain", "-z")
	if err != nil {
		return nil, err
	}
	var all []listed
	var cur *listed
	for _, f := range strings.Split(out, "\x00") {
		key, value, _ := strings.Cut(f, " ")
		switch {
		case f == "":
			cur = nil
		case key == "worktree":
			all = append(all, listed{path: value})
			cur = &all[len(all)-1]
		case cur == nil:
		case key == "HEAD":
			if strings.Trim(value, "0") != "" {
				cur.head = value
			}
		case key == "branch":
			cur.branch = value
		case key == "locked":
			cur.locked, cur.reason = true, value
		}
	}
	return all, nil
}

// samePath is a path with its directory's symbolic links resolved, so that
// a path melmux made and the one git lists compare equal.
func samePath(p string) string {
	if real, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		return filepath.Join(real, filepath.Base(p))
	}
	return filepath.Clean(p)
}

// half is a half-made worktree: listed by its repository, locked by a
// making that did not finish.
type half struct {
	listed
	main   string // the repository's main checkout
	common string // the repository's git directory
	lock   string // what the lock is, for a person
}

// worktree is what a caller is told of h.
func (h half) worktree() Worktree {
	return Worktree{Name: filepath.Base(h.path), Path: h.path, Branch: strings.TrimPrefix(h.branch, "refs/heads/"), Repo: h.main, common: h.common}
}

// holdsNothing says whether h holds nothing but (part of) its checkout:
// its directory is missing or empty, or holds only its .git, or every file
// in it is one of its HEAD's, unchanged (files missing from a checkout cut
// short are allowed). why says what it holds otherwise.
func (h half) holdsNothing(ctx context.Context) (bool, string, error) {
	ents, err := os.ReadDir(h.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return true, "", nil
	case err != nil:
		return false, "", err
	case len(ents) == 0:
		return true, "", nil
	}
	if _, err := os.Lstat(filepath.Join(h.path, ".git")); err != nil {
		return false, fmt.Sprintf("it has %d entries but no .git file", len(ents)), nil
	}
	if len(ents) == 1 {
		return true, "", nil
	}
	if h.head == "" {
		return false, "it has files but git cannot tell its HEAD", nil
	}
	admin := ""
	if out, err := git(ctx, h.path, nil, "rev-parse", "--path-format=absolute", "--git-dir"); err == nil {
		admin = strings.TrimSpace(out)
	}
	r, err := openReview(ctx, h.path, admin, h.common, h.head, false)
	if err != nil {
		return false, "", err
	}
	defer r.close()
	out, err := r.git(ctx, "status", "--porcelain", "-z", "--untracked-files=all", "--ignore-submodules=all")
	if err != nil {
		return false, "", err
	}
	recs, err := statusRecords(out)
	if err != nil {
		return false, "", err
	}
	held := 0
	for _, rec := range recs {
		if rec[:2] != " D" {
			held++
		}
	}
	if held > 0 {
		return false, fmt.Sprintf("it holds %s", plural(held, "changed or untracked file")), nil
	}
	return true, "", nil
}

// remove deletes h, and its melmux/ branch when every commit on it is on
// another branch or tag too (else it stays, and the note says so).
func (h half) remove(ctx context.Context) (string, error) {
	if _, err := os.Lstat(filepath.Join(h.path, ".git")); errors.Is(err, fs.ErrNotExist) {
		// git will not remove a worktree whose .git is gone but whose
		// directory is there: holdsNothing found it empty.
		if err := os.Remove(h.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
	}
	if _, err := git(ctx, h.main, nil, "worktree", "remove", "--force", "--force", h.path); err != nil {
		return "", err
	}
	_ = os.Remove(filepath.Dir(h.path)) // Best effort, as in removeAt.
	name := strings.TrimPrefix(h.branch, "refs/heads/")
	if !strings.HasPrefix(name, BranchPrefix) || h.head == "" {
		return "", nil
	}
	out, err := git(ctx, h.main, nil, "for-each-ref", "--contains", h.head, "--format=%(refname)")
	if err != nil {
		return "", fmt.Errorf("the worktree is removed but its branch %s stays: %w", name, err)
	}
	for _, ref := range lines(out) {
		if ref != h.branch {
			if _, err := git(ctx, h.main, nil, "update-ref", "-d", h.branch, h.head); err != nil {
				return "", fmt.Errorf("the worktree is removed but its branch %s stays: %w", name, err)
			}
			return "", nil
		}
	}
	return fmt.Sprintf("; its branch %s stays: %s is on no other branch or tag", name, short(h.head)), nil
}

// halfAt is the half-made worktree listed at path by the repository r, if
// there is one; inProgress describes a worktree at path being made right
// now ("" otherwise).
func halfAt(ctx context.Context, main, common, path string) (h *half, inProgress string, err error) {
	all, err := listWorktrees(ctx, main)
	if err != nil {
		return nil, "", err
	}
	for _, l := range all {
		if samePath(l.path) != samePath(path) || !l.locked {
			continue
		}
		stale, what := staleLock(l.reason)
		if !stale {
			if strings.HasPrefix(l.reason, makingPrefix) {
				return nil, what, nil
			}
			return nil, "", nil
		}
		return &half{listed: l, main: main, common: common, lock: what}, "", nil
	}
	return nil, "", nil
}

// clearHalf removes a half-made worktree at path, which Add is about to
// make, and says what it did ("" when there was none). One that holds
// anything, or is being made right now, is ErrExists saying so.
func clearHalf(ctx context.Context, r repoOf, path string) (string, error) {
	h, making, err := halfAt(ctx, r.main, r.common, path)
	if err != nil {
		return "", err
	}
	if making != "" {
		return "", fmt.Errorf("%s %w: %s", path, ErrExists, making)
	}
	if h == nil {
		return "", nil
	}
	empty, why, err := h.holdsNothing(ctx)
	if err != nil {
		return "", fmt.Errorf("a half-made worktree is at %s (%s) and melmux could not tell what it holds: %w", path, h.lock, err)
	}
	if !empty {
		return "", fmt.Errorf("a half-made worktree (%s) %w at %s and %s: look at it, then `git worktree remove --force --force %s`", h.lock, ErrExists, path, why, path)
	}
	kept, err := h.remove(ctx)
	if err != nil {
		return "", fmt.Errorf("remove the half-made worktree at %s (%s): %w", path, h.lock, err)
	}
	return fmt.Sprintf("removed a half-made worktree of that name first (%s; nothing in it but its checkout)%s", h.lock, kept), nil
}

// undoAdd removes what a `git worktree add` that failed or was killed left
// at path, if it left anything and it is this call's (locked by reason, so
// never another Add's): the worktree, and the branch the call made at the
// base. It says what it did, for the error.
func undoAdd(ctx context.Context, r repoOf, path, branch, reason string) string {
	all, err := listWorktrees(ctx, r.main)
	if err != nil {
		return fmt.Sprintf("; what it left at %s could not be looked at: %v", path, err)
	}
	for _, l := range all {
		if samePath(l.path) != samePath(path) || l.reason != reason {
			continue
		}
		l.branch = "" // made by this call at the base: deleted below, not judged
		h := half{listed: l, main: r.main, common: r.common}
		if _, err := h.remove(ctx); err != nil {
			return fmt.Sprintf("; the half-made worktree it left at %s could not be removed: %v", path, err)
		}
		if _, err := git(ctx, r.main, nil, "update-ref", "-d", "refs/heads/"+branch, r.head); err != nil {
			return fmt.Sprintf("; the half-made worktree it left was removed, its branch %s stays: %v", branch, err)
		}
		return "; the half-made worktree and branch it left were removed"
	}
	return ""
}
