// Package uiconf is what config.toml says of the UI, apart from the UI:
// the key notation (the prefix and [bindings] keys), the commands a key may
// be bound to, the status colours and their notation. internal/config
// checks the file with it and internal/ui acts on what it parses; kept out
// of internal/ui so that a binary reading the config (melmux-agent, for
// [agent]) links neither tcell and its terminfo tables nor the emulator.
package uiconf
