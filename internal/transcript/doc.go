// Package transcript reads a turn's final reply — the agent's own last
// message of the turn, whole, with none of the screen's chrome — from the
// session files a coding-agent CLI writes as it goes, found from the
// agent's process: its environment says where the CLI's home is, its
// working directory which project's sessions are its. Claude Code appends
// JSON lines to $CLAUDE_CONFIG_DIR (else $HOME/.claude)/projects/<the
// directory with every character but letters and digits made "-">/<session
// id>.jsonl, and names the session a process writes in sessions/<pid>.json;
// Codex appends them to $CODEX_HOME (else $HOME/.codex)/sessions/YYYY/MM/DD/
// rollout-*.jsonl, whose first line (session_meta) names the directory,
// and holds the file open; Gemini CLI appends them to $GEMINI_CLI_HOME (else
// $HOME)/.gemini/tmp/<project id>/chats/session-*.jsonl, the id given to the
// directory in .gemini/projects.json. Find reads a file as a list of turns:
// a turn is a prompt the person submitted and what the agent wrote until
// the next one; its reply is the text of the agent's last message in it
// (not its tool calls, not their results); it is done when the file says
// the turn ended (Claude Code's turn_duration, Codex's task_complete) or,
// for Gemini CLI, which writes no such mark, when the last message has text
// and no tool calls. The turn wanted is the first prompted at or after a
// time, or the first whose prompt holds a given text. These files are the
// CLIs' private formats, not an interface they promise: the parsers follow
// the pinned releases (internal/agentcli), are tested on sessions recorded
// from them (testdata) and against the running CLIs (TestRealTranscripts).
// The package imports only the standard library.
package transcript
