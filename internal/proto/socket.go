package proto

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"unicode"
	"unicode/utf8"
)

// DefaultSession is the session name when neither -s nor $MELMUX_SESSION says.
const DefaultSession = "main"

// SessionName picks the session: the flag, else $MELMUX_SESSION, else "main".
func SessionName(flag string) string {
	if flag != "" {
		return flag
	}
	if s := os.Getenv("MELMUX_SESSION"); s != "" {
		return s
	}
	return DefaultSession
}

// ValidateSessionName refuses names that cannot be a socket file name, or
// that would garble the lines they are printed in: '/', control characters
// (newline, tab, escape...), invalid UTF-8.
func ValidateSessionName(name string) error {
	bad := name == "" || len(name) > 64 || name == "." || name == ".." || !utf8.ValidString(name)
	for _, r := range name {
		if r == '/' || unicode.IsControl(r) {
			bad = true
		}
	}
	if bad {
		return fmt.Errorf("session name %q is not allowed: use 1-64 characters without '/' or control characters", name)
	}
	return nil
}

// SocketDir is ${XDG_RUNTIME_DIR:-/tmp}/melmux-UID.
func SocketDir() string {
	base := os.Getenv("XDG_RUNTIME_DIR")
	if base == "" {
		base = "/tmp"
	}
	return filepath.Join(base, fmt.Sprintf("melmux-%d", os.Getuid()))
}

// SocketPath is where the session's server listens: $MELMUX_SOCKET when set
// and no session was named explicitly, else SocketDir()/NAME.sock.
func SocketPath(flag string) string {
	if flag == "" {
		if p := os.Getenv("MELMUX_SOCKET"); p != "" {
			return p
		}
	}
	return filepath.Join(SocketDir(), SessionName(flag)+".sock")
}

// ErrUnsafeSocket is wrapped by the errors of CheckSocketDir and CheckPeer:
// the socket could be another user's, so nothing is sent through it.
var ErrUnsafeSocket = errors.New("unsafe socket")

// CheckSocketDir refuses a directory in which another user could put a
// socket of theirs in place of the session's. It must be a directory itself
// (not a symlink to one: lstat), and either owned by this user and writable
// by no one else, or a shared directory with the sticky bit (as /tmp), owned
// by this user or root, where others cannot rename or remove what is ours.
// A directory that does not exist is returned as is (fs.ErrNotExist).
func CheckSocketDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	uid := os.Getuid()
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%w: the socket directory %s is a symlink; melmux uses only a real directory (remove the link)", ErrUnsafeSocket, dir)
	case !fi.IsDir():
		return fmt.Errorf("%w: the socket directory %s is not a directory", ErrUnsafeSocket, dir)
	case !ok:
		return nil // no owner to check on this system
	case fi.Mode()&fs.ModeSticky != 0 && (int(st.Uid) == uid || st.Uid == 0):
		return nil
	case int(st.Uid) != uid:
		return fmt.Errorf("%w: the socket directory %s belongs to uid %d, not to you (uid %d): another user could answer in the session's place (remove it, or set $XDG_RUNTIME_DIR or $MELMUX_SOCKET elsewhere)", ErrUnsafeSocket, dir, st.Uid, uid)
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("%w: the socket directory %s is mode %04o: others may write in it and replace the session's socket (chmod 700 %s)", ErrUnsafeSocket, dir, fi.Mode().Perm(), dir)
	}
	return nil
}

// PeerUID returns the uid of the process at the other end of a unix socket
// (SO_PEERCRED): for a server, the client's; for a client, the server's.
func PeerUID(c net.Conn) (int, error) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return -1, errors.New("not a unix socket")
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return -1, err
	}
	var cred *syscall.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return -1, err
	}
	if cerr != nil {
		return -1, cerr
	}
	return int(cred.Uid), nil
}

// CheckPeer refuses a server that runs as another user: whatever is sent to
// it (keys typed into panes) would go to them.
func CheckPeer(c net.Conn, sock string) error {
	uid, err := PeerUID(c)
	if err != nil {
		return fmt.Errorf("%w: who listens on %s cannot be checked: %v", ErrUnsafeSocket, sock, err)
	}
	if uid != os.Getuid() {
		return fmt.Errorf("%w: the server on %s runs as uid %d, not as you (uid %d); nothing was sent to it", ErrUnsafeSocket, sock, uid, os.Getuid())
	}
	return nil
}
