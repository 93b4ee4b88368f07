// Package tmuxtest runs byte streams through a private tmux server so tests
// can compare melmux's screens with tmux's, the reference terminal. Each call
// starts its own server on a socket in a temporary directory, with no config
// file and no status line, so the pane is exactly the size asked for.
package tmuxtest
