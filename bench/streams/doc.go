// Package streams generates the byte streams the pane benchmarks feed a
// terminal, so that the Go benchmarks (pane/term) and the side-by-side run
// against tmux (bench/pane_throughput.sh, through bench/streams/gen) measure
// the same input. Every stream is deterministic, about size bytes, uses "\n"
// line ends as a program writes them (a PTY's ONLCR adds the "\r"), and ends
// with the line Last(kind), so a script can tell when a terminal has shown
// all of it.
package streams
