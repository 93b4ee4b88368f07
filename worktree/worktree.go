package worktree

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Errors callers branch on; the errors returned wrap them with the details.
var (
	// ErrNotRepo: the directory is in no git working tree.
	ErrNotRepo = errors.New("not in a git repository")
	// ErrNoCommit: the repository has no commit yet, so there is no HEAD to
	// start from.
	ErrNoCommit = errors.New("the repository has no commit yet")
	// ErrBadName: the name is not allowed for a worktree and its branch.
	ErrBadName = errors.New("bad worktree name")
	// ErrExists: the branch melmux/NAME or the worktree's directory exists.
	ErrExists = errors.New("already exists")
	// ErrNotWorktree: the directory is not a worktree made by Add.
	ErrNotWorktree = errors.New("not a melmux worktree")
)

// BranchPrefix starts the name of every branch Add creates.
const BranchPrefix = "melmux/"

// baseFile is the file of the worktree's administrative directory that holds
// the commit it started from; baseBranchFile the branch (a full ref) that
// commit was checked out on, absent when it was detached.
const (
	baseFile       = "melmux-base"
	baseBranchFile = "melmux-base-branch"
)

// maxName bounds a worktree name, in bytes.
const maxName = 64

// Worktree is a checkout made by Add.
type Worktree struct {
	Name   string // the directory's name: NAME of melmux/NAME
	Path   string // its top directory
	Branch string // the branch it has checked out, "melmux/NAME" unless someone switched; "" when detached
	Base   string // the commit (full id) HEAD was at when it was made
	// BaseBranch is the branch HEAD was on when it was made ("main"), which
	// its changes are counted against once merged there; "" when HEAD was
	// detached (or for a worktree made by an older melmux).
	BaseBranch string
	Repo       string // the repository's main checkout (or its git directory, for a bare repository)
	// Note says what Add did besides making it: a half-made worktree of the
	// same name that it removed first. Empty otherwise, and from Open.
	Note   string
	admin  string // its administrative directory, once known (Add, Open): saves a git run per diff
	common string // the repository's git directory, once known (Add, Open)
}

// Root is where worktrees are made: $XDG_DATA_HOME/melmux/worktrees, by
// default ~/.local/share/melmux/worktrees.
func Root() string {
	base := os.Getenv("XDG_DATA_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil {
			home = os.TempDir()
		}
		base = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(base, "melmux", "worktrees")
}

