// Package transcript reads a turn's final reply from a coding-agent CLI's
// own session files (Claude Code, Codex, Gemini CLI), found from the agent
// process's environment and working directory. It imports only the
// standard library.
package transcript
