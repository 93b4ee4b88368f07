package uiconf

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// DefaultPrefix is the prefix key unless the config names another.
const DefaultPrefix = "C-b"

// ErrBadCommand is wrapped by ParseBinding's errors.
var ErrBadCommand = errors.New("bad command")

// Binding is what a key does after the prefix.
type Binding struct {
	Name string   // a command name, see CommandNames
	Args []string // its arguments
	Line string   // the binding as written, for the help overlay
	// Repeat says the key runs again without the prefix within
	// RepeatTime, as tmux's bind -r: the resize keys.
	Repeat bool
}

// commandArgs lists every command a key may be bound to and checks its
// arguments; nil means it takes none.
var commandArgs = map[string]func(args []string) error{
	"split-right": nil, "split-down": nil, "new-tab": nil, "next-tab": nil, "prev-tab": nil,
	"zoom": nil, "kill-pane": nil, "detach": nil, "paste-buffer": nil,
	"command-prompt": nil, "help": nil, "send-prefix": nil, "none": nil, "diff": nil,
	"agents": nil, "next-waiting": nil,
	"select-tab": func(args []string) error {
		if len(args) != 1 {
			return fmt.Errorf("select-tab takes one tab number")
		}
		if n, err := strconv.Atoi(args[0]); err != nil || n < 0 {
			return fmt.Errorf("select-tab %q: the tab number must be 0 or more", args[0])
		}
		return nil
	},
	"focus": func(args []string) error {
		if len(args) != 1 {
			return fmt.Errorf("focus takes one direction: left, right, up or down")
		}
		switch args[0] {
		case "left", "right", "up", "down":
			return nil
		}
		return fmt.Errorf("focus %q: the direction must be left, right, up or down", args[0])
	},
	"resize": func(args []string) error {
		if len(args) < 1 || len(args) > 2 {
			return fmt.Errorf("resize takes a direction (left, right, up, down) and an optional number of cells")
		}
		switch args[0] {
		case "left", "right", "up", "down":
		default:
			return fmt.Errorf("resize %q: the direction must be left, right, up or down", args[0])
		}
		if len(args) == 2 {
			if n, err := strconv.Atoi(args[1]); err != nil || n < 1 || n > 1000 {
				return fmt.Errorf("resize %s %q: the number of cells must be 1-1000", args[0], args[1])
			}
		}
		return nil
	},
	// tmux's keys (internal/ui/tmuxkeys.go).
	"next-pane": nil, "last-pane": nil, "display-panes": nil, "choose-tab": nil, "choose-session": nil,
	"kill-tab": nil, "break-pane": nil, "next-layout": nil, "select-tab-prompt": nil,
	"copy-mode": func(args []string) error {
		if len(args) > 1 || len(args) == 1 && args[0] != "-u" {
			return fmt.Errorf("copy-mode takes only -u (enter it a page up), got %q", strings.Join(args, " "))
		}
		return nil
	},
	"rename-tab": func(args []string) error {
		if len(args) > 1 {
			return fmt.Errorf("rename-tab takes at most one name (none asks for it), got %d words", len(args))
		}
		return nil
	},
	"swap-pane": func(args []string) error {
		if len(args) != 1 || args[0] != "prev" && args[0] != "next" {
			return fmt.Errorf("swap-pane takes prev or next, got %q", strings.Join(args, " "))
		}
		return nil
	},
	"run": func(args []string) error {
		if len(args) == 0 {
			return fmt.Errorf("run needs a melmux command line, e.g. run open-pane --layout right")
		}
		return nil
	},
}

// CommandNames lists the commands a key may be bound to.
func CommandNames() []string {
	names := make([]string, 0, len(commandArgs))
	for n := range commandArgs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// LookupCommand says whether a key may be bound to the command name, and
// gives what checks its arguments: nil when it takes none.
func LookupCommand(name string) (check func(args []string) error, ok bool) {
	check, ok = commandArgs[name]
	return check, ok
}

// ParseBinding reads a binding's command line: a name from CommandNames and
// its arguments ("select-tab 3", "focus left", "run open-pane -- htop").
// "none" removes a default binding.
func ParseBinding(line string) (Binding, error) {
	words, err := SplitWords(line)
	if err != nil {
		return Binding{}, fmt.Errorf("%w %q: %w", ErrBadCommand, line, err)
	}
	if len(words) == 0 {
		return Binding{}, fmt.Errorf("%w: empty command (use one of %s)", ErrBadCommand, strings.Join(CommandNames(), ", "))
	}
	check, ok := commandArgs[words[0]]
	if !ok {
		return Binding{}, fmt.Errorf("%w %q: unknown command (use one of %s)", ErrBadCommand, words[0], strings.Join(CommandNames(), ", "))
	}
	if check == nil && len(words) > 1 {
		return Binding{}, fmt.Errorf("%w %q: %s takes no arguments", ErrBadCommand, line, words[0])
	}
	if check != nil {
		if err := check(words[1:]); err != nil {
			return Binding{}, fmt.Errorf("%w: %w", ErrBadCommand, err)
		}
	}
	var args []string
	if len(words) > 1 {
		args = words[1:]
	}
	return Binding{Name: words[0], Args: args, Line: strings.TrimSpace(line), Repeat: words[0] == "resize"}, nil
}

// SplitWords splits a command line into words the way a POSIX shell does for
// plain words: blanks separate, '...' is literal, "..." allows \" and \\, and
// a backslash outside quotes escapes the next character.
func SplitWords(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case r == '\'':
			inWord = true
			j := i + 1
			for j < len(rs) && rs[j] != '\'' {
				j++
			}
			if j >= len(rs) {
				return nil, fmt.Errorf("unterminated ' quote")
			}
			cur.WriteString(string(rs[i+1 : j]))
			i = j
		case r == '"':
			inWord = true
			j := i + 1
			for ; j < len(rs) && rs[j] != '"'; j++ {
				if rs[j] == '\\' && j+1 < len(rs) && (rs[j+1] == '"' || rs[j+1] == '\\') {
					j++
				}
				cur.WriteRune(rs[j])
			}
			if j >= len(rs) {
				return nil, fmt.Errorf("unterminated \" quote")
			}
			i = j
		case r == '\\':
			inWord = true
			if i+1 >= len(rs) {
				return nil, fmt.Errorf("trailing backslash")
			}
			i++
			cur.WriteRune(rs[i])
		default:
			inWord = true
			cur.WriteRune(r)
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
