//go:build race

package term

// raceBuild is set when the race detector is on: the comparison tests feed
// shorter streams, since it slows them about tenfold.
const raceBuild = true
