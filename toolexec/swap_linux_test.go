package toolexec

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// A directory of the workspace is swapped, again and again, with a symlink
// to a directory outside it (renameat2 RENAME_EXCHANGE), while the file
// tools use paths through it. Each call resolves the path when the
// directory is real, so only the descriptor-relative access stands between
// the swap and a write or read outside.
func TestSymlinkSwapRace(t *testing.T) {
	w := newWorkspace(t)
	outside := t.TempDir()
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(outside, "secret.txt"), "OUTSIDE SECRET\n")
	write(filepath.Join(outside, "only-outside.txt"), "OUTSIDE SECRET too\n")
	w.write("d/secret.txt", "inside\n")
	if err := os.Symlink(outside, filepath.Join(w.root, "s")); err != nil {
		t.Fatal(err)
	}
	d, s := filepath.Join(w.root, "d"), filepath.Join(w.root, "s")

	stopSwapping := startSwapping(t, d, s)
	const rounds = 300
	var wrote, read, edited, listed int
	for i := 0; i < rounds; i++ {
		if r := w.run("write_file", obj{"path": fmt.Sprintf("d/new-%d.txt", i), "content": "x"}); !r.IsError {
			wrote++
		}
		if r := w.run("write_file", obj{"path": fmt.Sprintf("d/sub%d/deep.txt", i), "content": "x"}); !r.IsError {
			wrote++
		}
		if r := w.run("read_file", obj{"path": "d/secret.txt"}); !r.IsError {
			read++
			if strings.Contains(r.Text, "OUTSIDE") {
				t.Errorf("round %d: read_file read outside the workspace: %s", i, r.Text)
			}
		}
		if r := w.run("edit_file", obj{"path": "d/secret.txt", "old_string": "\n", "new_string": "\n\n"}); !r.IsError {
			edited++
			w.run("edit_file", obj{"path": "d/secret.txt", "old_string": "\n\n", "new_string": "\n"})
		}
		if r := w.run("list_dir", obj{"path": "d"}); !r.IsError {
			listed++
			if strings.Contains(r.Text, "only-outside.txt") {
				t.Errorf("round %d: list_dir listed outside the workspace: %s", i, r.Text)
			}
		}
		if r := w.run("grep", obj{"pattern": "OUTSIDE"}); strings.Contains(r.Text, "OUTSIDE SECRET") {
			t.Errorf("round %d: grep searched outside the workspace: %s", i, clip(r.Text, 300))
		}
		if r := w.run("find_files", obj{"pattern": "only-outside*"}); strings.Contains(r.Text, "only-outside.txt") {
			t.Errorf("round %d: find_files listed outside the workspace: %s", i, clip(r.Text, 300))
		}
		if r := w.run("write_plan", obj{"title": fmt.Sprintf("plan %d", i), "markdown": "x"}); r.IsError {
			t.Errorf("write_plan: %s", r.Text)
		}
	}
	swaps := stopSwapping()
	if noOpenat2.Load() {
		t.Log("openat2 is not available: the walk used the component walk")
	}
	t.Logf("%d swaps; of %d rounds: %d writes, %d reads, %d edits, %d listings succeeded", swaps, rounds, wrote, read, edited, listed)
	entries, _ := os.ReadDir(outside)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	if strings.Join(names, " ") != "only-outside.txt secret.txt" {
		t.Errorf("the outside directory now holds %d entries: %v", len(names), clip(strings.Join(names, " "), 400))
	}
	if data, _ := os.ReadFile(filepath.Join(outside, "secret.txt")); string(data) != "OUTSIDE SECRET\n" {
		t.Errorf("the outside secret was changed to %q", data)
	}
	if wrote == 0 || read == 0 {
		t.Errorf("no call succeeded (%d writes, %d reads): the test proves nothing", wrote, read)
	}

	// AllowOutside follows the link on purpose.
	w.ex.AllowOutside = true
	if fi, err := os.Lstat(s); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		unix.Renameat2(unix.AT_FDCWD, d, unix.AT_FDCWD, s, unix.RENAME_EXCHANGE)
	}
	w.ok("write_file", obj{"path": "s/on-purpose.txt", "content": "y"})
	if data, err := os.ReadFile(filepath.Join(outside, "on-purpose.txt")); err != nil || string(data) != "y" {
		t.Errorf("AllowOutside write through the link: %q %v", data, err)
	}
}

// startSwapping exchanges a and b (renameat2 RENAME_EXCHANGE) in a loop until
// the returned function is called; that returns the number of swaps.
func startSwapping(t *testing.T, a, b string) (stop func() int) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	swaps := 0
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			if err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE); err != nil {
				t.Errorf("renameat2: %v", err)
				return
			}
			swaps++
		}
	}()
	return func() int {
		close(done)
		wg.Wait()
		return swaps
	}
}

// The walk of grep and find_files holds without openat2 too, one component
// at a time.
func TestWalkSwapRaceComponentWalk(t *testing.T) {
	was := noOpenat2.Load()
	noOpenat2.Store(true)
	defer noOpenat2.Store(was)
	w := newWorkspace(t)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "only-outside.txt"), []byte("OUTSIDE SECRET\n"), 0o644)
	w.write("d/deeper/inside.txt", "inside\n")
	os.Symlink(outside, filepath.Join(w.root, "s"))
	stop := startSwapping(t, filepath.Join(w.root, "d"), filepath.Join(w.root, "s"))
	found := 0
	const rounds = 2000
	for i := 0; i < rounds; i++ {
		if r := w.run("grep", obj{"pattern": "OUTSIDE|inside"}); strings.Contains(r.Text, "OUTSIDE SECRET") {
			t.Errorf("round %d: grep searched outside the workspace: %s", i, clip(r.Text, 300))
		} else if strings.Contains(r.Text, "inside.txt") {
			found++
		}
		if r := w.run("find_files", obj{"pattern": "only-outside*"}); strings.Contains(r.Text, "only-outside.txt") {
			t.Errorf("round %d: find_files listed outside the workspace: %s", i, clip(r.Text, 300))
		}
	}
	t.Logf("%d swaps; grep found the inside file in %d of %d rounds", stop(), found, rounds)
	if found == 0 {
		t.Error("grep never found the inside file: the test proves nothing")
	}
}
