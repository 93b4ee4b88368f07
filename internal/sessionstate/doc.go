// Package sessionstate is the file a session server keeps so the session can
// be rebuilt after the server is gone (killed, crashed, the machine
// restarted): its format, its path, writing it so that it is never torn, and
// how each saved pane is started again (Launch).
//
// The file is $XDG_STATE_HOME/melmux/sessions/NAME.json. It holds the layout
// (layout.Dump's text: tabs, splits with their ratios, focus, zoom) and per
// pane its program, directory, title, worktree, the melmux agent it ran and
// the text of its last screen. It never holds the environment: API keys stay
// out of it, and a restore takes the restoring shell's environment.
package sessionstate
