package ui

import (
	"fmt"
	"sort"
	"strings"

	"github.com/melmux/melmux/internal/uiconf"
)

// tmuxNames maps the tmux commands of melmux's key bindings, as typed at
// tmux's ":" prompt, to the binding they are: their flags are read, and one
// melmux has no equivalent for is refused naming what to use instead.
var tmuxNames = map[string]func(args []string) ([]string, error){
	"split-window": func(args []string) ([]string, error) {
		dir := "split-down"
		for _, a := range args {
			switch a {
			case "-h":
				dir = "split-right"
			case "-v":
				dir = "split-down"
			default:
				return nil, fmt.Errorf("split-window %s: melmux takes -h (side by side) or -v (stacked) here; for a command, a directory or a size use open-pane --layout right|down [--cwd DIR] [-- CMD]", a)
			}
		}
		return []string{dir}, nil
	},
	"new-window": func(args []string) ([]string, error) {
		if len(args) > 0 {
			return nil, fmt.Errorf("new-window %s: melmux takes no flags here; for a command or a directory use open-pane --layout tab [--cwd DIR] [-- CMD]", strings.Join(args, " "))
		}
		return []string{"new-tab"}, nil
	},
	"next-window":     plain("next-tab"),
	"previous-window": plain("prev-tab"),
	"select-window": func(args []string) ([]string, error) {
		if len(args) != 2 || args[0] != "-t" {
			return nil, fmt.Errorf("select-window takes -t N, the tab's number")
		}
		return []string{"select-tab", strings.TrimPrefix(args[1], ":")}, nil
	},
	"rename-window": func(args []string) ([]string, error) {
		if len(args) > 1 {
			return nil, fmt.Errorf("rename-window takes one name (quote one with spaces), got %d words", len(args))
		}
		return append([]string{"rename-tab"}, args...), nil
	},
	"kill-window":    plain("kill-tab"),
	"choose-window":  plain("choose-tab"),
	"choose-session": plain("choose-session"),
	"choose-tree": func(args []string) ([]string, error) {
		switch strings.Join(args, " ") {
		case "", "-w", "-Zw":
			return []string{"choose-tab"}, nil
		case "-s", "-Zs":
			return []string{"choose-session"}, nil
		}
		return nil, fmt.Errorf("choose-tree takes -w (tabs) or -s (sessions)")
	},
	"select-pane": func(args []string) ([]string, error) {
		dirs := map[string]string{"-L": "left", "-R": "right", "-U": "up", "-D": "down"}
		if len(args) == 1 {
			if d, ok := dirs[args[0]]; ok {
				return []string{"focus", d}, nil
			}
		}
		return nil, fmt.Errorf("select-pane takes -L, -R, -U or -D (for a pane by its id: C-b q, then its number)")
	},
	"last-pane":   plain("last-pane"),
	"break-pane":  plain("break-pane"),
	"next-layout": plain("next-layout"),
	"swap-pane": func(args []string) ([]string, error) {
		switch strings.Join(args, " ") {
		case "-U":
			return []string{"swap-pane", "prev"}, nil
		case "-D":
			return []string{"swap-pane", "next"}, nil
		}
		return nil, fmt.Errorf("swap-pane takes -U (with the previous pane) or -D (with the next)")
	},
	"resize-pane": func(args []string) ([]string, error) {
		dirs := map[string]string{"-L": "left", "-R": "right", "-U": "up", "-D": "down"}
		if len(args) == 1 && args[0] == "-Z" {
			return []string{"zoom"}, nil
		}
		if len(args) >= 1 && len(args) <= 2 {
			if d, ok := dirs[args[0]]; ok {
				return append([]string{"resize", d}, args[1:]...), nil
			}
		}
		return nil, fmt.Errorf("resize-pane takes -L, -R, -U or -D and an optional number of cells, or -Z")
	},
	"display-panes": plain("display-panes"),
	"copy-mode": func(args []string) ([]string, error) {
		if len(args) == 0 || len(args) == 1 && args[0] == "-u" {
			return append([]string{"copy-mode"}, args...), nil
		}
		return nil, fmt.Errorf("copy-mode takes only -u (a page up)")
	},
	"paste-buffer":  plain("paste-buffer"),
	"detach-client": plain("detach"),
	"list-keys":     plain("help"),
	"send-prefix":   plain("send-prefix"),
}

// plain is a tmux command that maps to a binding taking no arguments.
func plain(name string) func(args []string) ([]string, error) {
	return func(args []string) ([]string, error) {
		if len(args) > 0 {
			return nil, fmt.Errorf("melmux's %s takes no arguments here, got %q", name, strings.Join(args, " "))
		}
		return []string{name}, nil
	}
}

// TmuxNames lists the tmux commands the ":" prompt takes.
func TmuxNames() []string {
	names := make([]string, 0, len(tmuxNames))
	for n := range tmuxNames {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// promptBinding runs a line typed at the ":" prompt that names a key
// binding's command (next-layout, select-tab 3) or tmux's name for one
// (split-window -h, new-window), unless it names a melmux verb, which
// wins; ok is false when the line is for the CLI.
func (in *Input) promptBinding(words []string) (acts []Action, ok bool) {
	for _, v := range in.support.Verbs {
		if v == words[0] {
			return nil, false
		}
	}
	if words[0] == "none" || words[0] == "run" {
		return nil, false
	}
	if to, isTmux := tmuxNames[words[0]]; isTmux {
		mapped, err := to(words[1:])
		if err != nil {
			in.msg = err.Error()
			return nil, true
		}
		words = mapped
	}
	check, isBinding := uiconf.LookupCommand(words[0])
	if !isBinding {
		return nil, false
	}
	if check == nil && len(words) > 1 {
		in.msg = fmt.Sprintf("%s takes no arguments, got %q", words[0], strings.Join(words[1:], " "))
		return nil, true
	}
	if check != nil {
		if err := check(words[1:]); err != nil {
			in.msg = err.Error()
			return nil, true
		}
	}
	b := Binding{Name: words[0], Args: words[1:], Line: strings.Join(words, " "), Repeat: words[0] == "resize"}
	if len(b.Args) == 0 {
		b.Args = nil
	}
	return in.run(b, in.tmux.sc), true
}
