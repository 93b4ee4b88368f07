package pane

import (
	"os"

	"golang.org/x/sys/unix"
)

// pollable returns the PTY master as a file that Go's poller waits on.
// creack/pty leaves it in blocking mode (its ioctls go through Fd, which
// sets that), and a blocking Read holds an OS thread for as long as the
// pane is quiet: a thread per pane, the server's thread count growing with
// its panes. A duplicate of the fd set non-blocking is one os.NewFile
// registers with the poller. The pane never calls Fd on it, which would
// turn it back (see setSize). On any failure the blocking file is kept: it
// works, with a thread.
func pollable(f *os.File) *os.File {
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return f
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return f
	}
	nf := os.NewFile(uintptr(fd), f.Name())
	f.Close()
	return nf
}

// awaitExit returns once process pid has ended (or at once when that
// cannot be waited for so), waiting in the poller on a pidfd: cmd.Wait then
// reaps without blocking. Wait alone blocks in waitid and so holds an OS
// thread for as long as the pane's program runs. The pidfd cannot name
// another process: pid stays unreaped, ours, until that Wait.
func awaitExit(pid int) {
	fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK)
	if err != nil {
		return
	}
	f := os.NewFile(uintptr(fd), "pidfd")
	defer f.Close()
	raw, err := f.SyscallConn()
	if err != nil {
		return
	}
	// A pidfd is readable once its process has ended. Without the poller
	// (an fd it cannot watch) Read returns an error instead of waiting.
	_ = raw.Read(func(fd uintptr) bool {
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 0)
		return err != nil || n > 0
	})
}
