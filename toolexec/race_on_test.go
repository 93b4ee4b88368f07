//go:build race

package toolexec

// raceEnabled shrinks the process tests: the race detector makes each
// re-executed child many times slower.
const raceEnabled = true
