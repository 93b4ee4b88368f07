package main

import (
	"os"

	"github.com/melmux/melmux/internal/cli"
	_ "github.com/melmux/melmux/internal/web" // registers __web
)

func main() {
	os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, nil))
}
