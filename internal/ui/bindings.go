package ui

import (
	"fmt"
	"sort"

	"github.com/gdamore/tcell/v2"
	"github.com/melmux/melmux/internal/uiconf"
)

// DefaultPrefix is the prefix key unless the config names another.
const DefaultPrefix = uiconf.DefaultPrefix

// Binding is what a key does after the prefix.
type Binding = uiconf.Binding

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
		b, err := uiconf.ParseBinding(d[1])
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
		b, err := uiconf.ParseBinding(overrides[ks])
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
