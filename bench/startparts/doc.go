// Command startparts times the parts of a melmux session start, for
// comparing builds: the daemon alone (melmux-server started as `melmux new`
// starts it, until it writes `ok` on its ready pipe, its first pane running
// `true`), a `melmux wait -t 1 --exit` call on that session,
// and `melmux new -d -- true` as a whole. The builds given take turns in
// every round, so the machine's other load falls on all of them alike; it
// prints the median of each part per build.
//
// Usage: go run ./bench/startparts [-n ROUNDS] MELMUX...
//
// Each MELMUX is the path of a melmux binary with melmux-server beside it.
// Copy builds with install(1) first (bench/startup.sh says why). Every
// server runs under a private XDG_RUNTIME_DIR and XDG_STATE_HOME and is
// ended after its round.
package main
