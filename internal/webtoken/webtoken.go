// Package webtoken keeps the tokens that log a browser into `melmux web`:
// one JSON file of the user's, 0600, holding each token's name, whether it
// may only watch, and the sha256 of its secret. The secret itself is shown
// once, at Create, and kept nowhere: a copy of the file logs nobody in.
package webtoken

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"syscall"
	"time"
)

// Token is one entry of the file.
type Token struct {
	Name     string    `json:"name"`
	Hash     string    `json:"sha256"` // hex of sha256(secret)
	ReadOnly bool      `json:"read_only,omitempty"`
	Created  time.Time `json:"created"`
}

type file struct {
	Tokens []Token `json:"tokens"`
}

// Prefix starts every secret, so a token pasted somewhere it should not be
// is recognisable for what it is.
const Prefix = "mmx_"

// Path is where the tokens live: $XDG_STATE_HOME/melmux/web-tokens.json,
// else under $HOME/.local/state (a relative $XDG_STATE_HOME is ignored, as
// the XDG specification says).
func Path() (string, error) {
	base := os.Getenv("XDG_STATE_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("web tokens: no $XDG_STATE_HOME and no home directory: %w", err)
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "melmux", "web-tokens.json"), nil
}

// Store is the file at a path. Lookups keep what they read until the
// file's size or modification time changes, so checking a session's token
// on every request costs one stat.
type Store struct {
	path string

	mu    sync.Mutex
	stamp string // size and mtime of what cache holds
	cache []Token
}

// Open returns the store at path; nothing is read or made until used.
func Open(path string) *Store { return &Store{path: path} }

// Path is the file's path.
func (s *Store) Path() string { return s.path }

// nameRE is compiled when a token is first made, not in the start of
// every process that links the store.
var nameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`) })

// Create adds a token and returns its secret, which exists nowhere else.
// An empty name becomes "token-N".
func (s *Store) Create(name string, readOnly bool) (secret string, tok Token, err error) {
	if name != "" && !nameRE().MatchString(name) {
		return "", tok, fmt.Errorf("token name %q: use up to 64 letters, digits, '.', '_' or '-'", name)
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", tok, err
	}
	secret = Prefix + hex.EncodeToString(raw[:])
	err = s.update(func(f *file) error {
		if name == "" {
			for n := len(f.Tokens) + 1; ; n++ {
				name = fmt.Sprintf("token-%d", n)
				if find(f.Tokens, name) < 0 {
					break
				}
			}
		}
		if find(f.Tokens, name) >= 0 {
			return fmt.Errorf("a token named %q exists: revoke it first or choose another --name", name)
		}
		tok = Token{Name: name, Hash: hash(secret), ReadOnly: readOnly, Created: time.Now().UTC().Truncate(time.Second)}
		f.Tokens = append(f.Tokens, tok)
		return nil
	})
	if err != nil {
		return "", Token{}, err
	}
	return secret, tok, nil
}

// List returns the tokens, without any secret (the file has none).
func (s *Store) List() ([]Token, error) {
	f, err := s.read()
	return f.Tokens, err
}

// Revoke removes the token named name. Sessions a browser opened with it
// end at their next request.
func (s *Store) Revoke(name string) error {
	return s.update(func(f *file) error {
		i := find(f.Tokens, name)
		if i < 0 {
			return fmt.Errorf("no token named %q (%s lists them)", name, "melmux web token list")
		}
		f.Tokens = append(f.Tokens[:i], f.Tokens[i+1:]...)
		return nil
	})
}

// Check returns the token whose secret this is. Every entry is compared,
// in constant time, so the time taken says nothing of which one was near.
func (s *Store) Check(secret string) (Token, bool) {
	toks, err := s.cached()
	if err != nil {
		return Token{}, false
	}
	h := []byte(hash(secret))
	var found Token
	ok := false
	for _, t := range toks {
		if subtle.ConstantTimeCompare(h, []byte(t.Hash)) == 1 {
			found, ok = t, true
		}
	}
	return found, ok
}

// Valid says a token of this name and hash is still in the file: a
// session opened with a revoked token ends.
func (s *Store) Valid(name, hash string) bool {
	toks, err := s.cached()
	if err != nil {
		return false
	}
	for _, t := range toks {
		if t.Name == name && t.Hash == hash {
			return true
		}
	}
	return false
}

func (s *Store) cached() ([]Token, error) {
	st, err := os.Stat(s.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	stamp := fmt.Sprint(st.Size(), st.ModTime().UnixNano(), st.Sys().(*syscall.Stat_t).Ino)
	s.mu.Lock()
	defer s.mu.Unlock()
	if stamp == s.stamp {
		return s.cache, nil
	}
	f, err := s.read()
	if err != nil {
		return nil, err
	}
	s.stamp, s.cache = stamp, f.Tokens
	return f.Tokens, nil
}

func hash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// Hash is the file's form of a secret.
func Hash(secret string) string { return hash(secret) }

func find(toks []Token, name string) int {
	for i, t := range toks {
		if t.Name == name {
			return i
		}
	}
	return -1
}

func (s *Store) read() (file, error) {
	var f file
	b, err := os.ReadFile(s.path)
	if errors.Is(err, os.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, err
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return f, fmt.Errorf("%s: %v", s.path, err)
	}
	return f, nil
}

// update changes the file under an flock of a lock file beside it, so two
// melmux processes creating tokens at once both keep theirs, and replaces
// it atomically (a reader sees the old file or the new one, never half).
func (s *Store) update(change func(*file) error) error {
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	lock, err := os.OpenFile(s.path+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	f, err := s.read()
	if err != nil {
		return err
	}
	if err := change(&f); err != nil {
		return err
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".web-tokens-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	// CreateTemp makes the file 0600 whatever the umask.
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), s.path)
}
