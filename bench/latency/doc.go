// Command latency measures an attached melmux against tmux in the same run:
// how long a typed key takes to come back to the user's terminal, and what
// the server does while nobody types.
//
// The program is the user's terminal. It starts each multiplexer with private
// sockets (melmux under its own XDG_RUNTIME_DIR, tmux with -S and -f
// /dev/null), lays out one 120x40 window with the same splits under both,
// and runs the attach command inside a PTY it owns, sized 120x40 with
// TERM=xterm-256color and a UTF-8 locale. The focused pane runs the same
// raw-mode echo (`stty raw -echo; exec cat`) under both. Its neighbour, the
// other half of the window, either floods numbered coloured lines (an awk
// loop; every line differs, so every frame has changes to send) or sleeps;
// in the case flood4 four flooding panes share the window with it.
//
// Each key is one character typed into the PTY, and its echo is recognised in
// the client's output by that character's UTF-8 bytes. The keys are distinct
// non-ASCII letters (Latin Extended, Greek, Cyrillic, all one cell wide), and
// nothing else either multiplexer draws holds one of them: the flood, the
// status lines and every escape sequence are ASCII, and the borders are
// box-drawing characters. UTF-8 is self-synchronising, so a key's two bytes
// cannot turn up inside another character's encoding, and the first time
// they appear in the stream is the echo being drawn, wherever the escape
// sequences around it put it. The clock runs from write(key) on the PTY
// master to the read that brings those bytes back. The next key goes no
// sooner than the gap (20 ms by default, plus a random jitter so keys do not
// lock onto either server's frame clock) after the previous one, and only
// once that one was seen or declared lost after the timeout.
//
// The idle test opens 20 idle shells with one client attached and samples
// the server (and the client) from /proc before and after a quiet window:
// user+system CPU ticks from stat, run time and the count of times the
// scheduler ran it from each thread's schedstat, and voluntary context
// switches from each thread's status. A server without polling loops runs
// zero times while nothing happens.
//
// Everything runs in temporary directories; every server the program started
// is killed when it ends, on an error or an interrupt too.
package main
