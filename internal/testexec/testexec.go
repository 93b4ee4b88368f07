// Package testexec writes the programs a test then runs (a stand-in for
// claude or git, a copy of a built binary) so that running them cannot fail
// with "text file busy". A file open for writing cannot be executed
// (ETXTBSY), and a process forked by another test running in parallel holds
// a copy of every descriptor open at its fork until it calls exec: a
// program written while another test starts a process may, for a moment,
// be open for writing in that child, and running it then fails. Write holds
// syscall.ForkLock for reading while the file is open, as the standard
// library does around descriptors it creates: no fork happens meanwhile,
// so no child holds it. It uses the standard library only, so every
// package's tests may import it.
package testexec

import (
	"os"
	"syscall"
	"testing"
)

// Write writes data to path as an executable file (mode 0755), failing
// the test on an error.
func Write(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := write(path, data); err != nil {
		t.Fatal(err)
	}
}

func write(path string, data []byte) error {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	return os.WriteFile(path, data, 0o755)
}
