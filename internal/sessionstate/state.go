package sessionstate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Version is the format written; Read refuses any other.
const Version = 1

// Bounds on the last screen kept per pane: enough to remind a person where
// the pane was, small enough that twenty panes make a file of a few hundred
// KB at most.
const (
	MaxScreenLines = 100
	MaxScreenBytes = 16 << 10
)

// MaxFileBytes bounds what Read accepts, so a damaged or hostile file cannot
// make the CLI or the server allocate without end.
const MaxFileBytes = 64 << 20

// State is the whole file.
type State struct {
	Version int       `json:"version"`
	Session string    `json:"session"`
	Saved   time.Time `json:"saved"`
	PID     int       `json:"pid"` // the server that wrote it
	Cols    int       `json:"cols"`
	Rows    int       `json:"rows"`
	// Layout is layout.Dump's text; its pane ids are the Panes' IDs.
	Layout string `json:"layout"`
	Panes  []Pane `json:"panes"`
}

// Pane is one saved pane.
type Pane struct {
	ID      int      `json:"id"`
	Argv    []string `json:"argv"`    // the program the pane was started with
	Command string   `json:"command"` // as list_panes showed it
	Shell   bool     `json:"shell"`   // started with no command: the default shell
	Cwd     string   `json:"cwd"`     // the program's directory when saved
	Title   string   `json:"title,omitempty"`
	// Worktree and Branch name the git worktree the pane was opened in.
	Worktree string `json:"worktree,omitempty"`
	Branch   string `json:"branch,omitempty"`
	// Foreground is the program in the foreground of the pane's terminal
	// when it differs from Argv (claude started from the pane's shell).
	Foreground []string `json:"foreground,omitempty"`
	// Agent is the melmux agent registered for the pane.
	Agent *Agent `json:"agent,omitempty"`
	// Screen is the text of the pane's last screen, trailing blank rows
	// dropped, bounded by MaxScreenLines and MaxScreenBytes.
	Screen []string `json:"screen,omitempty"`
}

// Agent is a melmux agent as it registered.
type Agent struct {
	ID       string `json:"id"`
	Role     string `json:"role"`
	Model    string `json:"model,omitempty"`
	Provider string `json:"provider,omitempty"`
}

// ErrNoState is wrapped by Read when the session has no saved state.
var ErrNoState = errors.New("no saved state")

// ErrInvalid is wrapped by Read when the file is there but unusable.
var ErrInvalid = errors.New("invalid saved state")

// Dir is $XDG_STATE_HOME/melmux/sessions (default ~/.local/state/...).
func Dir() (string, error) {
	base := os.Getenv("XDG_STATE_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("session state: neither $XDG_STATE_HOME nor $HOME is set: %w", err)
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "melmux", "sessions"), nil
}

// Path is the state file of session name.
func Path(name string) (string, error) {
	dir, err := Dir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, name+".json"), nil
}

// Read reads and checks a state file. A missing file wraps ErrNoState; one
// that does not decode, has another version or a pane without a program
// wraps ErrInvalid, saying what is wrong.
func Read(path string) (*State, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", path, ErrNoState)
	}
	if err != nil {
		return nil, fmt.Errorf("session state: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > MaxFileBytes {
		return nil, fmt.Errorf("%s is %d bytes, over the %d a state file may have: %w", path, fi.Size(), MaxFileBytes, ErrInvalid)
	}
	var st State
	dec := json.NewDecoder(f)
	if err := dec.Decode(&st); err != nil {
		return nil, fmt.Errorf("%s does not decode: %v: %w", path, err, ErrInvalid)
	}
	if err := st.Check(); err != nil {
		return nil, fmt.Errorf("%s: %v: %w", path, err, ErrInvalid)
	}
	return &st, nil
}

// Check says what makes a decoded state unusable, nil when nothing does.
// The layout text itself is checked by whoever parses it.
func (st *State) Check() error {
	if st.Version != Version {
		return fmt.Errorf("format version %d is not the %d this melmux reads", st.Version, Version)
	}
	if len(st.Panes) == 0 {
		return errors.New("it lists no panes")
	}
	seen := map[int]bool{}
	for i, p := range st.Panes {
		switch {
		case p.ID <= 0:
			return fmt.Errorf("pane %d of the list has id %d; ids are positive", i, p.ID)
		case seen[p.ID]:
			return fmt.Errorf("pane id %d is listed twice", p.ID)
		case len(p.Argv) == 0 || p.Argv[0] == "":
			return fmt.Errorf("pane %d has no program (argv)", p.ID)
		}
		seen[p.ID] = true
	}
	return nil
}

// Summary describes a state in a few words for a prompt: "4 panes in 2
// tabs, saved 3m ago".
func (st *State) Summary(now time.Time) string {
	tabs := strings.Count(st.Layout, "; tab ")
	ago := now.Sub(st.Saved).Round(time.Second)
	when := "saved " + ago.String() + " ago"
	if ago < 0 || ago > 24*time.Hour {
		when = "saved " + st.Saved.Local().Format("2006-01-02 15:04")
	}
	return fmt.Sprintf("%s in %s, %s", plural(len(st.Panes), "pane"), plural(tabs, "tab"), when)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// TrimScreen bounds a screen's text for the file: trailing blank rows and
// spaces go, then the top rows beyond MaxScreenLines or MaxScreenBytes (the
// bottom of a screen is where a person left off).
func TrimScreen(lines []string) []string {
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		out = append(out, strings.TrimRight(l, " "))
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	if len(out) > MaxScreenLines {
		out = out[len(out)-MaxScreenLines:]
	}
	size := 0
	for i := len(out) - 1; i >= 0; i-- {
		size += len(out[i]) + 1
		if size > MaxScreenBytes {
			return out[i+1:]
		}
	}
	return out
}
