// Command melmux-server is melmux's session daemon: `melmux new` starts it
// as `melmux-server __serve -s NAME --socket PATH ...`, finding it beside
// melmux or on $PATH. It links the server, the terminal emulator, the UI and
// the config parser, which a melmux CLI process then does without (every
// verb but attach speaks JSON over the socket, and attach hands its terminal
// to the server). Its command line and exit statuses are melmux's.
package main

import (
	"os"

	"github.com/melmux/melmux/internal/cli"
	_ "github.com/melmux/melmux/internal/serveverb" // registers __serve
)

func main() {
	os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, nil))
}
