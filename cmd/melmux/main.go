package main

import (
	"io"
	"os"

	"github.com/melmux/melmux/internal/cli"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is melmux's command line: with no verb it attaches to the session,
// creating it.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return cli.Run(args, stdin, stdout, stderr, attachOrCreate)
}
