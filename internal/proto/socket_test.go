package proto

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/melmux/melmux/internal/testreq"
)

func TestValidateSessionName(t *testing.T) {
	for _, ok := range []string{"main", "work-2", "my session", "été", strings.Repeat("x", 64)} {
		if err := ValidateSessionName(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", ".", "..", "a/b", "a\nb", "a\rb", "tab\there", "esc\x1b[31m", "nul\x00", "del\x7f", "c1\u0085", "\xff\xfe", strings.Repeat("x", 65)} {
		err := ValidateSessionName(bad)
		if err == nil {
			t.Errorf("%q accepted", bad)
			continue
		}
		if !strings.Contains(err.Error(), "without '/' or control characters") {
			t.Errorf("%q: the error does not say what is allowed: %v", bad, err)
		}
	}
}

// mkdir makes dir with exactly mode perm (no umask).
func mkdir(t *testing.T, dir string, perm fs.FileMode) string {
	t.Helper()
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, perm); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestCheckSocketDir(t *testing.T) {
	base := t.TempDir()
	own := mkdir(t, filepath.Join(base, "own"), 0o700)
	readable := mkdir(t, filepath.Join(base, "readable"), 0o755)
	sticky := mkdir(t, filepath.Join(base, "sticky"), 0o777|fs.ModeSticky)
	if err := os.Chmod(sticky, 0o777|fs.ModeSticky); err != nil {
		t.Fatal(err)
	}
	open := mkdir(t, filepath.Join(base, "open"), 0o777)
	group := mkdir(t, filepath.Join(base, "group"), 0o770)
	link := filepath.Join(base, "link")
	if err := os.Symlink(own, link); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{own, readable, sticky} {
		if err := CheckSocketDir(dir); err != nil {
			t.Errorf("%s refused: %v", filepath.Base(dir), err)
		}
	}
	for dir, want := range map[string]string{
		open:  "is mode 0777: others may write in it",
		group: "is mode 0770: others may write in it",
		link:  "is a symlink",
		file:  "is not a directory",
	} {
		err := CheckSocketDir(dir)
		if !errors.Is(err, ErrUnsafeSocket) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an ErrUnsafeSocket saying %q", filepath.Base(dir), err, want)
		}
	}
	if err := CheckSocketDir(filepath.Join(base, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing directory: %v, want fs.ErrNotExist", err)
	}
	// Checking changes nothing.
	if fi, err := os.Stat(open); err != nil || fi.Mode().Perm() != 0o777 {
		t.Errorf("the check changed the mode of a directory: %v %v", fi.Mode(), err)
	}
}

// A directory another user owns is refused, however tight its mode (root
// can make one; other users skip).
func TestCheckSocketDirOfAnotherUser(t *testing.T) {
	testreq.Root(t, "to give a directory to another uid")
	dir := mkdir(t, filepath.Join(t.TempDir(), "theirs"), 0o700)
	if err := os.Chown(dir, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	err := CheckSocketDir(dir)
	if !errors.Is(err, ErrUnsafeSocket) || !strings.Contains(err.Error(), "belongs to uid 65534, not to you (uid 0)") {
		t.Fatalf("a directory of uid 65534: %v", err)
	}
	sticky := mkdir(t, filepath.Join(t.TempDir(), "shared"), 0o777)
	if err := os.Chmod(sticky, 0o777|fs.ModeSticky); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(sticky, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if err := CheckSocketDir(sticky); !errors.Is(err, ErrUnsafeSocket) {
		t.Fatalf("a sticky directory another user owns: %v", err)
	}
}
