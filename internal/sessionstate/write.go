package sessionstate

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// tempMarker names the temporary files Write creates beside the state file,
// so RemoveTemps can find those a killed writer left.
const tempMarker = ".tmp-"

// Write replaces the file at path with data so that a reader, or a restart
// after the writer was killed at any moment (even by SIGKILL, even by a power
// cut once the rename is on disk), finds either the old file whole or the new
// one whole, never a mix: the data goes to a temporary file in the same
// directory, is synced, and renamed over path; the directory is synced so the
// rename survives a crash. The directory is created 0700 when missing: the
// file names the programs and directories a person works in.
func Write(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("session state directory: %w", err)
	}
	tmp, err := os.CreateTemp(dir, filepath.Base(path)+tempMarker+"*")
	if err != nil {
		return fmt.Errorf("session state: %w", err)
	}
	committed := false
	defer func() {
		if !committed {
			tmp.Close()           // Best effort: the write already failed.
			os.Remove(tmp.Name()) // Best effort, as above.
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("session state: write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Chmod(0o600); err != nil {
		return fmt.Errorf("session state: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("session state: sync %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("session state: close %s: %w", tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("session state: replace %s: %w", path, err)
	}
	committed = true
	if d, err := os.Open(dir); err == nil {
		d.Sync()  // Best effort: the new file is in place either way.
		d.Close() // Best effort.
	}
	return nil
}

// Remove deletes the state file at path and any temporary file a killed
// writer left beside it. A missing file is no error.
func Remove(path string) error {
	RemoveTemps(path)
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("session state: %w", err)
	}
	return nil
}

// RemoveTemps deletes the temporary files of path's writers that were killed
// before their rename. Call it only while no writer of path runs.
func RemoveTemps(path string) {
	ents, _ := os.ReadDir(filepath.Dir(path))
	prefix := filepath.Base(path) + tempMarker
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), prefix) {
			os.Remove(filepath.Join(filepath.Dir(path), e.Name())) // Best effort: a leftover costs a few KB.
		}
	}
}
