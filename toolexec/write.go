package toolexec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/melmux/melmux/internal/filekind"
)

// writeTempMarker names writeAtomicAt's temporary files, which grep and
// find_files skip: one left by a killed process holds a partial copy.
const writeTempMarker = ".melmux-tmp-"

// writeChunk is how much writeAtomicAt writes between checks of its context.
const writeChunk = 1 << 20

// writeAtomicAt replaces name in dir with data so that a reader, or a
// crash at any moment, sees the old content or the new, never a mix: the
// data goes to a temporary file in dir, is fsynced, takes the old file's
// permissions (perm for a new file) and is renamed over name; dir is then
// fsynced so the rename itself survives a crash. It reports whether name
// existed before. The temporary file is created and renamed within dir
// (openat, renameat), so nothing done here can be redirected elsewhere by
// a change to the path above dir. shown names the file in errors. A
// cancelled ctx stops the copy and leaves the old file.
func writeAtomicAt(ctx context.Context, dir *os.Root, name, shown string, data io.Reader, perm fs.FileMode) (existed bool, err error) {
	mode := perm
	if fi, err := dir.Lstat(name); err == nil {
		switch {
		case fi.IsDir():
			return true, fmt.Errorf("%s is a directory", shown)
		case fi.Mode().IsRegular():
			mode = fi.Mode().Perm()
		case fi.Mode()&fs.ModeSymlink == 0:
			return true, fmt.Errorf("%s is %s, %w: only regular files can be replaced", shown, filekind.Of(fi.Mode()), errNotRegular)
		}
		existed = true
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	tmp, tmpName, err := createTemp(dir, name)
	if err != nil {
		return existed, fmt.Errorf("creating a temporary file beside %s: %w", shown, err)
	}
	committed := false
	defer func() {
		if !committed {
			tmp.Close()         // Best effort.
			dir.Remove(tmpName) // Best effort.
		}
	}()
	buf := make([]byte, writeChunk)
	for {
		if err := ctx.Err(); err != nil {
			return existed, fmt.Errorf("writing %s: stopped: %w", shown, err)
		}
		n, rerr := io.ReadFull(data, buf)
		if n > 0 {
			if _, err := tmp.Write(buf[:n]); err != nil {
				return existed, fmt.Errorf("writing %s: %w", shown, err)
			}
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			break
		}
		if rerr != nil {
			return existed, fmt.Errorf("writing %s: %w", shown, rerr)
		}
	}
	if err := tmp.Chmod(mode); err != nil {
		return existed, fmt.Errorf("setting mode of %s: %w", shown, err)
	}
	if err := tmp.Sync(); err != nil {
		return existed, fmt.Errorf("syncing %s: %w", shown, err)
	}
	if err := tmp.Close(); err != nil {
		return existed, fmt.Errorf("closing %s: %w", shown, err)
	}
	if err := dir.Rename(tmpName, name); err != nil {
		return existed, fmt.Errorf("replacing %s: %w", shown, err)
	}
	committed = true
	if d, err := dir.Open("."); err == nil {
		d.Sync()  // Best effort: the file is already in place.
		d.Close() // Best effort.
	}
	return existed, nil
}

// createTemp creates a new file in dir named after name (cut so the whole
// stays within NAME_MAX) with writeTempMarker and a random suffix.
func createTemp(dir *os.Root, name string) (*os.File, string, error) {
	const keep = 200 // NAME_MAX is 255; the rest is the marker and suffix
	stem := name
	if len(stem) > keep {
		stem = stem[:keep]
	}
	for try := 0; ; try++ {
		tmpName := "." + stem + writeTempMarker + strconv.FormatUint(uint64(rand.Uint32()), 36)
		f, err := dir.OpenFile(tmpName, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			return f, tmpName, nil
		}
		if !errors.Is(err, fs.ErrExist) || try == 100 {
			return nil, "", err
		}
	}
}

func (e *Executor) writeFile(ctx context.Context, a args) Result {
	t, err := e.resolve(a.str("path"))
	if err != nil {
		return errResult("write_file: %v", err)
	}
	content := a.str("content")
	existed, err := e.writeTarget(ctx, t, strings.NewReader(content))
	if err != nil {
		return errResult("write_file: %v", err)
	}
	verb := "created"
	if existed {
		verb = "replaced"
	}
	return Result{Text: fmt.Sprintf("%s %s: %d bytes, %d lines", verb, t.shown, len(content), countLines(content))}
}

// writeTarget replaces t atomically through its directory's descriptor,
// creating missing parents.
func (e *Executor) writeTarget(ctx context.Context, t target, data io.Reader) (existed bool, err error) {
	dir, name, err := e.dirAt(t, true)
	if err != nil {
		return false, err
	}
	defer dir.Close()
	return writeAtomicAt(ctx, dir, name, t.shown, data, 0o644)
}

func countLines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

func (e *Executor) editFile(ctx context.Context, a args) Result {
	oldS, newS := a.str("old_string"), a.str("new_string")
	if oldS == "" {
		return errResult("edit_file: old_string is empty; give the exact text to replace (to create or overwrite a whole file use write_file)")
	}
	if oldS == newS {
		return errResult("edit_file: old_string and new_string are the same; nothing to change")
	}
	t, err := e.resolve(a.str("path"))
	if err != nil {
		return errResult("edit_file: %v", err)
	}
	shown := t.shown
	// The file is read and replaced through one descriptor of its
	// directory, so both reach the same file.
	dir, name, err := e.dirAt(t, false)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return errResult("edit_file: no such file: %s (to create a file use write_file)", shown)
		}
		return errResult("edit_file: %s", describeOpenErr(shown, err))
	}
	defer dir.Close()
	data, err := readForEdit(ctx, dir, name, t)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return errResult("edit_file: no such file: %s (to create a file use write_file)", shown)
		}
		return errResult("edit_file: %s", describeOpenErr(shown, err))
	}
	head := data
	if len(head) > sniffLen {
		head = head[:sniffLen]
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return errResult("edit_file: %s is a binary file; edit_file changes text files only", shown)
	}
	old := []byte(oldS)
	count := bytes.Count(data, old)
	switch {
	case count == 0:
		hint := ""
		if bytes.Contains(data, []byte(strings.TrimSpace(oldS))) && strings.TrimSpace(oldS) != "" {
			hint = " (the text without its leading/trailing whitespace does occur: check indentation and line ends)"
		}
		return errResult("edit_file: old_string not found in %s%s; read the file and copy the text exactly", shown, hint)
	case count > 1 && !a.boolean("replace_all"):
		return errResult("edit_file: old_string occurs %d times in %s; include more surrounding text to make it unique, or set replace_all to true", count, shown)
	}
	n := 1
	if a.boolean("replace_all") {
		n = count
	}
	// Refuse before allocating: replace_all of a short string by a long one
	// multiplies the file.
	if size := int64(len(data)) + int64(n)*(int64(len(newS))-int64(len(oldS))); size > MaxEditFileBytes {
		return errResult("edit_file: the edited %s would be %s, over the %s edit_file writes; make fewer or smaller replacements",
			shown, HumanBytes(int(size)), HumanBytes(MaxEditFileBytes))
	}
	// The first lines replaced, counted incrementally.
	const showLines = 20
	var lines []int
	line, counted, searchFrom := 1, 0, 0
	for i := 0; i < n && i < showLines; i++ {
		at := bytes.Index(data[searchFrom:], old) + searchFrom
		line += bytes.Count(data[counted:at], []byte{'\n'})
		counted = at
		lines = append(lines, line)
		searchFrom = at + len(old)
	}
	updated := bytes.Replace(data, old, []byte(newS), n)
	if _, err := writeAtomicAt(ctx, dir, name, shown, bytes.NewReader(updated), 0o644); err != nil {
		return errResult("edit_file: %v", err)
	}
	where := make([]string, 0, len(lines)+1)
	for _, l := range lines {
		where = append(where, fmt.Sprint(l))
	}
	if n > len(lines) {
		where = append(where, fmt.Sprintf("… (%d more)", n-len(lines)))
	}
	plural := "s"
	if n == 1 {
		plural = ""
	}
	return Result{Text: fmt.Sprintf("edited %s: %d replacement%s, at line%s %s", shown, n, plural, plural, strings.Join(where, ", "))}
}

