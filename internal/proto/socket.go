package proto

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// ValidateSessionName refuses names that cannot be a socket file name.
func ValidateSessionName(name string) error {
	if name == "" || len(name) > 64 || strings.ContainsAny(name, "/\x00") || name == "." || name == ".." {
		return fmt.Errorf("session name %q is not allowed: use 1-64 characters without '/'", name)
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
