// Package testreq is how a test says what it needs from the machine (a
// program on PATH, root, a kernel feature) so that a missing one is seen:
// on a developer's machine the test is skipped and says why, but where
// MELMUX_REQUIRE_TOOLS=1 (set by .ci/run, which installs everything the
// tests need) it fails, because a skip there would be a test CI believes
// it ran. It uses the standard library only, so every package's tests may
// import it.
package testreq

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// Gate is the variable that turns every skip for a missing requirement
// into a failure.
const Gate = "MELMUX_REQUIRE_TOOLS"

// Strict reports whether a missing requirement fails the test: Gate is 1,
// or one of the older per-tool gates named (MELMUX_REQUIRE_TMUX, ...) is.
func Strict(gates ...string) bool {
	for _, g := range append([]string{Gate}, gates...) {
		if os.Getenv(g) == "1" {
			return true
		}
	}
	return false
}

// Skip skips t saying why, or fails it when Strict(gates...).
func Skip(t testing.TB, why string, gates ...string) {
	t.Helper()
	if Strict(gates...) {
		t.Fatalf("%s, and the tests are required to run here (%s)", why, setGates(gates))
		return
	}
	t.Skipf("%s (%s=1 makes this a failure)", why, Gate)
}

// Tool returns the path of the program name on PATH, or skips (fails when
// Strict(gates...)) without it.
func Tool(t testing.TB, name string, gates ...string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Skip(t, fmt.Sprintf("%s is not installed: %v", name, err), gates...)
	}
	return p
}

// Root skips (fails when Strict) unless the test runs as root, for what
// only root can set up: files and processes of another uid.
func Root(t testing.TB, why string) {
	t.Helper()
	if os.Geteuid() != 0 {
		Skip(t, "needs root: "+why)
	}
}

// setGates names the gates that are set, for the failure's message.
func setGates(gates []string) string {
	var set string
	for _, g := range append([]string{Gate}, gates...) {
		if os.Getenv(g) == "1" {
			if set != "" {
				set += ", "
			}
			set += g + "=1"
		}
	}
	return set
}
