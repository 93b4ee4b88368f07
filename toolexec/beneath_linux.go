package toolexec

import (
	"errors"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// noOpenat2 is set once openat2 is found missing (kernels before 5.6) or
// forbidden (seccomp filters in some containers answer EPERM or ENOSYS).
var noOpenat2 atomic.Bool

// openDirBeneath opens the directory rel (slash-separated, "." for the root
// itself) beneath the directory rootFd, following no symlink on the way: the
// walk never follows one, so a symlink there means the tree changed under
// it. openat2 with RESOLVE_BENEATH does it in one call; without it, the
// component walk does.
func openDirBeneath(rootFd int, rel string) (int, error) {
	if !noOpenat2.Load() {
		how := unix.OpenHow{
			Flags:   unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC | unix.O_NOFOLLOW,
			Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
		}
		for try := 0; ; try++ {
			fd, err := unix.Openat2(rootFd, rel, &how)
			switch {
			case err == nil:
				return fd, nil
			case errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EPERM):
				noOpenat2.Store(true)
			case (errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EINTR)) && try < 8:
				// A rename raced with the lookup; the kernel asks to retry.
				continue
			case errors.Is(err, unix.EAGAIN):
				// Still racing: the component walk has no such limit.
			default:
				return -1, err
			}
			break
		}
	}
	return openDirWalk(rootFd, rel)
}
