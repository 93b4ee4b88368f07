package toolexec

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// writeTempMarker names WriteFileAtomic's temporary files, which grep and
// find_files skip: one left by a killed process holds a partial copy.
const writeTempMarker = ".melmux-tmp-"

// WriteFileAtomic replaces path with data so that a reader, or a crash at
// any moment, sees the old content or the new, never a mix: the data goes to
// a temporary file in the same directory, is fsynced, takes the old file's
// permissions (perm for a new file) and is renamed over path; the directory
// is then fsynced so the rename itself survives a crash. Missing parent
// directories are created. It reports whether path existed before.
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) (existed bool, err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, fmt.Errorf("creating directory %s: %w", dir, err)
	}
	mode := perm
	if fi, err := os.Stat(path); err == nil {
		if fi.IsDir() {
			return true, fmt.Errorf("%s is a directory", path)
		}
		existed = true
		mode = fi.Mode().Perm()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+writeTempMarker+"*")
	if err != nil {
		return existed, fmt.Errorf("creating temporary file in %s: %w", dir, err)
	}
	tmpName := tmp.Name()
	committed := false
	defer func() {
		if !committed {
			tmp.Close()        // Best effort.
			os.Remove(tmpName) // Best effort.
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return existed, fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Chmod(mode); err != nil {
		return existed, fmt.Errorf("setting mode of %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return existed, fmt.Errorf("syncing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return existed, fmt.Errorf("closing %s: %w", path, err)
	}
	if err := os.Rename(tmpName, path); err != nil {
		return existed, fmt.Errorf("replacing %s: %w", path, err)
	}
	committed = true
	if d, err := os.Open(dir); err == nil {
		d.Sync()  // Best effort: the file is already in place.
		d.Close() // Best effort.
	}
	return existed, nil
}

func (e *Executor) writeFile(a args) Result {
	real, shown, err := e.resolve(a.str("path"))
	if err != nil {
		return errResult("write_file: %v", err)
	}
	content := a.str("content")
	existed, err := WriteFileAtomic(real, []byte(content), 0o644)
	if err != nil {
		return errResult("write_file: %v", err)
	}
	verb := "created"
	if existed {
		verb = "replaced"
	}
	return Result{Text: fmt.Sprintf("%s %s: %d bytes, %d lines", verb, shown, len(content), countLines(content))}
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

func (e *Executor) editFile(a args) Result {
	oldS, newS := a.str("old_string"), a.str("new_string")
	if oldS == "" {
		return errResult("edit_file: old_string is empty; give the exact text to replace (to create or overwrite a whole file use write_file)")
	}
	if oldS == newS {
		return errResult("edit_file: old_string and new_string are the same; nothing to change")
	}
	real, shown, err := e.resolve(a.str("path"))
	if err != nil {
		return errResult("edit_file: %v", err)
	}
	data, err := os.ReadFile(real)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return errResult("edit_file: no such file: %s (to create a file use write_file)", shown)
		}
		var pe *fs.PathError
		if errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "is a directory") {
			return errResult("edit_file: %s is a directory", shown)
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
		n = -1
	}
	var lines []int
	searchFrom := 0
	for i := 0; i < count && (n < 0 || i < n); i++ {
		at := bytes.Index(data[searchFrom:], old) + searchFrom
		lines = append(lines, bytes.Count(data[:at], []byte{'\n'})+1)
		searchFrom = at + len(old)
	}
	updated := bytes.Replace(data, old, []byte(newS), n)
	if _, err := WriteFileAtomic(real, updated, 0o644); err != nil {
		return errResult("edit_file: %v", err)
	}
	where := make([]string, 0, len(lines))
	for i, l := range lines {
		if i == 20 {
			where = append(where, fmt.Sprintf("… (%d more)", len(lines)-20))
			break
		}
		where = append(where, fmt.Sprint(l))
	}
	plural := "s"
	if len(lines) == 1 {
		plural = ""
	}
	return Result{Text: fmt.Sprintf("edited %s: %d replacement%s, at line%s %s", shown, len(lines), plural, plural, strings.Join(where, ", "))}
}
