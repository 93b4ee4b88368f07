//go:build !linux

package pane

import "os"

// pollable keeps the PTY master as creack/pty opened it: in blocking mode,
// a thread per pane while it is quiet. (On Linux it is made non-blocking:
// see poll_linux.go.)
func pollable(f *os.File) *os.File { return f }

// awaitExit returns at once: cmd.Wait blocks, a thread per running pane.
func awaitExit(pid int) {}
