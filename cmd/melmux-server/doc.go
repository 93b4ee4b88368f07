// Command melmux-server is melmux's session daemon: `melmux new` starts it
// as `melmux-server __serve -s NAME --socket PATH ...`, finding it beside
// melmux or on $PATH. It links the server, the terminal emulator, the UI and
// the config parser, which a melmux CLI process then does without (every
// verb but attach speaks JSON over the socket, and attach hands its terminal
// to the server). Its command line and exit statuses are melmux's.
package main
