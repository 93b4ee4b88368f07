// Package serveverb is the session daemon's verb, __serve: it reads the
// config, opens the log and runs internal/server until the session ends.
// melmux-server (cmd/melmux-server) links it; melmux keeps a stand-in that
// hands over to melmux-server, so that the CLI links neither the server nor
// the emulator, the UI and the config parser behind it. cmd/melmux's tests
// link it too, and `melmux new` then runs its own binary as the daemon.
package serveverb
