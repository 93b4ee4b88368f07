package worktree

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// A review is how melmux reads a worktree (Diff, Count, Status, and
// Clean's look into a half-made one) without running any program that the
// repository's configuration names. An agent writes that configuration from
// its own checkout (`git config` in a linked worktree writes the shared
// .git/config, or its config.worktree), and those reads happen while a
// person reviews its work, or every few seconds for a border, so they must
// not run what it wrote: core.fsmonitor, diff.*.textconv, diff.external and
// diff.*.command, filter.*.clean/smudge/process (named per path by
// .gitattributes, so no -c per name can be sure to cover them all),
// core.hooksPath and the hooks directory (git add runs post-index-change).
//
// So git runs with a private git directory of melmux's: its config holds
// only the keys of reviewKeys, copied from the repository's effective
// configuration (every scope, includes followed), none of which names a
// program; global and system configuration are not read at all
// (GIT_CONFIG_GLOBAL=/dev/null, GIT_CONFIG_NOSYSTEM); its objects are the
// repository's (GIT_OBJECT_DIRECTORY: none of these commands writes one);
// HEAD is the commit asked for; the index is a copy of the worktree's (so
// neither the real index nor its lock is ever touched); info (exclude,
// attributes) and shallow are links to the repository's. There are no
// hooks, no filter, textconv or diff drivers, no fsmonitor, no promisor
// remote, and no submodule's configuration: every command also ignores
// submodules' work trees (--ignore-submodules), which git would read by
// running git in them.
type review struct {
	dir  string // the private git directory
	path string // the worktree it reads
	env  []string
}

// reviewKeys are the configuration keys a review keeps: what decides what a
// worktree's files are and how its changes read (file modes, symlinks,
// line endings, case, stat checks, ignore and attributes files, renames, the
// diff algorithm) and the repository's format. None runs anything.
var reviewKeys = map[string]bool{
	"core.repositoryformatversion": true, "extensions.objectformat": true,
	"core.filemode": true, "core.symlinks": true, "core.ignorecase": true, "core.precomposeunicode": true,
	"core.protecthfs": true, "core.protectntfs": true, "core.trustctime": true, "core.checkstat": true,
	"core.autocrlf": true, "core.eol": true, "core.excludesfile": true, "core.attributesfile": true,
	"core.quotepath": true, "core.bigfilethreshold": true,
	"diff.renames": true, "diff.renamelimit": true, "diff.algorithm": true, "diff.indentheuristic": true,
	"diff.context": true, "diff.interhunkcontext": true, "status.renames": true, "status.renamelimit": true,
}

// configTTL is how long a border's count may go on with the configuration
// it read: one git run less per count, and a configuration change (of line
// endings, say) shows within it. Diff and Clean read it afresh.
const configTTL = 30 * time.Second

// configs caches `git config --list` per worktree for counts.
var configs = struct {
	sync.Mutex // guards m
	m          map[string]readConfig
}{m: map[string]readConfig{}}

type readConfig struct {
	text string
	at   time.Time
}

// cachedConfig is the configuration last read in the worktree at path, if
// one is kept.
func cachedConfig(path string) (readConfig, bool) {
	configs.Lock()
	defer configs.Unlock()
	c, ok := configs.m[path]
	return c, ok
}

// configOf is the output of `git config -z --list` in the worktree at path;
// cached, at most configTTL old, when asked.
func configOf(ctx context.Context, path string, cached bool) (string, error) {
	if cached {
		if c, ok := cachedConfig(path); ok && time.Since(c.at) < configTTL {
			return c.text, nil
		}
	}
	at := time.Now()
	text, err := git(ctx, path, nil, "config", "-z", "--list")
	if err != nil {
		return "", err
	}
	configs.Lock()
	defer configs.Unlock()
	for p, c := range configs.m {
		if time.Since(c.at) >= configTTL {
			delete(configs.m, p)
		}
	}
	configs.m[path] = readConfig{text: text, at: at}
	return text, nil
}

