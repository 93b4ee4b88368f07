package main

import (
	"os"

	_ "github.com/melmux/melmux/internal/agentverbs" // registers the verbs
	"github.com/melmux/melmux/internal/cli"
)

func main() {
	os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, nil))
}
