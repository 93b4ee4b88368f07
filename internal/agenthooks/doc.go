// Package agenthooks puts melmux's hooks in the settings files of the agent
// CLIs a person starts without melmux (a shell in a pane, a wrapper
// script), and takes them out again: `melmux notify --from claude` in
// Claude Code's settings.json, `--from gemini` in Gemini CLI's, and
// Codex's notify program in its config.toml. With them an agent reports its
// turns, its whole reply and its questions as it does when melmux starts it
// (which adds the hooks to its command line, for Claude Code and Codex).
//
// An edit changes what it adds and nothing else: a JSON file keeps its
// other keys, their order and its layout (the tidwall/sjson edits are
// textual), a TOML file its other lines, and a file it cannot edit so
// (JSON with comments, TOML whose other keys would change) is refused with
// the lines to add by hand. Removing is the inverse of installing: a file
// installed into and removed from is the file it was, byte for byte (but for a
// list of hooks, or "hooks", that only melmux's were in), and a Codex notify program melmux chained
// is put back.
package agenthooks
