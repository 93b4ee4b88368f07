// Package filekind names a file's type for messages, so that the session
// server (a path in the socket's place) and the agent tools (a path that is
// not a regular file) say it in the same words.
package filekind

import "io/fs"

// Of names the type of a file of mode m: "a directory", "a named pipe
// (FIFO)", "a socket", "a character device", "a block device", "a symlink",
// "a regular file"; another type as "not a regular file (" + its mode + ")".
func Of(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m.IsRegular():
		return "a regular file"
	}
	return "not a regular file (" + m.Type().String() + ")"
}
