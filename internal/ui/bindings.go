package ui

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gdamore/tcell/v2"
)

// DefaultPrefix is the prefix key unless the config names another.
const DefaultPrefix = "C-b"

// ErrBadCommand is wrapped by ParseBinding's errors.
var ErrBadCommand = errors.New("bad command")

// Binding is what a key does after the prefix.
type Binding struct {
	Name string   // a command name, see commandArgs
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
	// tmux's keys (tmuxkeys.go).
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

// defaultBindings is the table after the prefix, in help-overlay order.
var defaultBindings = [][2]string{
	{"%", "split-right"}, {`"`, "split-down"}, {"c", "new-tab"}, {"n", "next-tab"}, {"p", "prev-tab"},
	{"0", "select-tab 0"}, {"1", "select-tab 1"}, {"2", "select-tab 2"}, {"3", "select-tab 3"},
	{"4", "select-tab 4"}, {"5", "select-tab 5"}, {"6", "select-tab 6"}, {"7", "select-tab 7"},
	{"8", "select-tab 8"}, {"9", "select-tab 9"},
	{"Left", "focus left"}, {"Right", "focus right"}, {"Up", "focus up"}, {"Down", "focus down"},
	{"h", "focus left"}, {"l", "focus right"}, {"k", "focus up"}, {"j", "focus down"},
	{"C-Left", "resize left"}, {"C-Right", "resize right"}, {"C-Up", "resize up"}, {"C-Down", "resize down"},
	{"M-Left", "resize left 5"}, {"M-Right", "resize right 5"}, {"M-Up", "resize up 5"}, {"M-Down", "resize down 5"},
	{"z", "zoom"}, {"x", "kill-pane"}, {"d", "detach"}, {"[", "copy-mode"}, {"]", "paste-buffer"},
	{":", "command-prompt"}, {"?", "help"}, {"D", "diff"},
	// tmux's (tmuxkeys.go).
	{"o", "next-pane"}, {";", "last-pane"}, {"q", "display-panes"}, {"w", "choose-tab"}, {"s", "choose-session"},
	{",", "rename-tab"}, {"&", "kill-tab"}, {"!", "break-pane"}, {"{", "swap-pane prev"}, {"}", "swap-pane next"},
	{"Space", "next-layout"}, {"PgUp", "copy-mode -u"}, {"'", "select-tab-prompt"},
	{"a", "agents"}, {"A", "next-waiting"},
}

// keyTable maps keys after the prefix to bindings, remembering order for help.
type keyTable struct {
	prefix KeyID
	m      map[KeyID]Binding
	order  []KeyID
}

// newKeyTable builds the default table for prefix, then applies overrides
// (key notation → command line; "none" unbinds). Errors name the key.
func newKeyTable(prefix string, overrides map[string]string) (*keyTable, error) {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	pk, err := ParseKey(prefix)
	if err != nil {
		return nil, fmt.Errorf("prefix: %w", err)
	}
	t := &keyTable{prefix: pk, m: map[KeyID]Binding{}}
	set := func(k KeyID, b Binding) {
		if _, ok := t.m[k]; !ok {
			t.order = append(t.order, k)
		}
		t.m[k] = b
	}
	for _, d := range defaultBindings {
		k, err := ParseKey(d[0])
		if err != nil {
			return nil, fmt.Errorf("default binding %q: %w", d[0], err)
		}
		b, err := ParseBinding(d[1])
		if err != nil {
			return nil, fmt.Errorf("default binding %q: %w", d[0], err)
		}
		set(k, b)
	}
	set(pk, Binding{Name: "send-prefix", Line: "send-prefix"})
	keys := make([]string, 0, len(overrides))
	for k := range overrides {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, ks := range keys {
		k, err := ParseKey(ks)
		if err != nil {
			return nil, fmt.Errorf("binding %q: %w", ks, err)
		}
		b, err := ParseBinding(overrides[ks])
		if err != nil {
			return nil, fmt.Errorf("binding %q: %w", ks, err)
		}
		set(k, b)
	}
	return t, nil
}

// help lists the bindings for the help overlay. Keys doing the same thing
// share a line ("C-b Left h  focus left"), and the ten tab digits are one line.
func (t *keyTable) help() []BindingHelp {
	pre := t.prefix.String()
	digits := 0
	for d := '0'; d <= '9'; d++ {
		if b, ok := t.m[KeyID{Key: tcell.KeyRune, Rune: d}]; ok && b.Name == "select-tab" && b.Args[0] == string(d) {
			digits++
		}
	}
	var out []BindingHelp
	index := map[string]int{}
	for _, k := range t.order {
		b := t.m[k]
		if b.Name == "none" {
			continue
		}
		keys, line := k.String(), b.Line
		if digits == 10 && b.Name == "select-tab" && keys == b.Args[0] {
			keys, line = "0-9", "select-tab 0-9"
		}
		if i, ok := index[line]; ok {
			if line != "select-tab 0-9" {
				out[i].Keys += " " + keys
			}
			continue
		}
		index[line] = len(out)
		out = append(out, BindingHelp{Keys: pre + " " + keys, Command: line})
	}
	return out
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
