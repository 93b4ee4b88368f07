package toolexec

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"modernc.org/sqlite" // also registers the "sqlite" driver
	sqlite3 "modernc.org/sqlite/lib"
)

// MemoryStore is the shared project memory behind remember and recall: one
// SQLite database (WAL mode, busy timeout) that many melmux processes, one per
// agent, open and write at once.
type MemoryStore struct {
	db   *sql.DB
	path string
}

// Note is one remembered note.
type Note struct {
	ID      int64
	Project string
	Text    string
	Created time.Time
}

// ErrEmptyNote is returned by Remember for a blank note.
var ErrEmptyNote = errors.New("note is empty")

// DefaultMemoryPath is $XDG_DATA_HOME/melmux/memory.db, with XDG_DATA_HOME
// defaulting to ~/.local/share.
func DefaultMemoryPath() (string, error) {
	base := os.Getenv("XDG_DATA_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("memory store: no XDG_DATA_HOME and no home directory: %w", err)
		}
		base = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(base, "melmux", "memory.db"), nil
}

const memorySchema = `CREATE TABLE IF NOT EXISTS notes (
	id      INTEGER PRIMARY KEY AUTOINCREMENT,
	project TEXT NOT NULL,
	note    TEXT NOT NULL,
	created INTEGER NOT NULL -- unix nanoseconds, UTC
);
CREATE INDEX IF NOT EXISTS notes_project ON notes(project, id);`

// OpenMemory opens (creating on first use) the store at path.
func OpenMemory(ctx context.Context, path string) (*MemoryStore, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("memory store %s: %w", path, err)
	}
	// busy_timeout makes a writer wait for another process's lock instead of
	// failing; WAL lets readers run beside the one writer.
	// In a URI file name, these three would end the path early.
	escaped := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
	dsn := "file:" + escaped + "?_pragma=busy_timeout(15000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("memory store %s: %w", path, err)
	}
	// One connection per process is plenty for notes and avoids
	// contending with ourselves for the write lock.
	db.SetMaxOpenConns(1)
	if err := retryBusy(ctx, func() error {
		_, err := db.ExecContext(ctx, memorySchema)
		return err
	}); err != nil {
		db.Close()
		return nil, fmt.Errorf("memory store %s: creating schema: %w", path, err)
	}
	return &MemoryStore{db: db, path: path}, nil
}

// retryBusy repeats f while SQLite reports the database busy or locked:
// busy_timeout covers most waits, but a few (setting WAL mode while another
// process creates the file) fail at once.
func retryBusy(ctx context.Context, f func() error) error {
	delay := 5 * time.Millisecond
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := f()
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
		if delay < 200*time.Millisecond {
			delay *= 2
		}
	}
}

func isBusy(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		// Extended codes keep the primary code in the low byte.
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return true
		}
	}
	return false
}

// Path is the database file.
func (m *MemoryStore) Path() string { return m.path }

// Close closes the database.
func (m *MemoryStore) Close() error { return m.db.Close() }

// Remember appends a note to project.
func (m *MemoryStore) Remember(ctx context.Context, project, note string) (Note, error) {
	note = strings.TrimSpace(note)
	if note == "" {
		return Note{}, ErrEmptyNote
	}
	n := Note{Project: project, Text: note, Created: time.Now().UTC()}
	err := retryBusy(ctx, func() error {
		res, err := m.db.ExecContext(ctx, `INSERT INTO notes(project, note, created) VALUES(?, ?, ?)`,
			project, note, n.Created.UnixNano())
		if err != nil {
			return err
		}
		n.ID, err = res.LastInsertId()
		return err
	})
	if err != nil {
		return Note{}, fmt.Errorf("saving note: %w", err)
	}
	return n, nil
}

// Recall returns project's notes, oldest first.
func (m *MemoryStore) Recall(ctx context.Context, project string) ([]Note, error) {
	var notes []Note
	err := retryBusy(ctx, func() error {
		notes = notes[:0]
		rows, err := m.db.QueryContext(ctx, `SELECT id, note, created FROM notes WHERE project = ? ORDER BY id`, project)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var n Note
			var created int64
			if err := rows.Scan(&n.ID, &n.Text, &created); err != nil {
				return err
			}
			n.Project = project
			n.Created = time.Unix(0, created).UTC()
			notes = append(notes, n)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("reading notes: %w", err)
	}
	return notes, nil
}

// ProjectOf names the project of a directory: the top of its git repository
// (the nearest ancestor holding .git), else the directory itself.
func ProjectOf(dir string) string {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	if top := gitTop(dir); top != "" {
		return top
	}
	return dir
}

func (e *Executor) memoryStore(ctx context.Context) (*MemoryStore, error) {
	if e.Memory != nil {
		return e.Memory, nil
	}
	e.memMu.Lock()
	defer e.memMu.Unlock()
	if e.memory != nil {
		return e.memory, nil
	}
	path := e.MemoryPath
	if path == "" {
		p, err := DefaultMemoryPath()
		if err != nil {
			return nil, err
		}
		path = p
	}
	m, err := OpenMemory(ctx, path)
	if err != nil {
		return nil, err
	}
	e.memory = m
	return m, nil
}

// Close releases what the executor opened itself (the lazily opened memory
// store). A store passed in Memory is the caller's to close.
func (e *Executor) Close() error {
	e.memMu.Lock()
	defer e.memMu.Unlock()
	if e.memory == nil {
		return nil
	}
	err := e.memory.Close()
	e.memory = nil
	return err
}

func (e *Executor) remember(ctx context.Context, a args) Result {
	note := a.str("note")
	if strings.TrimSpace(note) == "" {
		return errResult("remember: note is empty; give the fact or decision to keep")
	}
	m, err := e.memoryStore(ctx)
	if err != nil {
		return errResult("remember: %v", err)
	}
	project := ProjectOf(e.root)
	n, err := m.Remember(ctx, project, note)
	if err != nil {
		return errResult("remember: %v", err)
	}
	return Result{Text: fmt.Sprintf("remembered note %d for project %s", n.ID, project)}
}

func (e *Executor) recall(ctx context.Context) Result {
	m, err := e.memoryStore(ctx)
	if err != nil {
		return errResult("recall: %v", err)
	}
	project := ProjectOf(e.root)
	notes, err := m.Recall(ctx, project)
	if err != nil {
		return errResult("recall: %v", err)
	}
	if len(notes) == 0 {
		return Result{Text: fmt.Sprintf("no notes yet for project %s (save one with remember)", project)}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d notes for project %s, oldest first:\n", len(notes), project)
	for _, n := range notes {
		fmt.Fprintf(&b, "- [%s] %s\n", n.Created.Format("2006-01-02 15:04 UTC"), n.Text)
	}
	return Result{Text: b.String()}
}
