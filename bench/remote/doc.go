// Command remote measures panes on another host (docs/remote.md) over a
// link it makes: a network namespace with Debian's OpenSSH server in it,
// reached through a veth pair, as internal/remote's tests make theirs. It
// needs root (the namespace, the link, sshd) and ssh, sshd, ip, unshare,
// nsenter and tmux.
//
// Two measurements, each chosen with -case:
//
// echo: how long a key typed on the local terminal takes to come back drawn,
// for a program on the host that echoes (`stty raw -echo; exec cat`), in four
// setups run one after another in the same run: `ssh -t HOST` running it
// (the link's floor), `ssh -t HOST tmux` running it in a tmux on the host
// (what people do today), a melmux pane on the host (`open-pane --host`,
// with a client attached here), and a local melmux pane (melmux's own
// share). The program is the terminal: each setup runs in a PTY of its own,
// 120x40, TERM=xterm-256color. Each key is a distinct non-ASCII letter
// (two UTF-8 bytes that nothing else on the screen holds), the clock runs
// from the write of the key to the read that brings its bytes back, and the
// next key goes a gap (20 ms, plus up to 10 ms of jitter) after the echo
// came or was declared lost (5 s). -delay adds a one-way delay to each
// direction of the link (tc netem), for a link of some length.
//
// cut: a remote pane printing a numbered line every 250 ms while its link
// is down for -cut (30 s by default; `ip link set ... down` on the local
// end): when the drop is seen (`melmux hosts` says disconnected), that
// typing while down is refused and never reaches the host, how long after
// the link came back melmux reconnected, and that every line shows here
// exactly once.
//
// Everything runs in a temporary directory; the namespace, its processes,
// the link and every session end with the program.
package main