// CheckName says whether name may name a worktree and its branch: 1 to 64
// letters, digits, '.', '_' or '-', starting with a letter or digit, with no
// ".." and not ending in ".lock" or '.' (which git refuses in a branch).
func CheckName(name string) error {
	bad := func(why string) error {
		return fmt.Errorf("%w %q: %s (use 1-%d letters, digits, '.', '_' or '-', starting with a letter or digit)", ErrBadName, name, why, maxName)
	}
	switch {
	case name == "":
		return bad("it is empty")
	case len(name) > maxName:
		return bad("it is " + strconv.Itoa(len(name)) + " bytes long")
	case !isAlnum(name[0]):
		return bad("it must start with a letter or digit")
	case strings.Contains(name, ".."):
		return bad(`it holds ".."`)
	case strings.HasSuffix(name, ".lock") || strings.HasSuffix(name, "."):
		return bad(`it ends in ".lock" or "."`)
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !isAlnum(c) && c != '.' && c != '_' && c != '-' {
			return bad(fmt.Sprintf("%q is not allowed in it", rune(c)))
		}
	}
	return nil
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// repoOf is what Add needs to know about the repository holding dir.
type repoOf struct {
	main   string // the main checkout (or the git directory of a bare repository)
	common string // the repository's git directory
	top    string // the top of dir's own working tree
	prefix string // dir relative to top ("" or "sub/dir/")
	head   string // HEAD's commit
	branch string // the branch HEAD is on (a full ref), "" when detached
}

func findRepo(ctx context.Context, dir string) (repoOf, error) {
	out, err := git(ctx, dir, nil, "rev-parse", "--path-format=absolute", "--git-common-dir", "--show-toplevel", "--show-prefix")
	if err != nil {
		if errors.Is(err, ErrNoGit) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return repoOf{}, err
		}
		if saysAny(err, "not a git repository", "must be run in a work tree", "cannot change to") {
			return repoOf{}, fmt.Errorf("%s is %w (a worktree is made from the repository a pane's directory is in)", dir, ErrNotRepo)
		}
		return repoOf{}, err
	}
	l := lines(out)
	if len(l) < 2 {
		return repoOf{}, fmt.Errorf("%s is %w: git rev-parse said %q", dir, ErrNotRepo, out)
	}
	r := repoOf{main: l[0], common: l[0], top: l[1]}
	if len(l) > 2 {
		r.prefix = l[2]
	}
	if filepath.Base(r.main) == ".git" {
		r.main = filepath.Dir(r.main)
	}
	head, err := git(ctx, dir, nil, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil {
		return repoOf{}, fmt.Errorf("the repository of %s: %w: a worktree starts from HEAD (commit something first)", dir, ErrNoCommit)
	}
	r.head = strings.TrimSpace(head)
	// Exit 1 is a detached HEAD, which has no branch to follow.
	if ref, err := git(ctx, dir, nil, "symbolic-ref", "--quiet", "HEAD"); err == nil {
		r.branch = strings.TrimSpace(ref)
	}
	return r, nil
}

// repoDir is the directory of root that holds the worktrees of the
// repository whose main checkout is main: its name, and a short hash of its
// path so that two repositories of the same name never share one.
func repoDir(root, main string) string {
	sum := sha256.Sum256([]byte(main))
	name := strings.TrimSuffix(filepath.Base(main), ".git")
	if name == "" || name == "." || name == string(filepath.Separator) {
		name = "repo"
	}
	return filepath.Join(root, name+"-"+hex.EncodeToString(sum[:3]))
}

// Add makes a worktree named name for the repository holding dir: branch
// melmux/NAME from dir's HEAD, checked out in root/<repo>/NAME. It returns
// the worktree and the directory in it matching dir (its top when dir's
// subdirectory does not exist there, being untracked). A name or directory
// in use is ErrExists; dir outside any repository is ErrNotRepo.
func Add(ctx context.Context, root, dir, name string) (Worktree, string, error) {
	if err := CheckName(name); err != nil {
		return Worktree{}, "", err
	}
	r, err := findRepo(ctx, dir)
	if err != nil {
		return Worktree{}, "", err
	}
	return add(ctx, root, dir, name, r)
}

// AddFree is Add for a name chosen by melmux: stem, else stem-2, stem-3...
// the first one whose branch and directory are free.
func AddFree(ctx context.Context, root, dir, stem string) (Worktree, string, error) {
	if err := CheckName(stem); err != nil {
		return Worktree{}, "", err
	}
	r, err := findRepo(ctx, dir)
	if err != nil {
		return Worktree{}, "", err
	}
	for i := 1; ; i++ {
		name := stem
		if i > 1 {
			name = stem + "-" + strconv.Itoa(i)
		}
		w, start, err := add(ctx, root, dir, name, r)
		if !errors.Is(err, ErrExists) || i == 100 {
			return w, start, err
		}
	}
}

func add(ctx context.Context, root, dir, name string, r repoOf) (Worktree, string, error) {
	branch := BranchPrefix + name
	rdir := repoDir(root, r.main)
	path := filepath.Join(rdir, name)
	if err := privateDirs(root, rdir); err != nil {
		return Worktree{}, "", fmt.Errorf("worktree %q: %w", name, err)
	}
	note, err := clearHalf(ctx, r, path)
	if err != nil {
		return Worktree{}, "", fmt.Errorf("worktree %q: %w", name, err)
	}
	if _, err := git(ctx, dir, nil, "show-ref", "--verify", "--quiet", "refs/heads/"+branch); err == nil {
		return Worktree{}, "", fmt.Errorf("worktree %q: branch %s %w in %s (an earlier pane's work is kept on it): choose another name, or delete the branch", name, branch, ErrExists, r.main)
	}
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		return Worktree{}, "", fmt.Errorf("worktree %q: the directory %s %w: choose another name (`melmux worktree clean` removes finished ones)", name, path, ErrExists)
	}
	// Locked until its base is recorded, by a reason naming this process:
	// whatever is left when either git or melmux dies on the way is known
	// for melmux's and for dead, and removed (clearHalf, Clean).
	reason := makingReason()
	if _, err := git(ctx, dir, nil, "worktree", "add", "--quiet", "--lock", "--reason", reason, "-b", branch, path, r.head); err != nil {
		if saysAny(err, "already exists") {
			return Worktree{}, "", fmt.Errorf("worktree %q: %w: %v", name, ErrExists, err)
		}
		return Worktree{}, "", fmt.Errorf("worktree %q: %w%s", name, err, undoAdd(context.WithoutCancel(ctx), r, path, branch, reason))
	}
	w := Worktree{Name: name, Path: path, Branch: branch, Base: r.head, BaseBranch: strings.TrimPrefix(r.branch, "refs/heads/"),
		Repo: r.main, Note: note, common: r.common}
	admin, err := recordBase(ctx, w)
	w.admin = admin
	if err == nil {
		// git makes it as the umask says: private, as the directories
		// above it are.
		if cerr := os.Chmod(path, 0o700); cerr != nil {
			err = fmt.Errorf("worktree %q: %w", name, cerr)
		}
	}
	if err == nil {
		if _, uerr := git(ctx, dir, nil, "worktree", "unlock", path); uerr != nil {
			err = fmt.Errorf("worktree %q: %w", name, uerr)
		}
	}
	if err != nil {
		// Best effort: a worktree without its base is of no use to melmux.
		_ = w.remove(context.WithoutCancel(ctx))
		return Worktree{}, "", err
	}
	start := path
	if r.prefix != "" {
		if fi, err := os.Stat(filepath.Join(path, r.prefix)); err == nil && fi.IsDir() {
			start = filepath.Join(path, r.prefix)
		}
	}
	return w, start, nil
}

