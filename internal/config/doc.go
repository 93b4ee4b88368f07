// Package config reads melmux's user configuration,
// $XDG_CONFIG_HOME/melmux/config.toml (default ~/.config/melmux/config.toml):
// the prefix key, key bindings over the default table, status-line colours,
// the scrollback size, the default shell, how many clients may attach to a
// session at once and which panes stay once their program ends
// (remain_on_exit).
//
// The file is all or nothing: a file that does not parse, holds a key melmux
// does not know, or a value out of range yields an error naming the file,
// line and key of every problem, and Load returns Defaults() beside it so
// melmux starts anyway and shows the error. A missing file is not an error.
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
