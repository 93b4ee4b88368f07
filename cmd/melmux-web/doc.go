// Command melmux-web is melmux's web server: a session's server starts it
// on `melmux web` as `melmux-web __web`, finding it beside melmux-server or
// on $PATH, with its end of a socket pair to the session as fd 3. It links
// net/http, crypto/tls and the WebSocket library, which the session's
// server then does without (their package inits would cost every idle
// server its pages); it links neither the emulator nor the UI, as the
// session sends it a pane's rows ready for the page. It lives as long as
// the session serves the web (`melmux web --stop`, the session's end).
package main
