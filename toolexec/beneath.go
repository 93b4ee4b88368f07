package toolexec

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/melmux/melmux/internal/filekind"
)

// The file tools check a path (resolve) and then use it. Had they used it by
// name, a directory swapped for a symlink in between (renameat2 with
// RENAME_EXCHANGE, in a loop) would send the access outside the workspace.
// So an inside path is reached through a descriptor of the workspace root
// with os.Root, which walks the path one component at a time with openat and
// O_NOFOLLOW and follows a symlink only when it stays beneath the root;
// writes go through a descriptor of the parent directory (dirAt), where the
// temporary file is created and renamed (renameat), so the check and the
// write are one.

// openRoot opens the workspace root for one call.
func (e *Executor) openRoot() (*os.Root, error) {
	r, err := os.OpenRoot(e.root)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", e.root, err)
	}
	return r, nil
}

// openAt opens t with flag, beneath the root when t is inside it. O_NONBLOCK
// is always added: opening a named pipe without it blocks until a writer
// appears, which may be never. Callers check the type of what they got.
func (e *Executor) openAt(t target, flag int) (*os.File, error) {
	flag |= syscall.O_NONBLOCK | syscall.O_NOCTTY
	if t.rel == "" {
		return os.OpenFile(t.real, flag, 0)
	}
	ws, err := e.openRoot()
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	f, err := ws.OpenFile(t.rel, flag, 0)
	return f, describeEscape(t, err)
}

// statAt is os.Stat of t, beneath the root when t is inside it.
func (e *Executor) statAt(t target) (fs.FileInfo, error) {
	if t.rel == "" {
		return os.Stat(t.real)
	}
	ws, err := e.openRoot()
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	fi, err := ws.Stat(t.rel)
	return fi, describeEscape(t, err)
}

// readlinkAt is os.Readlink of name in directory t.
func (e *Executor) readlinkAt(t target, name string) (string, error) {
	if t.rel == "" {
		return os.Readlink(filepath.Join(t.real, name))
	}
	ws, err := e.openRoot()
	if err != nil {
		return "", err
	}
	defer ws.Close()
	return ws.Readlink(filepath.Join(t.rel, name))
}

// dirAt opens the directory that holds t, creating it (and its parents) when
// create is set, and returns it with t's name in it. Everything a write does
// then happens relative to that descriptor.
func (e *Executor) dirAt(t target, create bool) (*os.Root, string, error) {
	if t.rel == "." {
		return nil, "", fmt.Errorf("%s is the workspace root, a directory", t.shown)
	}
	parent := target{real: filepath.Dir(t.real), shown: path.Dir(t.shown)}
	if t.rel != "" {
		parent.rel = filepath.Dir(t.rel)
	}
	d, err := e.openDir(parent, create)
	if err != nil {
		return nil, "", describeEscape(t, err)
	}
	return d, filepath.Base(t.real), nil
}

// openDir opens the directory t as an os.Root, creating it and its parents
// first when create is set.
func (e *Executor) openDir(t target, create bool) (*os.Root, error) {
	if t.rel == "" {
		if create {
			if err := os.MkdirAll(t.real, 0o755); err != nil {
				return nil, fmt.Errorf("creating directory %s: %w", t.real, err)
			}
		}
		return os.OpenRoot(t.real)
	}
	ws, err := e.openRoot()
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	if create && t.rel != "." {
		if err := ws.MkdirAll(t.rel, 0o755); err != nil {
			return nil, fmt.Errorf("creating directory %s: %w", t.shown, describeEscape(t, err))
		}
	}
	d, err := ws.OpenRoot(t.rel)
	return d, describeEscape(t, err)
}

// errEscapes is os.Root's error for a path that leads out of it; os does
// not export it.
const errEscapes = "path escapes from parent"

// describeEscape turns os.Root's refusal to leave the root into
// ErrOutsideWorkspace: the path resolved inside, so a component was replaced
// by a symlink leading out while the call ran.
func describeEscape(t target, err error) error {
	if err == nil {
		return nil
	}
	for u := err; u != nil; u = errors.Unwrap(u) {
		if u.Error() == errEscapes {
			return fmt.Errorf("%w: %s now leads out of the workspace (a directory on its way was replaced by a symlink while the call ran)",
				ErrOutsideWorkspace, t.shown)
		}
	}
	return err
}

// errNotRegular is wrapped by the error for a path that is not a regular
// file where a tool reads or replaces one.
var errNotRegular = errors.New("not a regular file")

// openRegular opens t for reading, refusing anything but a regular file
// before a byte is read: a named pipe, a device or a socket could block
// forever or never end. The type is checked before the open (so a device is
// not even opened) and again on the descriptor (so a swap in between is
// caught). tool names the caller in errors; dirHint is what to say of a
// directory.
func (e *Executor) openRegular(t target, dirHint string) (*os.File, fs.FileInfo, error) {
	if fi, err := e.statAt(t); err == nil && !fi.Mode().IsRegular() {
		return nil, nil, notRegular(t, fi.Mode(), dirHint)
	}
	f, err := e.openAt(t, os.O_RDONLY)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", t.shown, err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, notRegular(t, fi.Mode(), dirHint)
	}
	return f, fi, nil
}

func notRegular(t target, m fs.FileMode, dirHint string) error {
	if m.IsDir() && dirHint != "" {
		return fmt.Errorf("%s is a directory; %s", t.shown, dirHint)
	}
	return fmt.Errorf("%s is %s, %w: only regular files can be used", t.shown, filekind.Of(m), errNotRegular)
}

// openDirWalk is openDirBeneath one component at a time: openat with
// O_NOFOLLOW and O_DIRECTORY from the root's descriptor down, so no symlink
// is followed and ".." is refused.
func openDirWalk(rootFd int, rel string) (int, error) {
	const flags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC | unix.O_NOFOLLOW
	fd, err := unix.Openat(rootFd, ".", flags, 0)
	if err != nil {
		return -1, err
	}
	for _, comp := range strings.Split(rel, "/") {
		if comp == "" || comp == "." {
			continue
		}
		if comp == ".." {
			unix.Close(fd)
			return -1, errors.New(errEscapes)
		}
		next, err := unix.Openat(fd, comp, flags, 0)
		unix.Close(fd)
		if err != nil {
			return -1, err
		}
		fd = next
	}
	return fd, nil
}
