package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/melmux/melmux/bench/streams"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: gen KIND SIZE_BYTES, or gen -last KIND (kinds: plain sgr cursor ink clears watch homeclear logclear region ri)")
		os.Exit(2)
	}
	if os.Args[1] == "-last" {
		fmt.Println(streams.Last(os.Args[2]))
		return
	}
	size, err := strconv.Atoi(os.Args[2])
	if err != nil || size < 1 {
		fmt.Fprintf(os.Stderr, "gen: size %q: give a whole number of bytes >= 1\n", os.Args[2])
		os.Exit(2)
	}
	b, err := streams.Generate(os.Args[1], size)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(2)
	}
	if _, err := os.Stdout.Write(b); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
