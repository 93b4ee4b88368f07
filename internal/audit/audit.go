package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// Entry is one answered question, one line of the log.
type Entry struct {
	Time     time.Time `json:"time"` // Append's time when zero
	Session  string    `json:"session"`
	Pane     int       `json:"pane"`
	Kind     string    `json:"kind"`               // the agent's kind: claude, codex, gemini, aider...
	Tool     string    `json:"tool,omitempty"`     // as the agent names it
	Input    string    `json:"input,omitempty"`    // the command line, the file path...
	Question string    `json:"question,omitempty"` // the question's text
	Decision string    `json:"decision"`           // allow | deny | the label of the option chosen
	Key      string    `json:"key,omitempty"`      // what was typed, if anything
	By       string    `json:"by"`                 // ByPolicy, ByAnswer, BySendKeys, ByPerson, ByHook, ByWeb
	Rule     string    `json:"rule,omitempty"`     // the policy rule's name when By is ByPolicy
}

// Who answered: the values of Entry.By.
const (
	ByPolicy   = "policy"    // an [[agents.policy]] rule
	ByAnswer   = "answer"    // a lead (a person or an agent) through melmux's answer command
	BySendKeys = "send_keys" // keys sent to the pane through send_keys
	ByPerson   = "person"    // keys typed in an attached terminal
	ByHook     = "hook"      // the agent's own hook decided
	ByWeb      = "web"       // a browser of melmux web, through the answer command or typing
)

// Path returns where the log lives: $XDG_STATE_HOME/melmux/audit.jsonl,
// else $HOME/.local/state/melmux/audit.jsonl. A relative
// $XDG_STATE_HOME is ignored, as the XDG base directory specification
// says, rather than resolved against whatever directory melmux runs in.
func Path() (string, error) {
	base := os.Getenv("XDG_STATE_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("audit: no $XDG_STATE_HOME and no home directory: %w", err)
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "melmux", "audit.jsonl"), nil
}

// Log appends entries to the file at its path. It is safe for concurrent
// use: a mutex serialises one process's appends, so that the file is
// opened and checked once at a time and its descriptor is shared safely;
// the single write(2) of each line is what keeps lines whole across
// processes.
//
// The file is opened on the first Append, not by Open, so that a session
// whose agents never ask anything makes no file; it stays open after. On
// each Append the path is looked at again (one lstat): a file that was
// removed or moved away (rotated) is made anew, and one whose mode was
// loosened is opened again and tightened.
type Log struct {
	path string

	mu sync.Mutex // guards f and st
	f  *os.File
	st fs.FileInfo // f's, to tell whether the path still names it
}

// Open returns the log at path; nothing is touched until Append.
func Open(path string) *Log { return &Log{path: path} }

// Append writes e as one line. A zero Time is the current time.
func (l *Log) Append(e Entry) error {
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// Commands are full of <, > and &: kept as they are, the log reads
	// as the commands did.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e); err != nil { // ends the line with '\n'
		return fmt.Errorf("audit: %w", err)
	}
	line := buf.Bytes()

	l.mu.Lock()
	defer l.mu.Unlock()
	f, err := l.file()
	if err != nil {
		return err
	}
	n, err := writeOnce(f, line)
	if err == nil && n < len(line) {
		// A full disk or a file size limit. The rest is not written: it
		// could land after another process's line, so the cut line is
		// left as it is and reported.
		err = fmt.Errorf("wrote %d of %d bytes of the entry", n, len(line))
	}
	if err != nil {
		return fmt.Errorf("audit: %s: %w", l.path, err)
	}
	return nil
}

// Close closes the file, if open. A later Append opens it again.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f, l.st = nil, nil
	return err
}

// file returns the open file, opening it when the path no longer names
// it with mode 0600.
func (l *Log) file() (*os.File, error) {
	if l.f != nil {
		if st, err := os.Lstat(l.path); err == nil && os.SameFile(st, l.st) && st.Mode().Perm() == 0o600 {
			return l.f, nil
		}
		l.f.Close()
		l.f, l.st = nil, nil
	}
	f, st, err := open(l.path)
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	l.f, l.st = f, st
	return f, nil
}

// open opens the log for appending, creating its directory (0700) and the
// file (0600). An existing file whose mode lets anyone else read or write
// it is tightened to 0600 rather than refused: refusing would lose the
// record of what agents were allowed to do, and what the file held is
// either already seen or not, while from now on it is private. A umask
// that takes the owner's bits away too (0277) would leave the new file
// without its write bit; it is set to 0600 all the same, since only an
// exact 0600 is checked for on every Append. A file the user does
// not own, a symlink or anything but a regular file is refused.
func open(path string) (*os.File, fs.FileInfo, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, nil, err
	}
	// O_NOFOLLOW: a symlink planted at the path would have the log
	// appended to the file it names. O_NONBLOCK: opening a FIFO for
	// writing would otherwise wait for a reader (regular files ignore
	// it).
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			err = fmt.Errorf("%s is a symlink; the audit log must be a regular file", path)
		}
		return nil, nil, err
	}
	st, err := f.Stat()
	if err == nil {
		err = check(path, st)
	}
	if err == nil && st.Mode().Perm() != 0o600 {
		if err = f.Chmod(0o600); err == nil {
			st, err = f.Stat()
		}
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, st, nil
}

// check refuses a file that is not a regular file of the user's.
func check(path string, st fs.FileInfo) error {
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file (%s)", path, st.Mode().Type())
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Getuid() {
		return fmt.Errorf("%s belongs to uid %d, not to this user (uid %d)", path, sys.Uid, os.Getuid())
	}
	return nil
}

// writeOnce writes b with one write(2) and no retry of a short write, as
// os.File.Write would make: a line written in two calls could have
// another process's line between its parts.
func writeOnce(f *os.File, b []byte) (int, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	var n int
	var werr error
	err = rc.Write(func(fd uintptr) bool {
		for {
			n, werr = syscall.Write(int(fd), b)
			if werr != syscall.EINTR { // interrupted before writing anything
				return true
			}
		}
	})
	if err != nil {
		return 0, err
	}
	if n < 0 {
		n = 0
	}
	return n, werr
}
