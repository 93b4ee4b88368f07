//go:build !linux

package toolexec

// childShell is only used by the Linux process tests.
func childShell() int { return 2 }
