// Package agentstate tells what a coding agent running in a pane is doing —
// working, waiting on a person, or idle — and why. It is pure: its owner
// gathers the signals (Signals) and asks an Engine, one per pane, to weigh
// them; nothing here reads a terminal, a process or a clock.
//
// The signals, strongest first: a melmux agent's own reports; the agent's
// reports through its hooks (`melmux notify`) and its program status
// reports on its terminal (OSC 7501, which Claude Code and Codex send),
// each fresh until something newer contradicts it; the screen, read by
// rules per kind of agent (rules.toml, extended and overridden by
// config.toml), each on a region such as the live bottom of the screen; the
// terminal's other signals (bell, OSC 9 and 777 notifications, OSC 133
// prompt marks, the title animating); and the output's rate and quiet time.
// Engine.Decide documents the order; each Decision carries its evidence and
// every signal's verdict (what `melmux explain` prints).
//
// Two rules come from the real CLIs: a question counts only while it is the
// live bottom of the screen (once answered, output follows it), and it
// counts as waiting only once the screen around it has been still for
// Settle, because Claude Code drops a key sent within about 100-200 ms of
// its question appearing and reports the question before drawing it.
//
// The kind of agent comes from the pane's foreground processes (KindOfProcs:
// a program's name or executable, or what a launcher such as node, npx or
// python runs, or a wrapper's child), else from its program status reports
// (KindOfApp) or a banner on its screen (KindOfScreen).
package agentstate