// privateDirs makes the worktrees' root and the repository's directory in
// it 0700 (and what is missing above them), tightening either when it is
// looser: a worktree is a copy of a repository its owner may keep in a
// private directory, and must be no more readable than that.
func privateDirs(dirs ...string) error {
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
		fi, err := os.Stat(d)
		if err != nil {
			return err
		}
		if fi.Mode().Perm() != 0o700 {
			if err := os.Chmod(d, 0o700); err != nil {
				return fmt.Errorf("%s is mode %v and cannot be made 0700: %w", d, fi.Mode().Perm(), err)
			}
		}
	}
	return nil
}

// commonDir is the repository's git directory.
func (w Worktree) commonDir(ctx context.Context) (string, error) {
	if w.common != "" {
		return w.common, nil
	}
	out, err := git(ctx, w.Path, nil, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(out), nil
}

// adminDir is the worktree's administrative directory (.git/worktrees/NAME).
func (w Worktree) adminDir(ctx context.Context) (string, error) {
	if w.admin != "" {
		return w.admin, nil
	}
	out, err := git(ctx, w.Path, nil, "rev-parse", "--path-format=absolute", "--git-dir")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(out), nil
}

// recordBase writes the base commit into the worktree's administrative
// directory, which it returns.
func recordBase(ctx context.Context, w Worktree) (string, error) {
	admin, err := w.adminDir(ctx)
	if err != nil {
		return "", fmt.Errorf("worktree %q: %w", w.Name, err)
	}
	if err := os.WriteFile(filepath.Join(admin, baseFile), []byte(w.Base+"\n"), 0o644); err != nil {
		return admin, fmt.Errorf("worktree %q: record its base commit: %w", w.Name, err)
	}
	if w.BaseBranch != "" {
		if err := os.WriteFile(filepath.Join(admin, baseBranchFile), []byte("refs/heads/"+w.BaseBranch+"\n"), 0o644); err != nil {
			return admin, fmt.Errorf("worktree %q: record its base branch: %w", w.Name, err)
		}
	}
	return admin, nil
}

// Open reads the worktree made by Add whose top directory is path.
func Open(ctx context.Context, path string) (Worktree, error) {
	out, err := git(ctx, path, nil, "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-dir", "--git-common-dir", "--symbolic-full-name", "HEAD")
	if err != nil {
		if saysAny(err, "not a git repository", "cannot change to", "must be run in a work tree") {
			return Worktree{}, fmt.Errorf("%s: %w (not a git checkout)", path, ErrNotWorktree)
		}
		return Worktree{}, err
	}
	l := lines(out)
	if len(l) < 3 {
		return Worktree{}, fmt.Errorf("%s: %w: git rev-parse said %q", path, ErrNotWorktree, out)
	}
	top, admin, common := l[0], l[1], l[2]
	if real, err := filepath.EvalSymlinks(path); err == nil && real != top {
		return Worktree{}, fmt.Errorf("%s: %w (it lies inside the checkout %s)", path, ErrNotWorktree, top)
	}
	base, err := os.ReadFile(filepath.Join(admin, baseFile))
	if err != nil {
		return Worktree{}, fmt.Errorf("%s: %w (no base commit recorded in %s)", path, ErrNotWorktree, admin)
	}
	w := Worktree{Name: filepath.Base(top), Path: top, Base: strings.TrimSpace(string(base)), Repo: common, admin: admin, common: common}
	// Absent for a detached base, or from an older melmux: counted from
	// the base commit, as then.
	if ref, err := os.ReadFile(filepath.Join(admin, baseBranchFile)); err == nil {
		w.BaseBranch = strings.TrimPrefix(strings.TrimSpace(string(ref)), "refs/heads/")
	}
	if filepath.Base(common) == ".git" {
		w.Repo = filepath.Dir(common)
	}
	if len(l) > 3 {
		w.Branch = strings.TrimPrefix(l[3], "refs/heads/")
		if w.Branch == "HEAD" {
			w.Branch = ""
		}
	}
	return w, nil
}
