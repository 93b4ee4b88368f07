// Package muxenv is what the attached benchmarks (bench/latency,
// bench/attached) set up alike before running melmux beside tmux: a private
// temporary directory, the environment both multiplexers run with, and a
// melmux binary built from the checkout.
package muxenv
