//go:build !linux

package toolexec

// openDirBeneath opens the directory rel (slash-separated, "." for the root
// itself) beneath the directory rootFd, following no symlink on the way.
func openDirBeneath(rootFd int, rel string) (int, error) {
	return openDirWalk(rootFd, rel)
}
