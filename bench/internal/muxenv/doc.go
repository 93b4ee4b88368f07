// Package muxenv is what the benchmarks that run melmux beside tmux
// (bench/latency, bench/attached, bench/corpus/play) share: a private
// temporary directory, the environment both multiplexers run with, a
// melmux binary built from the checkout, a server's CPU time from its
// threads' schedstat, and what a report says of the machine (load, CPU,
// tmux's version), and an attached client's terminal (Terminal).
package muxenv
