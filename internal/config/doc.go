// Package config reads melmux's user configuration,
// $XDG_CONFIG_HOME/melmux/config.toml (default ~/.config/melmux/config.toml):
// the prefix key, key bindings over the default table, status-line colours,
// the scrollback size, the default shell, how many clients may attach to a
// session at once and which panes stay once their program ends
// (remain_on_exit).
//
// A bad entry is left out alone: a key melmux does not know, or a value of
// the wrong type or out of range, yields an error naming the file, line and
// key of every problem, and Load returns every other entry beside it (over
// Defaults()), so melmux starts with the rest of the file and shows the
// error; a bad key of [agent] leaves out that key, not the table. The
// exceptions: a file that is not valid TOML cannot be read at all (Defaults()
// and ErrSyntax), and [[agents.policy]] with any rule wrong is left out
// whole, since without one of its deny rules a later allow rule would answer
// questions it was never meant to. A missing file is not an error.
//
// Example:
//
//	prefix = "C-a"
//	shell = "/bin/zsh"
//	scrollback = 20000
//	max_clients = 4
//	remain_on_exit = "auto"   # or "on", "off"
//
//	[status]
//	fg = "black"
//	bg = "#5f87af"
//
//	[bindings]
//	"|" = "split-right"
//	"-" = "split-down"
//	"%" = "none"
//	"a" = "run spawn-agent --task 'review the diff'"
package config