// readForEdit loads the regular file name in dir, refusing one over
// MaxEditFileBytes before reading it.
func readForEdit(ctx context.Context, dir *os.Root, name string, t target) ([]byte, error) {
	if fi, err := dir.Stat(name); err == nil && !fi.Mode().IsRegular() {
		return nil, notRegular(t, fi.Mode(), "")
	}
	f, err := dir.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, describeEscape(t, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(t, fi.Mode(), "")
	}
	if fi.Size() > MaxEditFileBytes {
		return nil, errTooBigToEdit(t, fi.Size())
	}
	data := make([]byte, 0, fi.Size()+1)
	for {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("stopped: %w", err)
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := f.Read(data[len(data):min(cap(data), len(data)+writeChunk)])
		data = data[:len(data)+n]
		if len(data) > MaxEditFileBytes {
			return nil, errTooBigToEdit(t, int64(len(data)))
		}
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// errTooBig is wrapped by edit_file's error for a file over
// MaxEditFileBytes.
var errTooBig = errors.New("too big to edit")

func errTooBigToEdit(t target, size int64) error {
	return fmt.Errorf("%s is %s: %w (edit_file changes files up to %s, as it holds the file in memory twice); "+
		"change it with a command through run_command (sed, a script) or replace it with write_file",
		t.shown, HumanBytes(int(size)), errTooBig, HumanBytes(MaxEditFileBytes))
}
