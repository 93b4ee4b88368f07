// Command attached measures pane throughput with a client attached, melmux
// beside tmux in the same run: the four single-pane streams of bench/streams
// (plain, sgr, cursor, ink) flow through one 200x50 pane while a client draws
// it, and the table gives wall MB/s, MB per server CPU second, the client's
// CPU and the bytes it drew, with the ratio melmux/tmux.
//
// The program is the user's terminal, as in bench/latency: it runs the
// attach command (`melmux -s NAME attach`, `tmux -S SOCK attach-session`) on
// the slave side of a PTY it owns, with TERM=xterm-256color and a UTF-8
// locale, and drains everything the client writes, counting the bytes. A PTY
// drained by a plain reader costs both multiplexers the same and nothing that
// depends on what they draw; a real terminal emulator (the outer tmux of a
// "client inside tmux" run) would charge each for the other's parsing and
// skew wall time towards whoever sends fewer bytes.
//
// The terminal is sized so that the pane is 200x50 under both (melmux: the
// status row and the pane's top border, 200x52; tmux: its status line,
// 200x51); the program checks the pane sizes before each run. tmux is given
// melmux's default history depth (history-limit 10000), as the headless
// bench does.
//
// The pane runs the same script under both: it waits on a FIFO, cats the
// stream, then prints a marker line of non-ASCII letters that no stream and
// neither multiplexer's own drawing contains, and sleeps. The program
// attaches, waits until the client has drawn the first frame and gone quiet,
// samples the server's and the client's CPU (run time summed over
// their threads' schedstat), opens the FIFO (the clock starts) and stops the clock at
// the first read from the PTY master holding the marker's bytes: UTF-8 is
// self-synchronising, and a diffing renderer cannot skip cells it never drew
// before, so that is the moment the client has drawn the end of the stream.
// The pane's screen is then checked for the stream's last line and the
// marker.
//
// Usage: go run ./bench/attached [-runs 3] [-size-mb 20] [-kinds plain,sgr,cursor,ink]
// [-mux melmux,tmux] [-melmux BIN] [-tmux BIN] [-keep]
package main
