package server

import (
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/testreq"
)

func listenAt(sock string) (*Server, error) {
	s := New(Config{Name: "t", SocketPath: sock, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err := s.Listen(); err != nil {
		return nil, err
	}
	return s, nil
}

func modeOf(t *testing.T, path string) fs.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode() & (fs.ModePerm | fs.ModeSticky)
}

// The server does not put its socket in a directory others could write in
// or that is a symlink, and leaves such a directory as it found it.
func TestListenRefusesAnUnsafeDirectory(t *testing.T) {
	base := t.TempDir()
	open := filepath.Join(base, "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	_, err := listenAt(filepath.Join(open, "s.sock"))
	if !errors.Is(err, proto.ErrUnsafeSocket) {
		t.Fatalf("a 0777 directory: %v", err)
	}
	if m := modeOf(t, open); m != 0o777 {
		t.Fatalf("the server changed the directory's mode to %v", m)
	}
	// A symlink to a directory of this user's (as another user could plant
	// at the /tmp fallback): not followed, and its target is not chmodded.
	target := filepath.Join(base, "mine")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "melmux-link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	_, err = listenAt(filepath.Join(link, "s.sock"))
	if !errors.Is(err, proto.ErrUnsafeSocket) || !strings.Contains(err.Error(), "is a symlink") {
		t.Fatalf("a symlinked directory: %v", err)
	}
	if m := modeOf(t, target); m != 0o755 {
		t.Fatalf("the symlink's target became %v", m)
	}
	if _, err := os.Lstat(filepath.Join(target, "s.sock")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a socket was put behind the symlink: %v", err)
	}
	t.Run("another uid's directory", func(t *testing.T) {
		testreq.Root(t, "to give a directory to another uid")
		theirs := filepath.Join(base, "theirs")
		if err := os.Mkdir(theirs, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(theirs, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if _, err := listenAt(filepath.Join(theirs, "s.sock")); !errors.Is(err, proto.ErrUnsafeSocket) {
			t.Fatalf("a directory of uid 65534: %v", err)
		}
	})
}

// $MELMUX_SOCKET may name any path: only a stale socket there is removed,
// and a shared directory keeps its mode.
func TestListenRemovesOnlyAStaleSocket(t *testing.T) {
	base := t.TempDir()
	notes := filepath.Join(base, "notes.txt")
	if err := os.WriteFile(notes, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := listenAt(notes)
	if err == nil || !strings.Contains(err.Error(), "is not a socket (a regular file)") {
		t.Fatalf("a regular file at the socket path: %v", err)
	}
	if b, err := os.ReadFile(notes); err != nil || string(b) != "keep me" {
		t.Fatalf("the file at the socket path was destroyed: %q %v", b, err)
	}
	// A stale socket: its server is gone, the file stayed.
	stale := filepath.Join(base, "stale.sock")
	ln, err := net.Listen("unix", stale)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	s, err := listenAt(stale)
	if err != nil {
		t.Fatalf("a stale socket was not replaced: %v", err)
	}
	s.ln.Close()
	// A scratch directory anyone may write in, with the sticky bit: used
	// as it is.
	scratch := filepath.Join(base, "scratch")
	if err := os.Mkdir(scratch, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(scratch, 0o777|fs.ModeSticky); err != nil {
		t.Fatal(err)
	}
	s, err = listenAt(filepath.Join(scratch, "s.sock"))
	if err != nil {
		t.Fatalf("a sticky scratch directory: %v", err)
	}
	s.ln.Close()
	if m := modeOf(t, scratch); m != 0o777|fs.ModeSticky {
		t.Fatalf("the scratch directory became %v", m)
	}
}
