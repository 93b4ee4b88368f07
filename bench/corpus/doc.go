// Package corpus is the benchmark and agreement corpus of everyday terminal
// output: what real programs wrote to a terminal while a person (a script
// with timed keys) used them, kept as bytes, and a few shapes of output that
// are generated rather than recorded because they are one pattern repeated.
//
// A recording (data/NAME_COLSxROWS.tty.gz) holds exactly the bytes the
// program wrote to its terminal, after the kernel's output processing (so
// "\r\n" where the program wrote "\n" with ONLCR on, and bare "\n" where a
// full-screen program turned OPOST off). Play one into a pane whose tty
// passes bytes through untouched (`stty raw -echo`), at the size in its
// name. The recorder (bench/corpus/record) ran each program in a PTY of
// that size, with TERM=xterm-256color and a UTF-8 locale, answering the
// terminal queries the program sent (device attributes, cursor position)
// with pane/term's answers, and typed the keys of its script; README.md
// lists what each recording is and the recorder's recipes are the exact
// keys and pauses.
//
// The package gives the streams to the side-by-side benchmark
// (bench/corpus/play) and to pane/term's agreement test with tmux.
package corpus
