// Package pane runs one program in a pseudo-terminal and keeps what it draws.
//
// A Pane owns the process (started at the exact size its layout gives it, never
// a default size resized later), the PTY master, a reader goroutine that feeds
// every byte into the pane's emulator (package term: vt10x behind a
// conditioning scanner, with scrollback), and a writer goroutine fed by a
// queue of bytes so that a program that stops reading its input never blocks
// the caller. Nothing queued is dropped: a person's keystrokes always go in
// (Type; the caller holds back more while Backlog is full), other writers
// queue all or nothing and are told when the program does not read (Write). The exit status (code or signal) is recorded when the process
// ends, and the emulator stays readable after that until the pane is closed.
// Activity is the time of the last output; Changed lets waiters sleep until
// the next output instead of polling.
//
// TERM is screen-256color: its terminfo describes what the emulator really
// does (ANSI/xterm cursor motion, scroll regions, insert/delete line and
// character, 256 colours, alternate screen, bracketed paste) and leaves out
// what it does not (back-colour erase, italics via sitm, xterm's modifyOtherKeys),
// so programs emit only sequences the pane understands. COLORTERM=truecolor
// advertises the 24-bit colour the emulator keeps.
package pane