// openReview makes the private git directory for reading the worktree at
// path, whose administrative directory is admin ("" when unknown: no index
// is copied) in the repository whose git directory is common, with HEAD at
// head, and the configuration as configOf reads it. When the worktree has
// no index, head's tree is read into a fresh one. Close it when done.
func openReview(ctx context.Context, path, admin, common, head string, cachedConfig bool) (*review, error) {
	conf, err := configOf(ctx, path, cachedConfig)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "melmux-review-*")
	if err != nil {
		return nil, fmt.Errorf("a private git directory: %w", err)
	}
	r := &review{dir: dir, path: path}
	done := false
	defer func() {
		if !done {
			r.close()
		}
	}()
	// As few files as git needs (a directory costs most to make): refs/
	// must exist; objects are the repository's (GIT_OBJECT_DIRECTORY).
	if err := os.Mkdir(filepath.Join(dir, "refs"), 0o700); err != nil {
		return nil, fmt.Errorf("a private git directory: %w", err)
	}
	for name, text := range map[string]string{"HEAD": head + "\n", "config": reviewConfig(conf)} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			return nil, fmt.Errorf("a private git directory: %w", err)
		}
	}
	for _, name := range []string{"info", "shallow"} {
		if _, err := os.Lstat(filepath.Join(common, name)); err == nil {
			if err := os.Symlink(filepath.Join(common, name), filepath.Join(dir, name)); err != nil {
				return nil, fmt.Errorf("a private git directory: %w", err)
			}
		}
	}
	r.env = reviewEnv(dir, path, filepath.Join(common, "objects"))
	copied := false
	if admin != "" {
		if copied, err = r.copyIndex(admin); err != nil {
			return nil, fmt.Errorf("copy the worktree's index: %w", err)
		}
	}
	if !copied {
		// No index: start from head's tree, as git would.
		if _, err := r.git(ctx, "read-tree", head); err != nil {
			return nil, err
		}
	}
	done = true
	return r, nil
}

// copyIndex copies the index of the worktree whose administrative
// directory is admin, and links the shared indexes a split index refers to;
// it reports false when there is no index.
func (r *review) copyIndex(admin string) (bool, error) {
	dst, err := os.OpenFile(filepath.Join(r.dir, "index"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return false, err
	}
	src := filepath.Join(admin, "index")
	before, statErr := os.Stat(src)
	copied, err := copyInto(dst, src)
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil || !copied {
		os.Remove(dst.Name()) // an empty file is not an index
		return false, err
	}
	// The copy keeps the index's time: git takes an entry whose file is
	// not older than the index as racily clean and reads its content. With
	// the copy's own, later time, a file changed to the same size within
	// the same clock tick as its checkout looked unchanged.
	if statErr == nil {
		if err := os.Chtimes(dst.Name(), time.Time{}, before.ModTime()); err != nil {
			return false, err
		}
	}
	ents, err := os.ReadDir(admin)
	if err != nil {
		return false, err
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "sharedindex.") {
			if err := os.Symlink(filepath.Join(admin, e.Name()), filepath.Join(r.dir, e.Name())); err != nil {
				return false, err
			}
		}
	}
	return true, nil
}

// copyInto copies the file at path into dst; a missing file copies nothing
// and reports false.
func copyInto(dst io.Writer, path string) (bool, error) {
	src, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer src.Close()
	_, err = io.Copy(dst, src)
	return err == nil, err
}

// reviewConfig is the private config: the keys of reviewKeys from conf,
// the output of `git config -z --list` ("KEY\nVALUE\0", or "KEY\0" for a
// key with no value), in their order, so the last value of a key still wins.
func reviewConfig(conf string) string {
	var b strings.Builder
	for _, entry := range strings.Split(conf, "\x00") {
		key, value, hasValue := strings.Cut(entry, "\n")
		if !reviewKeys[key] {
			continue
		}
		i := strings.LastIndexByte(key, '.')
		fmt.Fprintf(&b, "[%s]\n\t%s", key[:i], key[i+1:])
		if hasValue {
			b.WriteString(" = " + quoteConfig(value))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// quoteConfig writes a value as git's config syntax reads it back whole.
func quoteConfig(v string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`, "\b", `\b`)
	return `"` + r.Replace(v) + `"`
}

// reviewEnv is cleanEnv without any configuration from the environment
// (what the snapshot needed of it is in the private config), pointed at
// the private git directory and the worktree, reading no global or system
// configuration.
func reviewEnv(dir, path, objects string) []string {
	var env []string
	for _, kv := range cleanEnv() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "GIT_CONFIG") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GIT_DIR="+dir, "GIT_WORK_TREE="+path, "GIT_OBJECT_DIRECTORY="+objects,
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
}

// git runs git over the worktree through the private directory.
func (r *review) git(ctx context.Context, args ...string) (string, error) {
	out, _, err := gitIn(ctx, r.path, r.env, 0, args...)
	return out, err
}

// gitLimited is git keeping at most limit bytes of the output.
func (r *review) gitLimited(ctx context.Context, limit int, args ...string) (string, bool, error) {
	return gitIn(ctx, r.path, r.env, limit, args...)
}

func (r *review) close() { os.RemoveAll(r.dir) }
