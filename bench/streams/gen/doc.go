// Command gen writes one of the benchmark streams of package streams to
// standard output (gen KIND SIZE_BYTES), or the line a terminal shows last
// after it (gen -last KIND). bench/pane_throughput.sh uses it.
package main
